"""Run SCBench's own case-based evaluator on one checkpoint and print its grade as JSON.

Not part of runners: a driver for SCBench's code, which is *not* in this repository. Run it with
an interpreter that can import SCBench's `src/` at the last commit before its pytest migration
(SprocketLab/slop-code-bench, 2a9800e^) and its evaluation dependencies:

    SCBENCH_SRC=/path/to/slop-code-bench $SCBENCH_PYTHON bench/scbench_eval.py \\
        PROBLEM_DIR CHECKPOINT SUBMISSION

It evaluates with SCBench's `local-py` environment spec (per case: `uv init`, `uv add -r
requirements.txt`, then `uv run <entry>.py ...`), and prints
`{"seconds": s, "cases": {"group/case": {"passed": bool, "score": float}}}`. Used by
`bench/cases.py` (the side-by-side timing; skipped when SCBench is not at hand) and
`bench/scbench_compare.py` (our grade against its grade, case by case; docs/CASES.md).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time
from pathlib import Path


def _children(pid: str) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def kill_leftovers() -> None:
    """SCBench's local runtime kills only the `uv run` wrapper of an API server, not the server
    (its quirk 17): this process is a subreaper, so the servers it leaked are its children now."""
    for _ in range(20):
        stack, found = _children("self"), []
        while stack:
            pid = stack.pop()
            found.append(pid)
            stack += _children(str(pid))
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _why(report) -> dict:
    """A failing case's wrong attributes and the end of its stderr (why SCBench failed it)."""
    if report.did_pass():
        return {}
    wrong = sorted(name for name, a in report.results.items() if a.is_correct is False)
    stderr = report.results.get("stderr")
    tail = str(stderr.actual)[-300:] if stderr is not None and stderr.actual else ""
    diffs = {name: str(report.results[name].diff)[:400] for name in wrong}
    return {"wrong": wrong, "stderr": tail, "diffs": diffs}


def main(argv: list[str]) -> int:
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    problem_dir, checkpoint_name, submission = Path(argv[0]), argv[1], Path(argv[2])
    source = Path(os.environ["SCBENCH_SRC"])
    sys.path.insert(0, str(source / "src"))
    import logging

    import yaml
    from slop_code.evaluation.config import ProblemConfig
    from slop_code.evaluation.runner import run_checkpoint
    from slop_code.execution import LocalEnvironmentSpec

    logging.disable(logging.CRITICAL)
    try:
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    except ImportError:
        pass
    spec = yaml.safe_load((source / "configs" / "environments" / "local-py.yaml").read_text())
    environment = LocalEnvironmentSpec.model_validate(spec)
    problem = ProblemConfig.from_yaml(problem_dir.resolve())
    checkpoint = problem.load_checkpoint(checkpoint_name)
    started = time.monotonic()
    try:
        results = run_checkpoint(submission.resolve(), problem, checkpoint, environment)
        seconds = time.monotonic() - started
    finally:
        kill_leftovers()
    cases = {
        f"{r.group}/{r.id}": {
            "passed": r.did_pass(),
            "score": round(r.calculate_score(), 6),
            **_why(r),
        }
        for r in results.reports
    }
    print(json.dumps({"seconds": round(seconds, 3), "cases": cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
