"""The runner interface: what differs between test frameworks, and nothing else.

A runner names its test files, prepares its toolchain, builds the command, and turns its reports
into records. The engine (`runners.engine`) owns everything shared: the workspace, the sandbox,
categorization, scoring and artifacts. Third-party runners subclass `Runner` and register through
the `runners.frameworks` entry point group.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from runners.config import CheckpointConfig, ProblemConfig, load_problem
from runners.context import Invocation, Layout, RunContext, Verdict
from runners.engine import execute, wall_clock_verdict  # re-exported for runners that used it
from runners.environment import EnvironmentSpec
from runners.errors import UserInputError
from runners.sandbox.base import Sandbox, SandboxResult

if TYPE_CHECKING:
    from runners.results import ExecutionResult

# The run's data types live in `runners.context` (the engine needs them, and this module needs the
# engine); framework runners keep importing them from here.
__all__ = ["Invocation", "Layout", "RunContext", "Runner", "Verdict", "entry_file_name",
           "shell_command", "wall_clock_verdict"]


class Runner(ABC):
    """Base class of every framework runner.

    `Runner(problem=..., checkpoint=..., environment=..., submission_path=...).run()` runs one
    checkpoint and returns its `ExecutionResult`.
    """

    name: ClassVar[str]
    report_files: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        problem: ProblemConfig | Path | str,
        checkpoint: CheckpointConfig | str,
        environment: EnvironmentSpec | None = None,
        submission_path: Path | str | None = None,
    ) -> None:
        self.problem = problem if isinstance(problem, ProblemConfig) else load_problem(problem)
        self.checkpoint = (checkpoint if isinstance(checkpoint, CheckpointConfig)
                           else self.problem.checkpoint(checkpoint))
        self.environment = environment or EnvironmentSpec()
        self.submission_path = Path(submission_path) if submission_path else None

    def run(
        self,
        extra_args: list[str] | None = None,
        *,
        select: list[str] | None = None,
        output_dir: Path | None = None,
        sandbox: Sandbox | None = None,
    ) -> "ExecutionResult":
        if self.submission_path is None:
            raise UserInputError("a submission path is required to run tests")
        return execute(self, self.submission_path, extra_args=extra_args or [], select=select or [],
                       output_dir=output_dir, sandbox=sandbox)

    # ---- what subclasses provide ------------------------------------------------------------

    @abstractmethod
    def test_files(self, checkpoint: str) -> list[str]:
        """File names under tests/ that hold `checkpoint`'s tests (any that exist are used)."""

    @abstractmethod
    def is_test_file(self, name: str) -> bool:
        """Whether a top-level file of tests/ belongs to some checkpoint."""

    def prepare(self, ctx: RunContext) -> None:
        """Install toolchains and dependencies (network allowed). Called before `invocation`."""

    @abstractmethod
    def write_config(self, ctx: RunContext) -> None:
        """Write generated configuration into `ctx.workspace.config`."""

    @abstractmethod
    def invocation(self, ctx: RunContext) -> Invocation:
        """The test command, as the sandbox will run it (network off)."""

    @abstractmethod
    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        """Read and check the reports after every sandboxed process is gone."""

    def report_paths(self, ctx: RunContext) -> list[Path]:
        """Host paths of the raw reports, kept with the run's artifacts."""
        return [ctx.workspace.reports / name for name in self.report_files]



def entry_file_name(entry_file: str, extension: str) -> str:
    return entry_file if Path(entry_file).suffix else f"{entry_file}{extension}"


def shell_command(argv: list[str]) -> str:
    return shlex.join(argv)
