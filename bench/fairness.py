"""14. CPU under load: the same CPU-bound work in a sandbox and on the host, two busy processes
beside.

A grade must not depend on the machine's load more than a plain process's speed does: a test with
a 10 s subprocess limit that passes on the host must pass in the sandbox while the machine is busy.
Two `python -c 'while 1: pass'` processes (each in its own session, as two users' programs are) run
for the whole section. Each round then times one piece of CPU-bound work (a loop of fixed length per
process; the program measures its own wall clock, so start-up and the harness are not counted) in
three shapes, on the host and through `runners run` / `runners batch` per backend:

- **one process**: the program runs the loop once;
- **4 processes in one test**: the program runs it in 4 processes at once (as jest's workers or
  xdist do);
- **batch -j 4**: four runs at once (`runners batch -j 4` over four submissions; they start one
  after the other, so their work begins at a set time, together); on the host, four programs at
  once, each in its own session.

The ratio is sandbox / host, the median of the per-round pairs.
"""

from __future__ import annotations

import re
import signal
import subprocess
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import (
    PYTHON,
    ROOT,
    BenchError,
    Row,
    Section,
    Settings,
    compare,
    run_timed,
    usable_sandboxes,
)
from bench.overhead import check_result
from bench.world import CONFTEST
from runners.batch.store import rmtree_forcibly
from runners.toolchains.which_python import interpreter_version

NAME = "fairness"
TITLE = "14. CPU under load: CPU-bound work in a sandbox vs on the host, two busy processes beside"
TARGET = 1.2
BUSY = 2
AGENTS = ("w1", "w2", "w3", "w4")
# Loop iterations per process: ~1.5 s of one quiet core here (smoke: a few ms).
LOOPS = {"full": 30_000_000, "quick": 30_000_000, "smoke": 200_000}
SHAPES = {
    "one process": ("checkpoint_1", 1),
    "4 processes in one test": ("checkpoint_2", 4),
    "batch -j 4": ("checkpoint_1", 1),
}
_ELAPSED = re.compile(r"ELAPSED (\d+\.\d+)")
_LATE = re.compile(r"LATE (\d+\.\d+)")
# Seconds from launching `batch -j 4` to the start of the work in its four runs (their start-up,
# one after the other, takes less; a run that is later says so and the section notes it).
BATCH_LEAD = 30.0

MAIN = """
import sys
import time
from multiprocessing import Process


def work(loops):
    total = 0
    for i in range(loops):
        total += i


if __name__ == "__main__":
    procs, loops, start_at = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    if start_at:  # runs started one after the other begin their work together
        late = time.time() - start_at
        if late > 0:
            print(f"LATE {late:.1f}")
        time.sleep(max(0.0, -late))
    started = time.perf_counter()
    workers = [Process(target=work, args=(loops,)) for _ in range(procs)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(f"ELAPSED {time.perf_counter() - started:.4f}")
"""
TEST = """
import subprocess


def test_work(entrypoint_argv):
    done = subprocess.run(entrypoint_argv + ["{procs}", "{loops}", "{start_at}"],
                          capture_output=True, text=True)
    print(done.stdout)
    assert done.returncode == 0, done.stderr
"""
CONFIG = """
name: cpu_work
version: 1
description: fixed CPU-bound work, timed by the program itself (python -m bench, fairness)
tags: [bench]
entry_file: main
checkpoints:
  checkpoint_1: {{version: 1}}
  checkpoint_2: {{version: 1, include_prior_tests: false}}
"""


def make_world(root: Path, loops: int) -> tuple[Path, Path]:
    """problems/cpu_work (checkpoint_1: one process, checkpoint_2: four) and four agents'
    identical submissions; returns (problems, submissions)."""
    problem = root / "problems" / "cpu_work"
    files = {problem / "config.yaml": CONFIG.format(), problem / "tests" / "conftest.py": CONFTEST}
    for checkpoint, procs in (("checkpoint_1", 1), ("checkpoint_2", 4)):
        write_test(problem, checkpoint, procs, loops, 0.0)
    for agent in AGENTS:  # the batch runs every checkpoint it finds: checkpoint_1 only
        files[root / "submissions" / agent / "cpu_work" / "checkpoint_1" / "main.py"] = MAIN
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "problems", root / "submissions"


