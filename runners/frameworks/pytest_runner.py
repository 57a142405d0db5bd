"""pytest, run the way a grader must run it.

- The tests live outside the submission; pytest gets `-c <generated ini>`, `--rootdir` and
  `--confcutdir`, plugin autoloading off and the needed plugins named, so nothing the submission
  ships (conftest, ini, pyproject settings, installed plugins) is loaded.
- `python -s -P` keeps the working directory (the submission) and user site-packages off
  `sys.path`, so a submission cannot shadow pytest or its plugins with its own modules.
- pytest-json-report is the primary source, CTRF the cross-check; any disagreement, a missing or
  stale report, exit codes 2-5 or zero collected tests make the run an infrastructure failure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from runners.engine.blame import problem_faults, problem_reason
from runners.frameworks.base import (
    ExitContract,
    Invocation,
    Layout,
    RunContext,
    Runner,
    Verdict,
    entry_file_name,
    shell_command,
)
from runners.frameworks.pytest_count import count_tests
from runners.frameworks.pytest_select import check_pytest_select
from runners.model.config import BUILTIN_MARKERS
from runners.model.errors import UserInputError
from runners.model.records import ParsedReport, RawRecord
from runners.parsers.pytest_json import load_error, load_report_object, parse_pytest_json
from runners.parsers.report_file import ReportError, read_report
from runners.plugins.runners_report_signature import CONFTEST_ERROR_FILE, verify
from runners.plugins.runners_report_signature import __name__ as _signature_module
from runners.sandbox.base import SandboxResult
from runners.scan.core import Protected
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.python import PLUGIN_MODULE, PreparedPython, prepare_python, prepared_python

JSON_REPORT = "pytest-report.json"
CTRF_REPORT = "ctrf-report.json"
PLUGINS = (
    "pytest_jsonreport.plugin",
    "pytest_metadata.plugin",
    "ctrf.main",
    "pytest_timeout",
    PLUGIN_MODULE,
)
SIGNATURE_MODULE = _signature_module.rsplit(".", 1)[-1]  # runners_report_signature
EXIT_MEANINGS = {2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests collected"}
_TEST_FILE = re.compile(r"^(test_.+|.+_test)\.py$")


class PytestRunner(Runner):
    selects = True
    name = "pytest"
    report_files = (JSON_REPORT, CTRF_REPORT, CONFTEST_ERROR_FILE)
    collect_modules = ("runners.parsers.ctrf",)
    exit_contract = ExitContract("pytest", meanings=EXIT_MEANINGS)
    signs_reports = True

    def test_files(self, checkpoint: str) -> list[str]:
        return [f"test_{checkpoint}.py"]

    def is_test_file(self, name: str) -> bool:
        return bool(_TEST_FILE.match(name))

    @classmethod
    def protected(cls) -> Protected:
        """Also the modules of the test process: pytest's own, its plugins, ours."""
        plugins = {plugin.split(".")[0] for plugin in PLUGINS}
        ours = {PLUGIN_MODULE, SIGNATURE_MODULE}
        return super().protected() | Protected(
            modules=frozenset(ours),
            grader_modules=frozenset({"_pytest", "pluggy", "xdist"} | plugins - ours),
        )

    def check_select(self, ctx: RunContext) -> None:
        check_pytest_select(ctx.workspace.root, ctx.select)

    def estimated_tests(self) -> int | None:
        if self.problem.kind != "suite":
            return None
        files = [
            self.problem.tests_dir / name
            for cp in self.problem.checkpoints_up_to(self.checkpoint)
            for name in self.test_files(cp.name)
        ]
        return count_tests(path for path in files if path.is_file())

    def prepare(self, ctx: RunContext) -> None:
        ctx.prepared = prepare_python(ctx)

    def entrypoint(self, ctx: RunContext) -> str:
        entry = entry_file_name(ctx.problem.entry_file, ".py")
        return shell_command(
            [prepared_python(ctx).submission_env.python, f"{ctx.layout.submission}/{entry}"]
        )

    def write_config(self, ctx: RunContext) -> None:
        lines = ["[pytest]", "markers ="]
        for name, (description, _) in BUILTIN_MARKERS.items():
            lines.append(f"    {name}: {description}")
        for name, marker in ctx.problem.markers.items():
            lines.append(f"    {name}: {marker.description or marker.group.value}")
        lines.append("")
        (ctx.workspace.config / "pytest.ini").write_text("\n".join(lines), encoding="utf-8")

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared: PreparedPython = prepared_python(ctx)
        layout = ctx.layout
        # -s -P: no user site-packages and the working directory (the submission) not on
        # sys.path, so nothing there can shadow pytest or its plugins. Not -I: it would also
        # ignore PYTHONHASHSEED, which keeps set orderings (and so messages) the same every run.
        argv = [
            prepared.toolchain.python,
            "-s",
            "-P",
            "-m",
            "pytest",
            "-c",
            f"{layout.config}/pytest.ini",
            f"--rootdir={layout.root}",
            f"--confcutdir={layout.tests}",
            "-p",
            "no:cacheprovider",
        ]
        for plugin in PLUGINS:
            argv += ["-p", plugin]
        workers = ctx.environment.workers
        if workers > 1:
            argv += ["-p", "xdist.plugin", "-n", str(workers)]
        argv += [
            "--json-report",
            f"--json-report-file={layout.reports}/{JSON_REPORT}",
            "--json-report-omit",
            "keywords",
            "warnings",
            f"--ctrf={layout.reports}/{CTRF_REPORT}",
            "--continue-on-collection-errors",
            "--color=no",
            "-rA",
            "-v",
            f"--entrypoint={self.entrypoint(ctx)}",
            f"--checkpoint={ctx.checkpoint.name}",
        ]
        if ctx.checkpoint.timeout:
            argv.append(f"--timeout={max(1, int(ctx.checkpoint.timeout))}")
        argv += ctx.extra_args
        if ctx.select:
            argv += [f"{layout.root}/{test_id}" for test_id in ctx.select]
        else:
            argv.append(layout.tests)
        env = test_env(layout, prepared.toolchains.tools.path(prepared.submission_env.bin_dir))
        return Invocation(
            argv=argv,
            env=env,
            mounts=prepared.toolchains.mounts(),
            image=toolchain_host(ctx.sandbox).image_for("python"),
            entrypoint=self.entrypoint(ctx),
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        reports = ctx.workspace.reports
        try:
            report = load_report_object(
                read_report(reports / JSON_REPORT, not_before=ctx.started_at)
            )
            if not verify(report, ctx.report_key):
                raise ReportError(
                    f"{JSON_REPORT} does not carry the run's signature: it was written or "
                    "rewritten by something other than the test run"
                )
            parsed = parse_pytest_json(report)
        except ReportError as exc:
            return Verdict(
                ParsedReport(),
                infrastructure_reason=_no_report_reason(exc, outcome),
                problem_reason=self._conftest_fault(ctx, outcome),
            )
        if (
            outcome.exit_code == 4
            and ctx.select
            and "not found" in (outcome.stdout + outcome.stderr)
        ):
            raise UserInputError(f"option --select: no such test among {' '.join(ctx.select)}")
        verdict = Verdict(parsed)
        if outcome.exit_code in (0, 1) and parsed.records:  # else the engine's exit check says why
            verdict.infrastructure_reason = self._cross_check(parsed, reports, ctx)
        for record in parsed.records:
            if record.collection_error:
                verdict.errors.append(record.message or f"collection error in {record.id}")
        return verdict

    def report_paths(self, ctx: RunContext) -> list[Path]:
        """The reports; the conftest's facts only where a conftest failed (they are rare)."""
        return [
            path
            for path in super().report_paths(ctx)
            if path.name != CONFTEST_ERROR_FILE or path.exists() or path.is_symlink()
        ]

    def _conftest_fault(self, ctx: RunContext, outcome: SandboxResult) -> str | None:
        """A conftest of the problem's that failed as pytest started (exit 4, no report): its
        facts, which our plugin left beside the report (else pytest's own words on stderr)."""
        if outcome.exit_code != 4 or outcome.timed_out:
            return None
        try:
            facts = load_error(
                json.loads(
                    read_report(
                        ctx.workspace.reports / CONFTEST_ERROR_FILE,
                        max_bytes=1 << 20,
                        not_before=ctx.started_at,
                    )
                )
            )
        except (ReportError, ValueError):
            facts = None
        if facts is None and "ImportError while loading conftest" not in outcome.stderr:
            return None
        record = RawRecord(
            id="conftest",
            name="conftest",
            status="error",
            raw_status="collection_error",
            collection_error=True,
            message=outcome.stderr[-8000:],
            load_error=facts,
        )
        return problem_reason(
            problem_faults([record], ctx.places(self.problem_files(ctx), self.parse_root(ctx)))
        )

    def _cross_check(self, parsed: ParsedReport, reports: Path, ctx: RunContext) -> str | None:
        from runners.parsers.ctrf import ctrf_outcomes  # here: it imports the JS parsers' models

        try:
            ctrf = ctrf_outcomes(read_report(reports / CTRF_REPORT, not_before=ctx.started_at))
        except ReportError as exc:
            return f"CTRF cross-check failed: {exc}"
        primary = {r.id: r.status == "passed" for r in parsed.records if not r.collection_error}
        if primary.keys() != ctrf.keys():
            only = sorted(primary.keys() ^ ctrf.keys())[:3]
            return (
                f"CTRF and pytest-json-report list different tests (e.g. {only}): report not "
                "trusted"
            )
        differing = sorted(k for k, passed in primary.items() if passed != ctrf[k].passed)
        if differing:
            return f"CTRF and pytest-json-report disagree on {differing[:3]}: report not trusted"
        # CTRF knows about retries; json-report does not.
        for record in parsed.records:
            other = ctrf.get(record.id)
            if other and other.attempts > 1:
                record.attempts, record.flaky = other.attempts, other.flaky
        return None


def test_env(layout: Layout, path: str) -> dict[str, str]:
    """The test step's environment: `path` as PATH, plugins only by name, offline."""
    return {
        "PATH": path,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "UV_OFFLINE": "1",
        "PIP_NO_INDEX": "1",
        "SUBMISSION_PATH": layout.submission,
        # No variable names the report key: our plugin finds it beside `--json-report-file`.
    }


def _no_report_reason(exc: ReportError, outcome: SandboxResult) -> str:
    if outcome.oom_killed:
        return "the test run was killed for exceeding its memory limit"
    code = outcome.exit_code
    if code in EXIT_MEANINGS:
        return f"pytest exited {code} ({EXIT_MEANINGS[code]}) and {exc}"
    return f"{exc} (pytest exit code {code})"
