"""The baseline: the same pytest command the harness builds, run bare.

No harness process, no sandbox: the prepared toolchain's python runs pytest on a prepared copy of
the tests and the submission (laid out exactly as the harness lays out its workspace), with the
same arguments and the same environment. Preparing the copy is not timed; only the command is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from bench.common import Proc, Settings, run_timed, unique
from bench.world import Cell
from runners.batch.store import rmtree_forcibly


@dataclass
class Prepared:
    argv: list[str]
    env: dict[str, str]
    cwd: str
    workspace: Path
    toolchain_python: str
    entrypoint: str
    layout: object  # runners.frameworks.base.Layout

    def cleanup(self) -> None:
        rmtree_forcibly(self.workspace)


class BareSuite:
    """Prepared copies of one cell's suite for the `none` (host) toolchain."""

    def __init__(self, settings: Settings, cell: Cell) -> None:
        from runners.frameworks.registry import runner_class
        from runners.model.problem_loader import load_problem
        from runners.sandbox.registry import resolve_sandbox

        self.settings = settings
        self.cell = cell
        self.problem = load_problem(cell.problem)
        self.checkpoint = self.problem.checkpoint(cell.checkpoint)
        self.environment = settings.environment("none")
        self.runner_cls = runner_class(self.problem.framework)
        self.sandbox = resolve_sandbox("none")
        self.collected: int | None = None  # tests in the last bare run's report

    def prepare(self) -> Prepared:
        """A fresh workspace, built by the harness's own steps (copy, config, toolchain)."""
        from runners.engine.workspace import Workspace
        from runners.frameworks.base import Layout, RunContext
        from runners.sandbox.base import base_env

        runner = self.runner_cls(
            problem=self.problem,
            checkpoint=self.checkpoint,
            environment=self.environment,
            submission_path=self.cell.submission,
        )
        workspace = Workspace.create()  # where the harness puts its own
        ctx = RunContext(
            problem=self.problem,
            checkpoint=self.checkpoint,
            environment=self.environment,
            sandbox=self.sandbox,
            workspace=workspace,
            layout=Layout.for_workspace(workspace, self.sandbox.remaps_paths),
            limits=self.environment.limits_for(self.problem.limits),
            run_id=f"bench-bare-{unique()}",
            started_at=time.time(),
        )
        workspace.copy_submission(self.cell.submission)
        runner.copy_tests(ctx)  # as the engine does
        workspace.copy_assets(self.problem)
        if runner.signs_reports:  # as the engine does: the same plugin work as a harness run
            from runners.engine.trust import issue_report_key

            ctx.report_key = issue_report_key(workspace.reports)
        runner.write_config(ctx)
        runner.prepare(ctx)
        workspace.seal(workspace.tests, workspace.config)  # as the engine does
        invocation = runner.invocation(ctx)
        env = {
            **base_env(),
            "HOME": ctx.layout.home,
            "TMPDIR": ctx.layout.tmp,
            **self.problem.env,
            **self.checkpoint.env,
            **ctx.asset_env(),
            **invocation.env,
        }
        return Prepared(
            argv=invocation.argv,
            env=env,
            cwd=ctx.layout.submission,
            workspace=workspace.root,
            toolchain_python=ctx.prepared.toolchain.python,
            entrypoint=invocation.entrypoint or "",
            layout=ctx.layout,
        )

    def run(self) -> Proc:
        prepared = self.prepare()
        try:
            proc = run_timed(prepared.argv, env=prepared.env, cwd=prepared.cwd)
            proc.check((0, 1), "bare pytest")
            report = prepared.workspace / "reports" / "pytest-report.json"
            if not report.is_file():
                raise RuntimeError("bare pytest wrote no report")
            self.collected = json.loads(report.read_bytes()).get("summary", {}).get("collected")
            return proc
        finally:
            prepared.cleanup()
