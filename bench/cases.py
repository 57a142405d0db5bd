"""9. Case-based problems: 200 CLI cases through the harness vs the same 200 invocations bare, vs
SCBench's per-case `uv run`; and an API problem's cost per request.

CLI (cases_world: a problem in SCBench's case format, its loader.py and verifier.py on the
`slop_code` names): `python -m runners run` per backend, against

- bare: the 200 invocations in a shell loop (write the case's input file, run the tool), with
  the interpreter the harness gives the submission, in a copy of the submission;
- SCBench's way (SCBench's local environment spec: per case a fresh directory, `uv init`, `uv add
  -r requirements.txt`, then `uv run tool.py ...`), as the same shell loop; and, when SCBench's
  code is at hand (SCBENCH_SRC and SCBENCH_PYTHON, see bench/scbench_eval.py), SCBench's own
  evaluator on the same problem files.

API: the harness on 100 GET requests to a tiny server, against the same requests from a plain
Python loop (server start and health wait included in both): per request (the harness's median
case duration against the loop's median request) and per run.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from bench.cases_world import CasesWorld, build
from bench.common import (
    PYTHON,
    ROOT,
    BenchError,
    Row,
    Sample,
    Section,
    Settings,
    Variant,
    child_env,
    compare,
    interleave,
    median,
    run_timed,
    timing_row,
    usable_sandboxes,
)

NAME = "cases"
TITLE = (
    "9. Case-based problems: 200 CLI cases vs bare and vs SCBench's per-case `uv run`; API cost "
    "per request"
)
CLI_TARGET = 1.3
SCBENCH_TARGET = 5.0


def _submission_python(settings: Settings, submission: Path) -> str:
    """The interpreter the harness runs the submission with on `none` (its empty environment)."""
    from runners.sandbox.none import NoSandbox
    from runners.toolchains.python import PythonToolchains

    toolchains = PythonToolchains(NoSandbox(), settings.harness_cache, None, 1800, "bench-cases")
    env, failure = toolchains.submission_env(submission)
    if failure:
        raise BenchError(f"the submission's environment could not be prepared: {failure}")
    return env.python


def _harness(
    settings: Settings, problem: Path, submission: Path, sandbox: str, expected: int
) -> Sample:
    """The whole `runners run`; the median case duration it reports is in `extra["case_ms"]`."""
    out = settings.tmp("cases-run")
    try:
        proc = run_timed(
            [
                PYTHON,
                "-m",
                "runners",
                "run",
                str(problem),
                "-c",
                "checkpoint_1",
                "-s",
                str(submission),
                "--sandbox",
                sandbox,
                "--json",
                str(out / "r.json"),
                "--output",
                str(out / "run"),
                *settings.cache_args(),
            ],
            env=child_env(),
            cwd=ROOT,
        )
        proc.check((0,), f"runners run ({sandbox})")
        from runners.model.results import ExecutionResult

        result = ExecutionResult.model_validate_json((out / "r.json").read_text())
        if sum(result.pass_counts.values()) != expected:
            raise BenchError(
                f"runners run ({sandbox}): {result.summary}, not {expected} cases passed"
            )
        proc.sample.extra["case_ms"] = median([t.duration_ms or 0.0 for t in result.tests])
        return proc.sample
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _script(settings: Settings, script: Path, submission: Path, python: str, what: str) -> Sample:
    work = settings.tmp("cases-bare")
    try:
        shutil.copytree(submission, work / "sub")
        env = {
            "PATH": f"{Path(python).parent}:/usr/local/bin:/usr/bin:/bin",
            "PYTHON": python,
            "SUBMISSION": str(submission),
            "HOME": os.environ.get("HOME", "/tmp"),
            "LANG": "C.UTF-8",
        }
        if what == "scbench":
            from uv import find_uv_bin

            from runners.sandbox.base import network_env

            env.update(network_env())
            env["PATH"] = f"{Path(find_uv_bin()).parent}:{env['PATH']}"
            env.update(UV_PYTHON=python, UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
        return (
            run_timed(["bash", str(script)], env=env, cwd=work / "sub", timeout=3600)
            .check((0,), what)
            .sample
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _scbench_own(world: CasesWorld) -> Sample | None:
    source, python = os.environ.get("SCBENCH_SRC"), os.environ.get("SCBENCH_PYTHON")
    if not (source and python):
        return None
    proc = run_timed(
        [
            python,
            str(ROOT / "bench" / "scbench_eval.py"),
            str(world.cli_problem),
            "checkpoint_1",
            str(world.cli_submission),
        ],
        env={**os.environ, "SCBENCH_SRC": source},
        timeout=7200,
    )
    proc.check((0,), "SCBench's evaluator")
    return proc.sample


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    count = 10 if settings.smoke else 200
    world = build(settings.data_dir / "cases", count, 10 if settings.smoke else 100)
    sandboxes = usable_sandboxes(settings, section)
    python = _submission_python(settings, world.cli_submission)
    labels = {b: f"runners run · {b} · {count} CLI cases" for b in sandboxes}
    bare = f"bare shell loop · the same {count} invocations"
    variants: list[Variant] = [
        (bare, lambda: _script(settings, world.cli_script, world.cli_submission, python, "bare"))
    ]
    variants += [
        (
            labels[b],
            lambda b=b: _harness(settings, world.cli_problem, world.cli_submission, b, count),
        )
        for b in sandboxes
    ]
    samples = interleave(settings, variants, settings.repeat, title=NAME)
    section.add(
        timing_row(
            bare, samples[bare], note=f"{count} × write the input, run `python tool.py count FILE`"
        )
    )
    for backend in sandboxes:
        label = labels[backend]
        row = section.add(
            timing_row(
                label, samples[label], samples[bare], bare, note="the whole CLI run, verified"
            )
        )
        if backend == "bubblewrap":
            row.target, row.met = (
                f"ratio ≤ {CLI_TARGET}",
                bool(row.ratio is not None and row.ratio <= CLI_TARGET),
            )
    _scbench_rows(settings, section, world, python, labels, sandboxes, samples)
    _api_rows(settings, section, world, sandboxes)
    section.notes.append(
        "CLI: the problem is in SCBench's case format (loader.py, verifier.py with "
        "deepdiff_verify), so the harness row includes loading and verifying every case. The bare "
        "loop has no verification at all."
    )
    return section


def _scbench_rows(
    settings: Settings,
    section: Section,
    world: CasesWorld,
    python: str,
    labels: dict[str, str],
    sandboxes: list[str],
    samples: dict[str, list[Sample]],
) -> None:
    """SCBench's approach is slow (seconds per case): fewer rounds, each beside one of ours."""
    ours = labels.get("bubblewrap") or (labels[sandboxes[0]] if sandboxes else None)
    backend = "bubblewrap" if "bubblewrap" in labels else (sandboxes[0] if sandboxes else None)
    if ours is None or backend is None:
        return
    rounds = 1 if (settings.smoke or settings.quick) else 2
    uv_loop = f"SCBench's way · per case uv init, uv add, uv run · {world.count} cases"
    own = f"SCBench's own evaluator (local-py) · {world.count} cases"
    ours_again = f"{ours} (beside SCBench's)"
    variants: list[Variant] = [
        (
            ours_again,
            lambda: _harness(
                settings, world.cli_problem, world.cli_submission, backend, world.count
            ),
        ),
        (
            uv_loop,
            lambda: _script(
                settings, world.scbench_script, world.cli_submission, python, "scbench"
            ),
        ),
        (own, lambda: _scbench_own(world)),
    ]
    got = interleave(settings, variants, rounds, warmup=False, title=NAME)
    section.add(timing_row(ours_again, got[ours_again]))
    for label in (uv_loop, own):
        if not got[label]:
            if label == own:
                section.notes.append(
                    "SCBench's own evaluator: not measured (SCBENCH_SRC / SCBENCH_PYTHON unset; "
                    "see bench/scbench_eval.py)"
                )
            continue
        row = section.add(timing_row(label, got[label], got[ours_again], ours_again))
        speedup = row.ratio if row.ratio else float("nan")  # their time over ours, per paired round
        section.add(
            Row(
                f"speed-up of runners over {label.split(' · ')[0]}",
                [speedup],
                unit="x",
                target=f"≥ {SCBENCH_TARGET:g}×",
                met=speedup >= SCBENCH_TARGET,
                note="ratio of the paired rounds",
            )
        )


