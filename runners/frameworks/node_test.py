"""`node --test`: Node's own test runner, no npm package at all.

Tests are `tests/<checkpoint>.test.mjs` (or `.js`, `.cjs`) using `node:test` and `node:assert`;
they reach the submission through `RUNNERS_ENTRYPOINT` (`node <submission>/<entry_file>.js`) and
`SUBMISSION_PATH`. Our reporter (`js/runners-node-test-reporter.mjs`) writes JUnit XML signed with
the run's one-time key, which the JUnit parser reads. Groups come from the test names (`@error`,
`@functionality`, as for jest); an earlier checkpoint's file is Regression. `--select` is not
offered (`selects` stays False: an id is refused, not ignored).
"""

from __future__ import annotations

import re
from pathlib import Path

from runners.engine.trust import check_signature_file
from runners.frameworks.base import (
    ExitContract,
    Invocation,
    RunContext,
    Runner,
    Verdict,
    entry_file_name,
    shell_command,
)
from runners.frameworks.js_report import SIGNING_MODULE, install
from runners.model.records import ParsedReport
from runners.parsers.junit import parse_junit
from runners.parsers.report_file import ReportError, read_report
from runners.plugins.runners_report_signature import KEY_FILE_ENV, KEY_FILE_NAME
from runners.sandbox.base import SandboxResult
from runners.toolchains.hosts import toolchain_host

REPORT = "node-test.xml"
SIGNATURE = f"{REPORT}.sig"
REPORTER = "runners-node-test-reporter.mjs"
EXTENSIONS = ("mjs", "js", "cjs")
_TEST = re.compile(r"^.+\.test\.(mjs|js|cjs)$")


class NodeTestRunner(Runner):
    name = "node-test"
    report_files = (REPORT, SIGNATURE)
    exit_contract = ExitContract("node --test", no_tests="node --test ran no tests")
    signs_reports = True

    def test_files(self, checkpoint: str) -> list[str]:
        return [f"{checkpoint}.test.{ext}" for ext in EXTENSIONS]

    def is_test_file(self, name: str) -> bool:
        return bool(_TEST.match(name))

    def write_config(self, ctx: RunContext) -> None:
        install(ctx, SIGNING_MODULE)
        install(ctx, REPORTER)

    def prepare(self, ctx: RunContext) -> None:
        ctx.prepared = toolchain_host(ctx.sandbox).node_for_toolchains(ctx.environment.node)

    def invocation(self, ctx: RunContext) -> Invocation:
        node, layout = ctx.prepared, ctx.layout
        host = toolchain_host(ctx.sandbox)
        files = sorted(
            f"{layout.tests}/{p.name}"
            for p in ctx.workspace.tests.iterdir()
            if p.name in self.test_files_up_to(ctx.checkpoint)
        )
        entrypoint = shell_command(
            [node, f"{layout.submission}/{entry_file_name(ctx.problem.entry_file, '.js')}"]
        )
        argv = [
            node,
            "--test",
            f"--test-reporter={layout.config}/{REPORTER}",
            "--test-reporter-destination=stdout",
            *files,
            *ctx.extra_args,
        ]
        env = {
            "RUNNERS_ENTRYPOINT": entrypoint,
            "SUBMISSION_PATH": layout.submission,
            "RUNNERS_NODE_TEST_REPORT": f"{layout.reports}/{REPORT}",
            KEY_FILE_ENV: f"{layout.reports}/{KEY_FILE_NAME}",
            "NO_COLOR": "1",
        }
        return Invocation(
            argv=argv,
            env=env,
            mounts=host.program_mounts(node),
            image=host.image_for("node"),
            entrypoint=entrypoint,
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        report = ctx.workspace.reports / REPORT
        try:
            data = read_report(report, not_before=ctx.started_at)
            check_signature_file(
                ctx.workspace.reports / SIGNATURE, ctx.report_key, data, ctx.started_at
            )
        except ReportError as exc:
            return Verdict(
                ParsedReport(), infrastructure_reason=f"{exc} (node exit code {outcome.exit_code})"
            )
        parsed = parse_junit(data, root=ctx.layout.root)
        return Verdict(parsed, errors=list(parsed.errors))

    def report_paths(self, ctx: RunContext) -> list[Path]:
        return [ctx.workspace.reports / name for name in self.report_files]
