"""11. What the code-quality figures cost (runners/quality, docs/quality.md).

- Measuring one submission, no cache: every example submission (examples/submissions: three
  agents × the example problems × their checkpoints), grouped by the languages in it (Python
  only: lizard, ruff, jscpd; with JavaScript/TypeScript: ESLint too; Go: lizard and jscpd), and
  the same from the cache (a hash of the sources).
- Real projects: this project's own `runners/` package (Python) and the JavaScript of the vitest
  package in node_modules, measured whole.
- What a test run pays: `run_checkpoint` of an example problem with the figures on and off, rounds
  interleaved (the figures are measured in a thread while the tests run): a Python CLI (pytest)
  and a TypeScript library (jest).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.common import (
    ROOT,
    BenchError,
    Sample,
    Section,
    Settings,
    Unavailable,
    interleave,
    timed_call,
    timing_row,
    usable_sandboxes,
)
from runners.batch.store import rmtree_forcibly

NAME = "quality"
TITLE = "11. Code-quality figures: per submission, on real projects, and what a run pays"
RUN_TARGET = 1.0  # seconds added to a run at most (median)
PROBLEMS = {
    "python": ("inventory_cli", "gamma", "checkpoint_3"),
    "typescript": ("tree_render_ts", "beta", "checkpoint_2"),
}


def _kind(languages: dict[str, int]) -> str:
    if {"javascript", "typescript"} & languages.keys():
        return "with JavaScript/TypeScript (ESLint too)"
    if "python" in languages:
        return "Python only"
    return "Go only" if "go" in languages else "other"


def run(settings: Settings) -> Section:
    from runners.model.limits import ResourceLimits
    from runners.quality import tools
    from runners.quality.measure import measure_directory

    if tools.node_binary() is None or not (tools.node_modules() / "eslint").is_dir():
        raise Unavailable(
            "ESLint and jscpd are not installed in node_modules (bash scripts/setup-node.sh)"
        )
    section = Section(NAME, TITLE)
    limits = ResourceLimits()
    submissions = sorted(
        p for p in (ROOT / "examples" / "submissions").glob("*/*/checkpoint_*") if p.is_dir()
    )
    if settings.smoke:
        submissions = submissions[:4]
    cache = settings.tmp("quality-cache")
    try:
        by_kind: dict[str, list[Sample]] = {}
        cached: list[Sample] = []
        for _ in range(settings.repeat):
            for path in submissions:
                sample, measured = timed_call(
                    lambda path=path: measure_directory(path, limits, None)
                )
                if measured.metrics is None:
                    raise BenchError(f"{path}: not measured: {measured.notes}")
                by_kind.setdefault(_kind(measured.metrics.languages), []).append(sample)
        for path in submissions:  # fill the cache once, then read from it
            measure_directory(path, limits, cache)
        for _ in range(settings.repeat):
            for path in submissions:
                cached.append(
                    timed_call(lambda path=path: measure_directory(path, limits, cache))[0]
                )
        for kind, samples in sorted(by_kind.items()):
            section.add(
                timing_row(
                    f"one example submission, {kind} (no cache)",
                    samples,
                    note=f"{len(samples) // settings.repeat} submissions",
                )
            )
        section.add(timing_row("one example submission, from the cache", cached))
        _projects(settings, section, limits)
        _runs(settings, section)
    finally:
        rmtree_forcibly(cache)
    section.notes.append(
        "Per submission the tools run side by side (lizard, ruff, ESLint, jscpd: one process "
        "each); ESLint's start (loading typescript-eslint and TypeScript) is most of a "
        "JavaScript/TypeScript submission's time. In a run the figures are measured while the "
        "tests run, so a run pays what is left when its tests end first."
    )
    return section


def _projects(settings: Settings, section: Section, limits) -> None:
    from runners.quality.measure import measure_directory

    projects = {
        "runners/ (this project, Python)": ROOT / "runners",
        "node_modules/vitest/dist (JavaScript)": ROOT / "node_modules" / "vitest" / "dist",
    }
    for label, path in projects.items():
        if not path.is_dir() or (settings.smoke and "vitest" in label):  # smoke: the small one only
            section.notes.append(
                f"{label}: not measured" + ("" if path.is_dir() else " (not here)")
            )
            continue
        samples, sizes = [], ""
        for _ in range(1 if settings.smoke else max(2, settings.repeat // 2)):
            sample, measured = timed_call(lambda path=path: measure_directory(path, limits, None))
            if measured.metrics is None:
                raise BenchError(f"{path}: not measured: {measured.notes}")
            samples.append(sample)
            m = measured.metrics
            sizes = (
                f"{m.files} files, {m.loc:,} LOC, {m.functions:,} functions, "
                f"{m.duplicate_blocks} duplicated blocks, {m.lint_findings} lint findings"
            )
        section.add(timing_row(f"real project · {label}", samples, note=sizes))


def _runs(settings: Settings, section: Section) -> None:
    """Each round grades a fresh copy of the submission with a new comment line in one source file:
    its figures are never in the cache (the harness's own cache is left as it is)."""
    import shutil
    import uuid

    from runners.api import run_checkpoint
    from runners.model.problem_loader import load_problem

    sandboxes = [s for s in usable_sandboxes(settings, section) if s != "docker"]
    sandbox = "bubblewrap" if "bubblewrap" in sandboxes else "none"
    for kind, (problem_name, agent, checkpoint) in list(PROBLEMS.items())[
        : 1 if settings.smoke else None
    ]:
        problem = load_problem(ROOT / "problems" / problem_name)
        original = ROOT / "examples" / "submissions" / agent / problem_name / checkpoint

        def variant(
            quality: bool,
            original: Path = original,
            problem=problem,
            problem_name: str = problem_name,
            checkpoint: str = checkpoint,
        ) -> Callable[[], Sample]:
            environment = settings.environment(sandbox)
            environment.quality = quality

            def once() -> Sample:
                out = settings.tmp("quality-run")
                try:
                    submission = out / checkpoint
                    shutil.copytree(original, submission)
                    source = next(
                        p
                        for p in sorted(submission.rglob("*"))
                        if p.suffix in (".py", ".ts", ".js")
                    )
                    comment = "#" if source.suffix == ".py" else "//"
                    with source.open("a") as handle:
                        handle.write(f"\n{comment} {uuid.uuid4().hex}\n")
                    sample, result = timed_call(
                        lambda: run_checkpoint(
                            problem, checkpoint, submission, environment, output_dir=out / "run"
                        )
                    )
                    if result.infrastructure_failure:
                        raise BenchError(f"{problem_name}: {result.infrastructure_reason}")
                    if quality and (
                        result.quality is None
                        or result.quality.metrics is None
                        or result.quality.seconds == 0
                    ):
                        raise BenchError(
                            f"{problem_name}: the figures were not measured: {result.quality}"
                        )
                    return sample
                finally:
                    rmtree_forcibly(out)

            return once

        off, on = (
            f"run · {problem_name} ({kind}), figures off",
            f"run · {problem_name} ({kind}), figures on",
        )
        samples = interleave(
            settings, [(off, variant(False)), (on, variant(True))], settings.repeat, title=NAME
        )
        section.add(timing_row(off, samples[off], note=f"sandbox {sandbox}"))
        row = section.add(
            timing_row(on, samples[on], samples[off], off, target=f"≤ {RUN_TARGET:g} s added")
        )
        row.met = row.added is not None and row.added <= RUN_TARGET
