"""1. What one evaluation costs over the tests themselves, per sandbox backend.

`python -m runners run` (a fresh CLI process, as a user or a script runs it) and `run_checkpoint`
(the Python API, in this process) against the bare pytest command on the same files (bench.bare),
caches warm (a warm-up round runs first). The targets apply to the CLI: it is what `runners run`,
scripts and CI pay per evaluation; the API shows the harness without interpreter start-up and
imports (what a long-lived process such as the Promptfoo provider or a batch worker pays).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from bench.bare import BareSuite
from bench.common import (
    PYTHON,
    ROOT,
    BenchError,
    Sample,
    Section,
    Settings,
    Variant,
    interleave,
    median,
    run_timed,
    timed_call,
    timing_row,
    usable_sandboxes,
)
from bench.world import Cell, tiny_world, world
from runners.batch.store import rmtree_forcibly

NAME = "overhead"
TITLE = "1. Overhead per evaluation (harness vs the bare pytest command)"
TARGETS = {  # text, ratio limit, added-seconds limit
    "bubblewrap": ("ratio ≤ 1.15 and < 0.5 s added", 1.15, 0.5),
    "docker": ("< 1.5 s added", None, 1.5),
}
# The fixed cost of one CLI evaluation (judged on the 4-test suite): seconds added over bare.
FIXED_TARGETS = {"bubblewrap": 0.25, "docker": 0.6}
BARE = "bare pytest (no harness)"


def cli_argv(settings: Settings, cell: Cell, sandbox: str, output: Path) -> list[str]:
    return [
        PYTHON,
        "-m",
        "runners",
        "run",
        str(cell.problem),
        "--checkpoint",
        cell.checkpoint,
        "--submission",
        str(cell.submission),
        "--sandbox",
        sandbox,
        "--pass-policy",
        "any",
        "--output",
        str(output),
        *settings.cache_args(),
    ]


def check_result(path: Path, what: str) -> dict:
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BenchError(f"{what}: no result at {path} ({exc})") from None
    if result.get("infrastructure_failure"):
        raise BenchError(f"{what}: infrastructure failure: {result.get('infrastructure_reason')}")
    return result


def bytecode_env(settings: Settings) -> dict[str, str]:
    """The environment, but with Python allowed to cache the harness's bytecode (in a prefix dir
    of the bench, so the project's venv is not touched)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(settings.data_dir / "pycache")
    return env


def cli_variant(
    settings: Settings, cell: Cell, sandbox: str, env: dict[str, str] | None = None
) -> Callable[[], Sample]:
    def run() -> Sample:
        out = settings.tmp(f"cli-{sandbox}")
        try:
            proc = run_timed(cli_argv(settings, cell, sandbox, out / "run"), cwd=ROOT, env=env)
            proc.check((0, 1), f"runners run --sandbox {sandbox}")
            check_result(out / "run" / "result.json", f"runners run --sandbox {sandbox}")
            return proc.sample
        finally:
            rmtree_forcibly(out)

    return run


def api_variant(settings: Settings, cell: Cell, sandbox: str) -> Callable[[], Sample]:
    from runners.api import run_checkpoint

    environment = settings.environment(sandbox)

    def run() -> Sample:
        out = settings.tmp(f"api-{sandbox}")
        try:
            sample, result = timed_call(
                lambda: run_checkpoint(
                    cell.problem,
                    cell.checkpoint,
                    cell.submission,
                    environment,
                    output_dir=out / "run",
                )
            )
            if not result.graded:
                raise BenchError(f"run_checkpoint ({sandbox}): {result.summary}")
            sample.extra["outside"] = sample.wall - (result.duration or 0.0)
            return sample
        finally:
            rmtree_forcibly(out)

    return run


def bare_variant(suite: BareSuite) -> Callable[[], Sample]:
    return lambda: suite.run().sample