def _api_rows(
    settings: Settings, section: Section, world: CasesWorld, sandboxes: list[str]
) -> None:
    """The cost of one request: the median case duration the harness reports (request, response
    parsed, verification, report entry) against the median request of a plain loop (request,
    response parsed, compared); and the whole run against the whole loop (fixed costs)."""
    import json

    python = _submission_python(settings, world.api_submission)
    server = str(world.api_submission / "server.py")
    n = world.api_count

    def bare() -> Sample:
        proc = run_timed(
            [PYTHON, str(world.api_bare), python, server, str(n)], env=child_env()
        ).check((0,), "api bare")
        proc.sample.extra["case_ms"] = median(json.loads(proc.stdout.strip().splitlines()[-1]))
        return proc.sample

    bare_label = f"api · bare Python loop · {n} requests"
    variants: list[Variant] = [(bare_label, bare)]
    variants += [
        (
            f"api · runners run · {b} · {n} requests",
            lambda b=b: _harness(settings, world.api_problem, world.api_submission, b, n),
        )
        for b in sandboxes
    ]
    got = interleave(settings, variants, settings.repeat, title=NAME)
    per_bare = [s.extra["case_ms"] for s in got[bare_label]]
    section.add(
        Row(
            "api · one request · bare Python loop",
            per_bare,
            unit="ms",
            note="median request: send, receive, parse, compare",
        )
    )
    for backend in sandboxes:
        label = f"api · runners run · {backend} · {n} requests"
        per = [s.extra["case_ms"] for s in got[label]]
        ratio, added = compare(per_bare, per)
        section.add(
            Row(
                f"api · one request · runners run · {backend}",
                per,
                unit="ms",
                vs="bare Python loop",
                ratio=ratio,
                added=added,
                note="median case: request, parse, verify, report entry",
            )
        )
    section.add(
        timing_row(bare_label, got[bare_label], note="server start and health wait included")
    )
    for backend in sandboxes:
        label = f"api · runners run · {backend} · {n} requests"
        section.add(
            timing_row(
                label,
                got[label],
                got[bare_label],
                bare_label,
                note="the whole CLI run: sandbox, server start, health wait, report",
            )
        )


if __name__ == "__main__":  # pragma: no cover - run through `python -m bench --only cases`
    sys.exit("run `python -m bench --only cases`")
