"""What every measurement shares: settings, timed subprocesses, interleaving, result rows.

A figure is always the median of repeated runs, and every comparison is measured in the same
rounds, in a fixed interleaved order (A, B, A, B, ...), so that the noise of a busy machine hits
both sides. Ratios and added seconds are medians of the per-round pairs (`compare`).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
EXAMPLE_PROBLEM = ROOT / "problems" / "inventory_cli"
EXAMPLE_SUBMISSIONS = ROOT / "examples" / "submissions"
SANDBOXES = ("none", "bubblewrap", "docker")


class BenchError(RuntimeError):
    """A measurement could not be taken (a run failed): the message says what ran and why."""


class Unavailable(Exception):
    """A part this measurement needs is missing here (a backend, promptfoo, the network)."""


@dataclass
class Settings:
    mode: str  # full | quick | smoke
    repeat: int
    data_dir: Path
    cache_dir: Path | None  # None: the harness's default cache (warm on a machine in use)
    sandboxes: tuple[str, ...]
    console: Console
    verbose: bool = False

    @property
    def smoke(self) -> bool:
        return self.mode == "smoke"

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def tmp(self, prefix: str) -> Path:
        """A scratch directory under the data dir (removed by the caller)."""
        base = self.data_dir / "tmp"
        base.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=base))

    def log(self, text: str) -> None:
        self.console.print(Text(text, style="dim"), highlight=False)

    def cache_args(self) -> list[str]:
        return ["--cache-dir", str(self.cache_dir)] if self.cache_dir else []

    def environment(self, sandbox: str) -> Any:
        from runners.model.environment import EnvironmentSpec

        spec = EnvironmentSpec(sandbox=sandbox)  # type: ignore[arg-type]
        if self.cache_dir:
            spec.cache_dir = self.cache_dir
        return spec

    @property
    def harness_cache(self) -> Path:
        if self.cache_dir:
            return self.cache_dir
        from runners.model.environment import default_cache_dir

        return default_cache_dir()


# ---- timing -------------------------------------------------------------------------------------


@dataclass
class Sample:
    wall: float
    cpu: float | None = None  # user+sys of the process and its waited-for descendants
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Proc:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    sample: Sample

    def check(self, ok: Sequence[int] = (0,), what: str = "") -> Proc:
        if self.returncode not in ok:
            tail = (self.stderr.strip() or self.stdout.strip())[-3000:]
            raise BenchError(
                f"{what or self.argv[0]} exited {self.returncode}:\n{' '.join(self.argv)}\n{tail}"
            )
        return self


def run_timed(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 1800,
) -> Proc:
    """Run `argv`, timing its wall clock and CPU (children's rusage from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        deadline = started + timeout
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    raise BenchError(f"timed out after {timeout:g} s: {' '.join(argv)}")
                time.sleep(0.002)
        except BaseException:  # a timeout, Ctrl-C: take the whole process group down with us
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            raise
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Proc(
            list(argv),
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            Sample(wall, usage.ru_utime + usage.ru_stime),
        )


def timed_call(fn: Callable[[], Any]) -> tuple[Sample, Any]:
    """Time an in-process call: wall, and CPU of this process plus reaped children."""
    before_self, before_children = os.times()[0:2], os.times()[2:4]
    started = time.perf_counter()
    value = fn()
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (
        (after[0] - before_self[0])
        + (after[1] - before_self[1])
        + (after[2] - before_children[0])
        + (after[3] - before_children[1])
    )
    return Sample(wall, cpu), value


Variant = tuple[str, Callable[[], "Sample | None"]]  # None: this variant sits this round out


def interleave(
    settings: Settings,
    variants: Sequence[Variant],
    rounds: int,
    *,
    warmup: bool | None = None,
    title: str = "",
) -> dict[str, list[Sample]]:
    """Run every variant once per round, in the same order each round (A, B, A, B, ...).

    A warm-up round (not counted) comes first, except in smoke mode (every measurement once): it
    fills caches and checks every variant works.
    """
    if warmup is None:
        warmup = not settings.smoke
    samples: dict[str, list[Sample]] = {name: [] for name, _ in variants}
    total = rounds + (1 if warmup else 0)
    for index in range(total):
        counted = not warmup or index > 0
        label = f"round {index + (0 if warmup else 1)}/{rounds}" if counted else "warm-up"
        for name, fn in variants:
            sample = fn()
            if sample is None:
                continue
            if counted:
                samples[name].append(sample)
            settings.log(f"  {title} {label}: {name}: {sample.wall:.3f} s")
    return samples


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def compare(base: Sequence[float], other: Sequence[float]) -> tuple[float, float]:
    """(ratio, added) of `other` over `base`: medians of the per-round pairs."""
    pairs = list(zip(base, other))
    if not pairs:
        return float("nan"), float("nan")
    return (
        statistics.median(o / b for b, o in pairs if b > 0),
        statistics.median(o - b for b, o in pairs),
    )


def walls(samples: Sequence[Sample]) -> list[float]:
    return [s.wall for s in samples]


# ---- results ------------------------------------------------------------------------------------


@dataclass
class Row:
    label: str
    samples: list[float]
    unit: str = "s"  # s | MB | cells/s | x | B
    vs: str | None = None  # the baseline row's label
    ratio: float | None = None
    added: float | None = None  # in the row's unit
    target: str | None = None
    met: bool | None = None  # None: no target
    note: str = ""
    cpu: float | None = None  # median CPU seconds, where measured

    @property
    def median(self) -> float:
        return median(self.samples)

    @property
    def n(self) -> int:
        return len(self.samples)


@dataclass
class Section:
    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def row(self, label: str) -> Row:
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(label)


def timing_row(
    label: str,
    samples: Sequence[Sample],
    base: Sequence[Sample] | None = None,
    base_label: str | None = None,
    **kw: Any,
) -> Row:
    values = walls(samples)
    cpus = [s.cpu for s in samples if s.cpu is not None]
    row = Row(label, values, vs=base_label, cpu=median(cpus) if cpus else None, **kw)
    if base is not None:
        row.ratio, row.added = compare(walls(base), values)
    return row


# ---- helpers ------------------------------------------------------------------------------------


def usable_sandboxes(settings: Settings, section: Section) -> list[str]:
    from runners.sandbox.registry import sandbox_class

    found = []
    for name in settings.sandboxes:
        reason = sandbox_class(name).probe()
        if reason is None:
            found.append(name)
        else:
            section.notes.append(f"`{name}` not measured: {reason}")
    return found


def unique() -> str:
    return uuid.uuid4().hex[:12]


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", str(ROOT))
    env.update(extra)
    return env
