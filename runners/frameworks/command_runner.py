"""Generic runners: any command that writes JUnit XML (`junit`) or CTRF (`ctrf`).

This covers go test (gotestsum), cargo nextest, Maven Surefire, mocha and the rest. The problem
config names the command and, optionally, where it writes its report:

```yaml
framework: junit
test_command: ["{python}", "-m", "pytest", "{tests}", "--junitxml={report}"]
report_path: null        # default: a harness-owned path, passed as {report}
```

Placeholders: `{python}` (the test toolchain's Python, with pytest), `{tests}`, `{submission}`,
`{report}`, `{entrypoint}`, `{checkpoint}`; the same values are in the environment as
`RUNNERS_TESTS`, `RUNNERS_REPORT`, ... A `report_path` relative to the submission is deleted
before the run (so a file shipped with the submission is never graded), and a report that is
missing or older than the run is an infrastructure failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from runners.frameworks.base import (
    ExitContract,
    Invocation,
    RunContext,
    Runner,
    Verdict,
    entry_file_name,
    shell_command,
)
from runners.model.errors import ConfigError
from runners.model.records import ParsedReport
from runners.parsers.ctrf import parse_ctrf
from runners.parsers.junit import parse_junit
from runners.parsers.report_file import ReportError, check_no_links, read_report
from runners.sandbox.base import SandboxResult
from runners.scan.core import Protected
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.python import prepare_python, prepared_python

_PLACEHOLDER = re.compile(r"\{(python|tests|submission|report|entrypoint|checkpoint)\}")


class CommandRunner(Runner):
    """Runs `test_command` and parses the report it writes with `parse`."""

    default_report: str
    parse: Callable[..., ParsedReport]
    exit_contract = ExitContract(
        "the command", normal=None, no_tests="the report lists no tests", zero_means_passed=False
    )

    @classmethod
    def protected(cls) -> Protected:
        return super().protected() | Protected(files=(cls.default_report,))

    def test_files(self, checkpoint: str) -> list[str]:
        tests_dir = self.problem.tests_dir
        pattern = _token(checkpoint)
        return sorted(p.name for p in tests_dir.iterdir() if p.is_file() and pattern.search(p.name))

    def is_test_file(self, name: str) -> bool:
        return any(_token(cp).search(name) for cp in self.problem.checkpoints)

    def _command(self) -> list[str]:
        if not self.problem.test_command:
            raise ConfigError(
                self.problem.path / "config.yaml",
                f"field `test_command`: required for framework {self.name!r} "
                "(a list: the command that runs the tests and writes the report)",
            )
        return self.problem.test_command

    def prepare(self, ctx: RunContext) -> None:
        self._command()
        ctx.prepared = prepare_python(ctx)
        if ctx.problem.report_path:
            try:
                shipped = check_no_links(ctx.workspace.submission, self._relative_report(ctx))
            except ReportError:
                return  # no such directory yet, or a symlink: never touched; refused at collect
            if shipped.is_file() or shipped.is_symlink():
                shipped.unlink()  # a report shipped with the submission is never graded
                ctx.errors.append(f"removed {ctx.problem.report_path} shipped with the submission")

    def write_config(self, ctx: RunContext) -> None:
        """Nothing to generate: the command is the problem's."""

    def _report_sandbox_path(self, ctx: RunContext) -> str:
        if ctx.problem.report_path:
            return f"{ctx.layout.submission}/{self._relative_report(ctx)}"
        return f"{ctx.layout.reports}/{self.default_report}"

    def _report_host_path(self, ctx: RunContext) -> Path:
        if ctx.problem.report_path:
            return check_no_links(ctx.workspace.submission, self._relative_report(ctx))
        return ctx.workspace.reports / self.default_report

    def _relative_report(self, ctx: RunContext) -> str:
        rel = PurePosixPath(ctx.problem.report_path or "")
        if rel.is_absolute() or ".." in rel.parts:
            raise ConfigError(
                ctx.problem.path / "config.yaml",
                "field `report_path`: must be relative to the submission, without '..'",
            )
        return str(rel)

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_python(ctx)
        entry = entry_file_name(ctx.problem.entry_file, ".py")
        entrypoint = shell_command(
            [prepared.submission_env.python, f"{ctx.layout.submission}/{entry}"]
        )
        values = {
            "python": prepared.toolchain.python,
            "tests": ctx.layout.tests,
            "submission": ctx.layout.submission,
            "report": self._report_sandbox_path(ctx),
            "entrypoint": entrypoint,
            "checkpoint": ctx.checkpoint.name,
        }
        argv = [_PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in self._command()]
        env = {f"RUNNERS_{key.upper()}": value for key, value in values.items()}
        env.update(
            {
                "PATH": prepared.toolchains.tools.path(prepared.submission_env.bin_dir),
                "PYTHONDONTWRITEBYTECODE": "1",
                "SUBMISSION_PATH": ctx.layout.submission,
            }
        )
        return Invocation(
            argv=argv + ctx.extra_args,
            env=env,
            mounts=prepared.toolchains.mounts(),
            image=toolchain_host(ctx.sandbox).image_for("python"),
            entrypoint=entrypoint,
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        try:
            path = self._report_host_path(ctx)
            parsed = type(self).parse(
                read_report(path, not_before=ctx.started_at), root=ctx.layout.root
            )
        except ReportError as exc:
            return Verdict(
                ParsedReport(),
                infrastructure_reason=f"{exc} (command exit code {outcome.exit_code})",
            )
        verdict = Verdict(parsed)
        verdict.errors += parsed.errors
        verdict.errors += [
            r.message or f"could not load {r.id}" for r in parsed.records if r.collection_error
        ]
        return verdict

    def report_paths(self, ctx: RunContext) -> list[Path]:
        try:
            return [self._report_host_path(ctx)]
        except ReportError:
            return []


class JUnitRunner(CommandRunner):
    name = "junit"
    default_report = "junit.xml"
    parse = staticmethod(parse_junit)


class CtrfRunner(CommandRunner):
    name = "ctrf"
    default_report = "ctrf.json"
    parse = staticmethod(parse_ctrf)


def _token(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])")