def process_variant(argv: list[str]) -> Callable[[], Sample]:
    return lambda: run_timed(argv, cwd=ROOT).check((0,)).sample


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    sandboxes = usable_sandboxes(settings, section)
    passes = [(world(settings).cell, settings.repeat, settings.smoke, not settings.smoke)]
    if not settings.smoke:
        # The same comparison on a 4-test suite: the added seconds are fixed costs, and against a
        # ~0.5 s suite they are resolved far better than against a ~10 s one on a noisy machine.
        passes.append(
            (tiny_world(settings.data_dir / "smoke-world").cell, 2 * settings.repeat, True, False)
        )
    for cell, rounds, extras, ratio_target in passes:
        _measure(settings, section, cell, sandboxes, rounds, extras, ratio_target)
    section.notes.append(
        "Targets apply to the CLI (`python -m runners run`, a fresh process per evaluation); the "
        "API rows are `run_checkpoint` in a process that has already imported `runners`. Added "
        "seconds and ratios are medians of the per-round pairs against the bare command of the "
        "same round. The ratio target is judged on the example problem (inventory_cli); on the "
        "4-test `tiny` suite only the added seconds (the harness's fixed cost per evaluation) are."
    )
    section.notes.append(
        "The bare command is the harness's own pytest command line (same toolchain, plugins, "
        "reports and environment) on a workspace laid out the same way, started directly: no CLI, "
        "no sandbox. Every backend is compared with that one host baseline, so container or "
        "namespace start-up counts as overhead."
    )
    return section


def _measure(
    settings: Settings,
    section: Section,
    cell: Cell,
    sandboxes: list[str],
    rounds: int,
    extras: bool,
    ratio_target: bool,
) -> None:
    suite = BareSuite(settings, cell)
    tag = f"[{cell.problem.name}] "
    bare = f"{tag}{BARE}"
    variants: list[Variant] = [(bare, bare_variant(suite))]
    for sandbox in sandboxes:
        variants.append((f"{tag}{sandbox} · CLI", cli_variant(settings, cell, sandbox)))
        variants.append((f"{tag}{sandbox} · API", api_variant(settings, cell, sandbox)))
    cached = "bubblewrap" if "bubblewrap" in sandboxes else (sandboxes[0] if sandboxes else None)
    if cached:
        variants.append(
            (
                f"{tag}{cached} · CLI, bytecode cached",
                cli_variant(settings, cell, cached, bytecode_env(settings)),
            )
        )
    fixed = [
        ("python start-up (`python -c pass`)", process_variant([PYTHON, "-c", "pass"])),
        (
            "CLI imports (`python -c 'import runners.cli'`)",
            process_variant([PYTHON, "-c", "import runners.cli"]),
        ),
    ]
    if extras:
        variants += fixed
    samples = interleave(settings, variants, rounds, title=NAME)

    base = samples[bare]
    section.add(
        timing_row(bare, base, note=f"{cell.describe()}: {suite.collected} tests; caches warm")
    )
    for sandbox in sandboxes:
        for kind in ("CLI", "API"):
            label = f"{tag}{sandbox} · {kind}"
            row = timing_row(label, samples[label], base, bare)
            if kind == "CLI" and sandbox in TARGETS:
                text, ratio_limit, added_limit = TARGETS[sandbox]
                if ratio_target:
                    row.target = text
                    row.met = (
                        ratio_limit is None or row.ratio <= ratio_limit
                    ) and row.added < added_limit
                else:
                    limit = FIXED_TARGETS[sandbox]
                    row.target = f"≤ +{limit:g} s added"
                    row.met = row.added <= limit
            if kind == "API":
                outside = median([s.extra["outside"] for s in samples[label]])
                row.note = f"{outside:.3f} s of it outside the sandboxed command"
            section.add(row)
    if cached:
        label = f"{tag}{cached} · CLI, bytecode cached"
        row = timing_row(label, samples[label], base, bare)
        row.note = "the same CLI run where Python may cache the harness's bytecode: " + (
            "PYTHONDONTWRITEBYTECODE is set here and the venv has no .pyc files"
            if os.environ.get("PYTHONDONTWRITEBYTECODE")
            else "no difference expected here"
        )
        section.add(row)
    if extras:
        for name, _ in fixed:
            section.add(timing_row(name, samples[name], note="part of every CLI run"))
