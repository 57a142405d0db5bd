"""What the engine hands a framework runner for one run, and what the runner hands back.

Shared by `runners.engine.protocol` and `runners.frameworks.base` (which re-exports them), so
neither has to import the other to build or read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from runners.engine.blame import Places
from runners.engine.workspace import Workspace
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.limits import ResourceLimits
from runners.model.records import ParsedReport
from runners.sandbox.base import Mount, Sandbox, SandboxResult
from runners.scan.core import Protected


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
    def for_workspace(cls, workspace: Workspace, remap: bool) -> Layout:
        if not remap:
            return cls(
                root=str(workspace.root),
                submission=str(workspace.submission),
                tests=str(workspace.tests),
                config=str(workspace.config),
                reports=str(workspace.reports),
                home=str(workspace.home),
                tmp=str(workspace.tmp),
            )
        return cls(
            root="/harness",
            submission="/workspace",
            tests="/harness/tests",
            config="/harness/config",
            reports="/harness/reports",
            home="/tmp/home",
            tmp="/tmp",
        )

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
    node: str | None = (
        None  # the version of the Node the tests (or the submission) run on, once prepared
    )
    # The one-time key the run's reporter signs with (from the engine, when the runner signs).
    report_key: bytes = b""
    # What the runner's `prepare` made for this run (toolchains, environments): per run, never
    # on the runner, so one runner object can serve runs in several threads at once.
    prepared: Any = None

    def places(self, problem_files: set[str], relative_to: str) -> Places:
        """Where the problem's files and the submission are as the sandbox saw them (to tell who
        broke a test file that failed to load); `problem_files`: the problem's files laid into
        the copy (a repository's overlay), relative to it; `relative_to`: the directory the
        tool names files relative to."""
        problem = self.problem
        shown = {
            self.layout.tests: _relative(problem.tests_dir, problem.path),
            self.layout.config: "(the harness's generated configuration)",
        }
        for rel in problem_files:
            shown[f"{self.layout.submission}/{rel}"] = (
                f"{_relative(problem.overlay_dir, problem.path)}/{rel}"
            )
        return Places(
            submission=self.layout.submission,
            problem=shown,
            bases=(relative_to, self.layout.submission),
            repository=problem.kind == "repository",
        )

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
    # The harness's defaults that the problem's `env` may change (colours, NODE_ENV); `env` is
    # the harness's own and wins over everything.
    env_defaults: dict[str, str] = field(default_factory=dict)


@dataclass
class Verdict:
    """What the reports say, and whether they can be trusted."""

    report: ParsedReport
    infrastructure_reason: str | None = None
    errors: list[str] = field(default_factory=list)
    # Why the tool failed a run whose report lists no failing test, when the report says so
    # (jest's obsolete snapshots): a note instead of "report not trusted".
    exit_explained: str | None = None
    # The problem's own files failed to load (runners.engine.blame), naming file and line: no grade.
    problem_reason: str | None = None


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _env_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name).upper()


@dataclass(frozen=True)
class ExitContract:
    """How a test tool's exit code relates to its report."""

    tool: str  # as messages name it: "pytest", "vitest", "the command"
    # Exit codes of a run that ended normally (0: all passed, 1: some failed); None: any code.
    normal: tuple[int, ...] | None = (0, 1)
    # Exit codes that mean the tool itself failed, and what they mean ("usage error").
    meanings: Mapping[int, str] = field(default_factory=dict)
    no_tests: str = "no tests were collected"
    # Whether exit 0 promises that no test failed (a JUnit-writing command may exit 0 anyway).
    zero_means_passed: bool = True


class RunnerContract(Protocol):
    """What the engine asks of a framework runner (`runners.frameworks.base.Runner` implements
    it): typed here so that the engine never imports the runners it drives."""

    name: ClassVar[str]
    kind: ClassVar[str]
    report_files: ClassVar[tuple[str, ...]]
    collect_modules: ClassVar[tuple[str, ...]]
    exit_contract: ClassVar[ExitContract]
    signs_reports: ClassVar[bool]
    problem: ProblemConfig
    checkpoint: CheckpointConfig
    environment: EnvironmentSpec

    def copy_tests(self, ctx: RunContext) -> None: ...
    def problem_files(self, ctx: RunContext) -> set[str]: ...
    def estimated_tests(self) -> int | None: ...
    def checkpoint_of_file(self, file: str | None, current: str) -> str: ...
    def check_select(self, ctx: RunContext) -> None: ...
    def prepare(self, ctx: RunContext) -> None: ...
    def write_config(self, ctx: RunContext) -> None: ...
    def invocation(self, ctx: RunContext) -> Invocation: ...
    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict: ...
    @classmethod
    def protected(cls) -> Protected: ...
    def parse_root(self, ctx: RunContext) -> str: ...
    def report_paths(self, ctx: RunContext) -> list[Path]: ...
