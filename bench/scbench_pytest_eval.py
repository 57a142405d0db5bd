"""Run SCBench's own pytest evaluator on one checkpoint and print its grade as JSON.

Not part of runners: a driver for SCBench's code, which is *not* in this repository. Run it with
the interpreter of an environment made from SCBench's pyproject (SprocketLab/slop-code-bench at
feeab5ab, the pytest harness), e.g. `UV_PROJECT_ENVIRONMENT=/tmp/scbench-venv uv sync --frozen
--python 3.12` in the checkout:

    /tmp/scbench-venv/bin/python bench/scbench_pytest_eval.py \\
        SCBENCH_DIR PROBLEM CHECKPOINT SUBMISSION

It grades with `run_checkpoint_pytest` and SCBench's `local-py` environment (`uv init`, `uv add -r
requirements.txt`, then `uvx --with pytest ... pytest` with `uv run <entry>.py` as the entrypoint)
and prints `{"seconds", "infrastructure_failure", "exit_code", "collected", "tests":
{"<file>::<id>": {"status", "group"}}}`. Used by bench/scbench_pytest_compare.py.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    source, problem_name, checkpoint_name, submission = (
        Path(argv[0]),
        argv[1],
        argv[2],
        Path(argv[3]),
    )
    sys.path.insert(0, str(source / "src"))
    import logging

    logging.disable(logging.CRITICAL)
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    from slop_code.entrypoints.config.loader import resolve_environment
    from slop_code.evaluation import ProblemConfig, run_checkpoint_pytest

    problem = ProblemConfig.from_yaml(source / "problems" / problem_name)
    environment = resolve_environment(source / "configs" / "environments" / "local-py.yaml")
    started = time.monotonic()
    result = run_checkpoint_pytest(
        submission_path=submission,
        problem=problem,
        checkpoint=problem.checkpoints[checkpoint_name],
        env_spec=environment,
    )
    tests = {
        f"{Path(t.file_path).name}::{t.id}": {"status": t.status, "group": str(t.group_type.value)}
        for t in result.tests
    }
    print(
        json.dumps(
            {
                "seconds": round(time.monotonic() - started, 1),
                "infrastructure_failure": bool(result.infrastructure_failure),
                "exit_code": result.pytest_exit_code,
                "collected": result.pytest_collected,
                "tests": tests,
                "stderr": (result.stderr or "")[-3000:],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
