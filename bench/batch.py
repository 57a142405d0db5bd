"""5. Many evaluations: `python -m runners batch` at `-j 1` and `-j 2`, throughput and scaling.

Every round runs the whole batch twice, `-j 1` then `-j 2` (a fresh output directory each time,
so every cell runs), after one `-j 2` warm-up batch that fills the toolchain caches. The cells are
the example agents' submissions for the three example problems (pytest, vitest, jest): all 24
(full), 16 (quick: agents alpha and beta), or one agent's 2 cells of the tiny problem (smoke).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bench.common import (
    PYTHON,
    ROOT,
    Row,
    Sample,
    Section,
    Settings,
    Unavailable,
    median,
    run_timed,
)
from bench.world import world
from runners.batch.store import rmtree_forcibly

NAME = "batch"
TITLE = "5. Many evaluations: `runners batch` at -j 1 and -j 2"
SANDBOX = "bubblewrap"
JOBS = (1, 2)


def batch_argv(
    settings: Settings,
    problems: Path,
    submissions: Path,
    jobs: int,
    output: Path,
    sandbox: str,
    agents: list[str],
) -> list[str]:
    argv = [
        PYTHON,
        "-m",
        "runners",
        "batch",
        "--problems",
        str(problems),
        "--submissions",
        str(submissions),
        "-j",
        str(jobs),
        "--sandbox",
        sandbox,
        "--output",
        str(output),
        "--overwrite",
        "--pass-policy",
        "any",
        *settings.cache_args(),
    ]
    for agent in agents:
        argv += ["--agent", agent]
    return argv


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    try:
        from runners.batch.cells import discover
    except ImportError:
        raise Unavailable("runners.batch is not there yet (no `runners batch` command)") from None
    help_proc = run_timed([PYTHON, "-m", "runners", "batch", "--help"], cwd=ROOT)
    if help_proc.returncode != 0:
        raise Unavailable("`python -m runners batch` is not available")
    setup = world(settings)
    agents = ["alpha", "beta"] if settings.quick else ["a1"] if settings.smoke else []
    found = discover(setup.problems, setup.submissions, agents=agents)
    cells = len(found.cells)
    from runners.sandbox.registry import sandbox_class

    sandbox = SANDBOX if sandbox_class(SANDBOX).probe() is None else "none"
    if sandbox != SANDBOX:
        section.notes.append(f"{SANDBOX} is not usable here: measured with `--sandbox none`")
    rounds = (
        settings.repeat
        if settings.smoke
        else max(1, min(settings.repeat, 2 if settings.quick else 3))
    )
    records: dict[int, list[dict]] = {jobs: [] for jobs in JOBS}

    def batch(jobs: int, keep: bool = True) -> Callable[[], Sample]:
        def measure() -> Sample:
            out = settings.tmp(f"batch-j{jobs}")
            try:
                proc = run_timed(
                    batch_argv(
                        settings,
                        setup.problems,
                        setup.submissions,
                        jobs,
                        out / "batch",
                        sandbox,
                        agents,
                    ),
                    cwd=ROOT,
                    timeout=7200,
                )
                proc.check((0,), f"runners batch -j {jobs}")
                done = [
                    json.loads(p.read_text()) for p in (out / "batch" / "cells").rglob("cell.json")
                ]
                if len(done) != cells:
                    raise RuntimeError(
                        f"runners batch -j {jobs}: {len(done)} of {cells} cells finished"
                    )
                if keep:
                    records[jobs].append({"cell_seconds": sum(d.get("seconds", 0.0) for d in done)})
                return proc.sample
            finally:
                rmtree_forcibly(out)

        return measure

    if not settings.smoke:  # smoke: the measurements before it warmed the tiny problem's caches
        settings.log(f"  batch: warm-up (-j 2, {cells} cells)")
        batch(2, keep=False)()
    samples: dict[int, list[Sample]] = {jobs: [] for jobs in JOBS}
    for index in range(rounds):
        for jobs in JOBS:
            sample = batch(jobs)()
            samples[jobs].append(sample)
            settings.log(
                f"  batch round {index + 1}/{rounds}: -j {jobs}: {sample.wall:.1f} s, "
                f"{cells / sample.wall:.3f} cells/s"
            )
    throughput = {jobs: [cells / s.wall for s in samples[jobs]] for jobs in JOBS}
    for jobs in JOBS:
        walls = [s.wall for s in samples[jobs]]
        busy = median([r["cell_seconds"] for r in records[jobs]])
        row = Row(
            f"-j {jobs}: throughput",
            throughput[jobs],
            unit="cells/s",
            note=(
                f"{cells} cells in {median(walls):.1f} s; the cells' own run time adds up to "
                f"{busy:.1f} s"
            ),
        )
        if jobs != 1:
            row.vs = "-j 1: throughput"
            pairs = list(zip(throughput[1], throughput[jobs]))
            row.ratio = median([b / a for a, b in pairs])
            row.added = median([b - a for a, b in pairs])
            row.note += f"; scaling {row.ratio:.2f}× of an ideal {jobs}× on {_cores()} cores"
        section.add(row)
    section.notes.append(
        f"{cells} cells ({', '.join(sorted({c.problem for c in found.cells}))}; agents "
        f"{', '.join(sorted({c.agent for c in found.cells}))}), `--sandbox {sandbox} "
        f"--overwrite`, a fresh output directory per batch; {rounds} round(s) of -j 1 then -j 2, "
        "after a -j 2 warm-up. Ratio = throughput at -j 2 over -j 1 in the same round."
    )
    return section


def _cores() -> int:
    import os

    return os.cpu_count() or 1
