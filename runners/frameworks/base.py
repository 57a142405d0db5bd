"""The runner interface: what differs between test frameworks, and nothing else.

A runner names its test files, prepares its toolchain, builds the command, and turns its reports
into records. The engine (`runners.engine.protocol`) owns everything shared: the workspace, the
sandbox, the report key, the exit-code/report agreement and the timeout verdict
(`runners.engine.trust`), categorization, scoring and artifacts. A runner keeps nothing of a run on
`self`: what `prepare` makes goes into `ctx.prepared`. Third-party runners subclass `Runner` and
register through the `runners.frameworks` entry point group.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from runners.engine.context import Invocation, Layout, RunContext, Verdict
from runners.engine.trust import ExitContract
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError
from runners.model.problem_loader import load_problem
from runners.plugins.runners_report_signature import KEY_FILE_ENV, KEY_FILE_NAME
from runners.sandbox.base import Sandbox, SandboxResult
from runners.scan.core import Protected

if TYPE_CHECKING:
    from runners.model.results import ExecutionResult

# The run's data types live in `runners.engine.context`, which the engine imports; framework runners
# keep importing them from here. Nothing here imports the engine but `Runner.run`, when called.
__all__ = [
    "ExitContract",
    "Invocation",
    "Layout",
    "RunContext",
    "Runner",
    "Verdict",
    "entry_file_name",
    "shell_command",
]


class Runner(ABC):
    """Base class of every framework runner.

    `Runner(problem=..., checkpoint=..., environment=..., submission_path=...).run()` runs one
    checkpoint and returns its `ExecutionResult`.
    """

    name: ClassVar[str]
    # The problem kind it runs (`ProblemConfig.kind`): the registry holds one runner per
    # framework and kind.
    kind: ClassVar[str] = "suite"
    report_files: ClassVar[tuple[str, ...]] = ()
    # Modules `collect` imports: loaded while the tests run (`runners.engine.preload`), not after.
    collect_modules: ClassVar[tuple[str, ...]] = ()
    # What the tool's exit codes mean; the engine holds every report to it.
    exit_contract: ClassVar[ExitContract] = ExitContract("the test run")
    # Whether the run's reporter signs its report: the engine then leaves it a one-time key
    # (`ctx.report_key`) before `write_config`.
    signs_reports: ClassVar[bool] = False
    # Whether `--select` ids can pick single tests (then `check_select` checks them and the
    # invocation runs only those); a runner that leaves it False refuses any id.
    selects: ClassVar[bool] = False

    def __init__(
        self,
        problem: ProblemConfig | Path | str,
        checkpoint: CheckpointConfig | str,
        environment: EnvironmentSpec | None = None,
        submission_path: Path | str | None = None,
    ) -> None:
        self.problem = problem if isinstance(problem, ProblemConfig) else load_problem(problem)
        self.checkpoint = (
            checkpoint
            if isinstance(checkpoint, CheckpointConfig)
            else self.problem.checkpoint(checkpoint)
        )
        self.environment = environment or EnvironmentSpec()
        self.submission_path = Path(submission_path) if submission_path else None

    def run(
        self,
        extra_args: list[str] | None = None,
        *,
        select: list[str] | None = None,
        output_dir: Path | None = None,
        sandbox: Sandbox | None = None,
        previous: Path | None = None,
    ) -> ExecutionResult:
        """`previous`: the previous checkpoint's submission, for the growth of the code-quality
        figures (default: found beside the submission, runners.quality.measure)."""
        from runners.engine.protocol import execute

        if self.submission_path is None:
            raise UserInputError("a submission path is required to run tests")
        return execute(
            self,
            self.submission_path,
            extra_args=extra_args or [],
            select=select or [],
            output_dir=output_dir,
            sandbox=sandbox,
            previous=previous,
        )

    # ---- what subclasses provide ------------------------------------------------------------

    @abstractmethod
    def test_files(self, checkpoint: str) -> list[str]:
        """File names under tests/ that hold `checkpoint`'s tests (any that exist are used)."""

    def test_files_up_to(self, checkpoint: CheckpointConfig) -> set[str]:
        """The test files that run for `checkpoint`: its own, and earlier checkpoints' unless it
        sets `include_prior_tests: false` (the one place this is computed)."""
        return {
            name
            for cp in self.problem.checkpoints_up_to(checkpoint)
            for name in self.test_files(cp.name)
        }

    @abstractmethod
    def is_test_file(self, name: str) -> bool:
        """Whether a top-level file of tests/ belongs to some checkpoint."""

    def copy_tests(self, ctx: RunContext) -> None:
        """Put what the run needs of the problem where the run finds it, before any sandbox
        starts (and before the scan): the default copies this checkpoint's test files, the earlier
        ones' and every other file under tests/ into `ctx.workspace.tests`, beside the copy of the
        submission; a repository runner lays the problem's files into the copy instead."""
        ctx.workspace.copy_tests(
            ctx.problem,
            ctx.checkpoint,
            self.is_test_file,
            self.test_files_up_to(ctx.checkpoint),
            self.test_files(ctx.checkpoint.name),
        )

    def problem_files(self, ctx: RunContext) -> set[str]:
        """Paths in the submission copy that are the problem's, not the submission's (the scan
        skips them): none, unless the tests are laid into the copy."""
        return set()

    def checkpoint_of_file(self, file: str | None, current: str) -> str:
        """The checkpoint a test's file belongs to (earlier ones' tests are Regression): the
        checkpoint its name mentions (`test_checkpoint_2.py`), else the current one."""
        from runners.engine.categorize import checkpoint_of_file

        return checkpoint_of_file(file, self.problem.checkpoints, current)

    def estimated_tests(self) -> int | None:
        """How many tests the checkpoint's files define, read before anything runs (the default
        whole-run wall clock grows with it: `runners.engine.wall_clock`); None: unknown."""
        return None

    def check_select(self, ctx: RunContext) -> None:
        """Refuse `ctx.select` ids that name no test (UserInputError), before any sandbox starts.
        The tests are in `ctx.workspace.tests` by then. The default: a runner that cannot run
        single tests (`selects` False) refuses any id, rather than running everything."""
        if ctx.select and not self.selects:
            raise UserInputError(
                f"option --select: the {self.name} runner cannot run single tests (it runs the "
                "whole suite); run without --select"
            )

    def prepare(self, ctx: RunContext) -> None:
        """Install toolchains and dependencies (network allowed), keeping what the run needs in
        `ctx.prepared`. Called before `invocation`."""

    @abstractmethod
    def write_config(self, ctx: RunContext) -> None:
        """Write generated configuration into `ctx.workspace.config`."""

    @abstractmethod
    def invocation(self, ctx: RunContext) -> Invocation:
        """The test command, as the sandbox will run it (network off)."""

    @abstractmethod
    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        """Read the reports (checking their signature) after every sandboxed process is gone.
        The engine then checks the exit code against them (`exit_contract`)."""

    @classmethod
    def protected(cls) -> Protected:
        """What submission code has no business naming or importing (`runners.scan` flags it):
        by default the report files and the report key's file and variable."""
        return Protected(files=(*cls.report_files, KEY_FILE_NAME), names=(KEY_FILE_ENV,))

    def parse_root(self, ctx: RunContext) -> str:
        """The directory (as the sandbox sees it) the tool names files relative to, in its
        reports and tracebacks: its root directory."""
        return ctx.layout.root

    def report_paths(self, ctx: RunContext) -> list[Path]:
        """Host paths of the raw reports, kept with the run's artifacts."""
        return [ctx.workspace.reports / name for name in self.report_files]


def entry_file_name(entry_file: str, extension: str) -> str:
    return entry_file if Path(entry_file).suffix else f"{entry_file}{extension}"


def shell_command(argv: list[str]) -> str:
    return shlex.join(argv)