def write_test(problem: Path, checkpoint: str, procs: int, loops: int, start_at: float) -> None:
    """The checkpoint's test: `procs` processes of `loops` iterations, begun at `start_at` (epoch
    seconds; 0: at once). Four runs of `batch -j 4` start one after the other: their work begins
    together, as the four programs on the host do."""
    path = problem / "tests" / f"test_{checkpoint}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        textwrap.dedent(TEST.format(procs=procs, loops=loops, start_at=start_at)).lstrip("\n")
    )


def elapsed(text: str, what: str) -> float:
    found = _ELAPSED.search(text)
    if not found:
        raise BenchError(f"{what}: no ELAPSED line in {text[-500:]!r}")
    return float(found.group(1))


# A busy loop that dies with the bench, however the bench ends (PR_SET_PDEATHSIG).
BUSY_LOOP = (
    "import ctypes, signal; ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)\nwhile 1: pass"
)


def start_busy() -> list[subprocess.Popen]:
    return [
        subprocess.Popen(
            [PYTHON, "-c", BUSY_LOOP],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(BUSY)
    ]


def stop(processes: list[subprocess.Popen]) -> None:
    for proc in processes:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def host_python(problem: Path) -> str:
    """The interpreter the runs use on the host (the problem's preference: SCBench's 3.12 where
    there is one), so that both sides run the same Python."""
    from runners.model.problem_loader import load_problem
    from runners.toolchains.which_python import find_host_python, python_request

    return find_host_python(python_request(None, load_problem(problem)))


def host(python: str, program: Path, procs: int, loops: int, copies: int) -> float:
    """`copies` programs at once on the host, each in its own session: their mean elapsed."""
    running = [
        subprocess.Popen(
            [python, str(program), str(procs), str(loops), "0"],
            start_new_session=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(copies)
    ]
    times = []
    for proc in running:
        out, err = proc.communicate(timeout=1800)
        if proc.returncode != 0:
            raise BenchError(f"host work exited {proc.returncode}: {err[-2000:]}")
        times.append(elapsed(out, "host work"))
    return sum(times) / len(times)


def test_elapsed(result_file: Path, what: str) -> float:
    result = check_result(result_file, what)
    return elapsed("".join(t.get("stdout") or "" for t in result["tests"]), what)


def sandboxed(
    settings: Settings,
    problems: Path,
    submissions: Path,
    sandbox: str,
    shape: str,
    loops: int,
    late: list[str],
) -> float:
    checkpoint, procs = SHAPES[shape]
    batch = shape == "batch -j 4"
    write_test(
        problems / "cpu_work", checkpoint, procs, loops, time.time() + BATCH_LEAD if batch else 0.0
    )
    out = settings.tmp(f"fairness-{sandbox}")
    try:
        if batch:
            argv = [
                PYTHON,
                "-m",
                "runners",
                "batch",
                "--problems",
                str(problems),
                "--submissions",
                str(submissions),
                "--problem",
                "cpu_work",
                "-j",
                str(len(AGENTS)),
                "--sandbox",
                sandbox,
                "--output",
                str(out / "batch"),
                "--overwrite",
                "--pass-policy",
                "any",
                *settings.cache_args(),
            ]
            run_timed(argv, cwd=ROOT, timeout=3600).check(
                (0,), f"runners batch --sandbox {sandbox}"
            )
            found = [p for p in (out / "batch").rglob("result.json") if p.parent.name == checkpoint]
            if len(found) != len(AGENTS):
                raise BenchError(
                    f"runners batch --sandbox {sandbox}: {len(found)} results of {checkpoint}"
                )
            late += [
                f"{sandbox}: {m.group(1)} s"
                for p in found
                for m in [_LATE.search(p.read_text())]
                if m
            ]
            return sum(test_elapsed(p, f"batch {sandbox}") for p in found) / len(found)
        argv = [
            PYTHON,
            "-m",
            "runners",
            "run",
            str(problems / "cpu_work"),
            "--checkpoint",
            checkpoint,
            "--submission",
            str(submissions / AGENTS[0] / "cpu_work" / "checkpoint_1"),
            "--sandbox",
            sandbox,
            "--pass-policy",
            "any",
            "--output",
            str(out / "run"),
            *settings.cache_args(),
        ]
        run_timed(argv, cwd=ROOT, timeout=3600).check((0,), f"runners run --sandbox {sandbox}")
        return test_elapsed(out / "run" / "result.json", f"runners run --sandbox {sandbox}")
    finally:
        rmtree_forcibly(out)


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    sandboxes = [name for name in usable_sandboxes(settings, section) if name != "none"]
    if settings.smoke:
        sandboxes = sandboxes[:1]
    if not sandboxes:
        section.skipped = "neither bubblewrap nor docker is usable here"
        return section
    loops = LOOPS[settings.mode]
    root = settings.data_dir / "fairness-world"
    problems, submissions = make_world(root, loops)
    program = submissions / AGENTS[0] / "cpu_work" / "checkpoint_1" / "main.py"
    python = host_python(problems / "cpu_work")
    shapes = list(SHAPES) if not settings.smoke else ["one process"]
    rounds = settings.repeat
    measure: dict[tuple[str, str], Callable[[], float]] = {}
    for shape in shapes:
        _, procs = SHAPES[shape]
        copies = len(AGENTS) if shape == "batch -j 4" else 1
        measure[(shape, "host")] = lambda procs=procs, copies=copies: host(
            python, program, procs, loops, copies
        )
        for sandbox in sandboxes:
            measure[(shape, sandbox)] = lambda sandbox=sandbox, shape=shape: sandboxed(
                settings, problems, submissions, sandbox, shape, loops, late
            )
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in measure}
    late: list[str] = []
    busy = start_busy()
    try:
        if not settings.smoke:  # warm-up: toolchains prepared, images resolved; not counted
            for shape in shapes:
                for sandbox in sandboxes:
                    measure[(shape, sandbox)]()
            late.clear()  # a cold run starts late; only the counted rounds must be in step
        for index in range(rounds):
            for key, fn in measure.items():
                value = fn()
                samples[key].append(value)
                settings.log(
                    f"  fairness round {index + 1}/{rounds}: {key[0]}: {key[1]}: {value:.3f} s"
                )
    finally:
        stop(busy)
    for shape in shapes:
        base = samples[(shape, "host")]
        section.add(Row(f"{shape}: host", base))
        for sandbox in sandboxes:
            values = samples[(shape, sandbox)]
            ratio, added = compare(base, values)
            section.add(
                Row(
                    f"{shape}: {sandbox}",
                    values,
                    vs=f"{shape}: host",
                    ratio=ratio,
                    added=added,
                    target=f"ratio ≤ {TARGET}",
                    met=ratio <= TARGET,
                )
            )
    section.notes.append(
        f"{BUSY} busy processes (`python -c 'while 1: pass'`, each in its own session) ran "
        f"throughout; the work ran on Python {interpreter_version(python)} on the host, as in the "
        f"runs (their result's `python`); {loops:,} loop iterations per process; the figure is "
        "the work's own wall clock (printed by the program, start-up excluded; batch and host ×4: "
        f"the mean of the four); {rounds} round(s) after a warm-up, interleaved. Runs use the "
        "default limits (`--sandbox NAME`, nothing else). The four runs of `batch -j 4` begin "
        f"their work together, {BATCH_LEAD:g} s after the batch is launched (they start one after "
        "the other), as the four host programs do."
    )
    if late:
        section.notes.append(
            f"Runs of `batch -j 4` that began their work late (not in step): {', '.join(late)}."
        )
    return section
