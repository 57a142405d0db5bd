"""The one-call Python API."""

from __future__ import annotations

from pathlib import Path

from runners.frameworks.base import Runner
from runners.frameworks.registry import runner_class
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.problem_loader import load_problem
from runners.model.results import ExecutionResult
from runners.sandbox.base import Sandbox


def make_runner(
    problem: ProblemConfig | Path | str,
    checkpoint: CheckpointConfig | str,
    submission: Path | str,
    environment: EnvironmentSpec | None = None,
) -> Runner:
    """The registered runner for the problem's framework, ready to `.run()`."""
    problem = problem if isinstance(problem, ProblemConfig) else load_problem(problem)
    cls = runner_class(problem.framework, problem.kind)
    return cls(
        problem=problem, checkpoint=checkpoint, environment=environment, submission_path=submission
    )


def run_checkpoint(
    problem: ProblemConfig | Path | str,
    checkpoint: CheckpointConfig | str,
    submission: Path | str,
    environment: EnvironmentSpec | None = None,
    *,
    select: list[str] | None = None,
    extra_args: list[str] | None = None,
    output_dir: Path | str | None = None,
    sandbox: Sandbox | None = None,
) -> ExecutionResult:
    """Run one checkpoint's hidden tests against `submission` and return the result.

    Bad input raises `UserInputError` (or its subclass `ConfigError`); a run that could not be
    completed is returned with `infrastructure_failure=True` and a reason.
    """
    runner = make_runner(problem, checkpoint, submission, environment)
    return runner.run(
        extra_args,
        select=select,
        output_dir=Path(output_dir) if output_dir else None,
        sandbox=sandbox,
    )
