"""The runner interface: what differs between test frameworks, and nothing else.

A runner names its test files, prepares its toolchain, builds the command, and turns its reports
into records. The engine (`runners.engine`) owns everything shared: the workspace, the sandbox,
categorization, scoring and artifacts. Third-party runners subclass `Runner` and register through
the `runners.frameworks` entry point group.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from runners.config import CheckpointConfig, ProblemConfig, load_problem
from runners.environment import EnvironmentSpec
from runners.limits import ResourceLimits
from runners.records import ParsedReport
from runners.sandbox.base import Mount, Sandbox, SandboxResult
from runners.workspace import Workspace

if TYPE_CHECKING:
    from runners.results import ExecutionResult


@dataclass
class Layout:
    """Paths of the workspace as the sandboxed process sees them."""

    root: str
    submission: str
    tests: str
    config: str
    reports: str
    home: str
    tmp: str

    @classmethod
    def for_workspace(cls, workspace: Workspace, remap: bool) -> "Layout":
        if not remap:
            return cls(root=str(workspace.root), submission=str(workspace.submission),
                       tests=str(workspace.tests), config=str(workspace.config),
                       reports=str(workspace.reports), home=str(workspace.home),
                       tmp=str(workspace.tmp))
        return cls(root="/harness", submission="/workspace", tests="/harness/tests",
                   config="/harness/config", reports="/harness/reports", home="/tmp/home",
                   tmp="/tmp")

    def mounts(self, workspace: Workspace) -> list[Mount]:
        """Tests and config read-only; the submission copy and the reports dir writable."""
        return [
            Mount(source=workspace.submission, target=self.submission, writable=True),
            Mount(source=workspace.tests, target=self.tests, writable=False),
            Mount(source=workspace.config, target=self.config, writable=False),
            Mount(source=workspace.reports, target=self.reports, writable=True),
        ]


@dataclass
class RunContext:
    problem: ProblemConfig
    checkpoint: CheckpointConfig
    environment: EnvironmentSpec
    sandbox: Sandbox
    workspace: Workspace
    layout: Layout
    limits: ResourceLimits
    run_id: str
    started_at: float
    select: list[str] = field(default_factory=list)
    extra_args: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    python: str | None = None  # the version Python toolchains were built from, once prepared

    def asset_env(self) -> dict[str, str]:
        env = {"SCBENCH_CHECKPOINT": self.checkpoint.name}
        if self.problem.static_assets:
            assets_dir = f"{self.layout.tests}/assets"
            env["SCBENCH_ASSETS_DIR"] = assets_dir
            for name in self.problem.static_assets:
                env[f"SCBENCH_ASSET_{_env_name(name)}"] = f"{assets_dir}/{name}"
        return env


@dataclass
class Invocation:
    argv: list[str]
    env: dict[str, str]
    mounts: list[Mount] = field(default_factory=list)
    image: str | None = None
    entrypoint: str | None = None


@dataclass
class Verdict:
    """What the reports say, and whether they can be trusted."""

    report: ParsedReport
    infrastructure_reason: str | None = None
    errors: list[str] = field(default_factory=list)


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
        from runners.engine import execute

        if self.submission_path is None:
            from runners.errors import UserInputError

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



def wall_clock_verdict(ctx: RunContext) -> Verdict:
    """Whatever a killed run left behind is not graded."""
    return Verdict(ParsedReport(), infrastructure_reason=(
        f"the test run exceeded its wall-clock limit of {ctx.limits.wall_timeout:g} s; every process "
        "it started was killed"))


def entry_file_name(entry_file: str, extension: str) -> str:
    return entry_file if Path(entry_file).suffix else f"{entry_file}{extension}"


def shell_command(argv: list[str]) -> str:
    return shlex.join(argv)


def _env_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name).upper()
