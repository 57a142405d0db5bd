"""Case-based problems (`framework: cases`): groups of cases run through a CLI, HTTP API or
browser adapter and checked attribute by attribute (see runners/cases/).

The test step runs the case program (`runners/cases/program.py`) in the sandbox, on the case
toolchain (pydantic, PyYAML, jsonschema, deepdiff, and what SCBench's loaders import; pinned
in toolchains/case-tools.txt). The program starts the submission as its own processes, one per
CLI case or one server per group, and writes a report signed with the run's one-time key; every
case becomes one test (`group/case`) of the result, with its score, attributes and diff.

The problem's files (case files, loader.py, verifier.py, data) are copied into a directory of
the tests mount that only the case program can name (`runners/cases/vault.py`): the submission,
which runs in the same sandbox, cannot read the expected outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runners.cases.vault import REPORT, SIGNATURE
from runners.engine.trust import check_signature_file
from runners.frameworks.base import (
    ExitContract,
    Invocation,
    RunContext,
    Runner,
    Verdict,
    shell_command,
)
from runners.frameworks.cases_command import submission_command
from runners.frameworks.cases_files import (
    check_case_files,
    checkpoint_dir,
    close_vault,
    copy_into_vault,
    copy_library,
    scratch,
    uses_builtin_loader,
    write_settings,
)
from runners.model.case_config import CaseCheckpointConfig, CaseProblemConfig
from runners.model.errors import ConfigError, UserInputError
from runners.model.records import ParsedReport, RawRecord
from runners.parsers.report_file import ReportError, load_json_object, read_report
from runners.plugins.runners_report_signature import KEY_FILE_NAME
from runners.sandbox.base import SandboxResult
from runners.toolchains.hosts import toolchain_host
from runners.toolchains.python import TOOLS_FILE, prepare_python, prepared_python
from runners.toolchains.which_python import python_request

CASE_TOOLS = TOOLS_FILE.with_name("case-tools.txt")
LIB_DIR = "lib"
MARKERS = {
    "Error": ["error"],
    "Functionality": ["functionality"],
    "Regression": ["regression"],
    "Core": [],
}
STATUSES = ("passed", "failed", "error")
MAX_SCREENSHOTS = 100


class CasesRunner(Runner):
    selects = True
    name = "cases"
    report_files = (REPORT, SIGNATURE)
    exit_contract = ExitContract(
        "the case program",
        meanings={2: "the problem's cases or scripts are wrong", 3: "it could not start"},
        no_tests="no case was run (are the checkpoint's groups empty?)",
    )
    signs_reports = True

    @property
    def case_problem(self) -> CaseProblemConfig:
        if not isinstance(self.problem, CaseProblemConfig):
            raise ConfigError(
                self.problem.path / "config.yaml",
                "framework `cases` needs an `adapter` section (type: cli, api or browser)",
            )
        return self.problem

    def test_files(self, checkpoint: str) -> list[str]:
        return []

    def is_test_file(self, name: str) -> bool:
        return False

    def copy_tests(self, ctx: RunContext) -> None:
        """Only check here (bad input refused before any sandbox): the problem is copied by
        `write_config`, once the run's key names the vault."""
        problem = self.case_problem
        if ctx.extra_args:
            raise UserInputError(
                f"framework `cases` takes no extra test arguments (got {' '.join(ctx.extra_args)})"
            )
        checkpoint = problem.checkpoints[ctx.checkpoint.name]
        if check_case_files(problem, checkpoint) == 0 and uses_builtin_loader(problem):
            raise ConfigError(
                checkpoint_dir(problem, checkpoint.name),
                f"checkpoint {checkpoint.name!r} has no case file in any of its groups "
                f"({', '.join(checkpoint.groups) or 'it has no group'})",
            )
        ctx.workspace.tests.mkdir()

    def write_config(self, ctx: RunContext) -> None:
        problem = self.case_problem
        checkpoint: CaseCheckpointConfig = problem.checkpoints[ctx.checkpoint.name]
        copy_into_vault(problem, checkpoint, ctx.workspace.tests, ctx.report_key)
        close_vault(ctx.workspace.tests)
        copy_library(ctx.workspace.config / LIB_DIR)

    def prepare(self, ctx: RunContext) -> None:
        ctx.prepared = prepare_python(ctx, CASE_TOOLS)

    def invocation(self, ctx: RunContext) -> Invocation:
        prepared = prepared_python(ctx)
        layout = ctx.layout
        command = submission_command(ctx, self.case_problem)
        path = prepared.toolchains.tools.path(prepared.submission_env.bin_dir, *command.path)
        static = {name: f"{layout.tests}/assets/{name}" for name in ctx.problem.static_assets}
        # The program's settings go into the vault, never into the environment: the sandbox's first
        # processes (docker-init, `timeout`, none's supervisor) keep the environment they started
        # with, readable by the submission through /proc. The environment is the submission's own.
        settings = {
            "problem": ctx.problem.path.name,
            "problem_display": str(ctx.problem.path),
            "checkpoint": ctx.checkpoint.name,
            "reports": layout.reports,
            "workspace": layout.submission,
            "entry": command.argv,
            "static": static,
            "select": ctx.select,
            "scratch": scratch(ctx),
        }
        write_settings(ctx.workspace.tests, ctx.report_key, settings)
        env = {
            "PATH": path,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "SUBMISSION_PATH": layout.submission,
        }
        argv = [
            prepared.toolchain.python,
            "-s",
            "-B",
            f"{layout.config}/{LIB_DIR}/runners_cases_main.py",
            f"{layout.reports}/{KEY_FILE_NAME}",
            layout.tests,
        ]
        # docker: browser cases need Chromium (and node, for a JavaScript server); another
        # command than the default Python one may need node, bash, ...: the cases image.
        kind = (
            "browser"
            if self.case_problem.adapter.type == "browser"
            else "python"
            if command.on_python
            else "cases"
        )
        host = toolchain_host(ctx.sandbox)
        image = host.image_for(kind)
        request = python_request(ctx.environment.python, ctx.problem)
        host.check_python_of(image, request.source if request else "the default Python")
        return Invocation(
            argv=argv,
            env=env,
            mounts=[*prepared.toolchains.mounts(), *command.mounts],
            image=image,
            entrypoint=shell_command(command.argv),
        )

    def collect(self, ctx: RunContext, outcome: SandboxResult) -> Verdict:
        reports = ctx.workspace.reports
        try:
            data = read_report(reports / REPORT, not_before=ctx.started_at)
            check_signature_file(reports / SIGNATURE, ctx.report_key, data, ctx.started_at)
            report = load_json_object(data, "case")
            records = [_record(case) for case in report.get("cases", [])]
        except (ReportError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ReportError) and outcome.oom_killed:
                return Verdict(
                    ParsedReport(),
                    infrastructure_reason="the case run was killed for exceeding its memory limit",
                )
            return Verdict(
                ParsedReport(),
                infrastructure_reason=f"{exc} (case program exit code {outcome.exit_code})",
            )
        problems = report.get("errors") or []
        if problems:
            first = problems[0].get("file") or str(ctx.problem.path / "config.yaml")
            raise ConfigError(Path(first), [_problem_line(p) for p in problems])
        if ctx.select:
            chosen = {r.id for r in records}
            missing = [
                s
                for s in ctx.select
                if s not in chosen and not any(i.startswith(s + "/") for i in chosen)
            ]
            if missing:
                raise UserInputError(
                    f"option --select: no case {missing[0]!r} (ids look like group/case)"
                )
        notes = [note for note in report.get("notes") or [] if isinstance(note, str)]
        return Verdict(ParsedReport(records=records, collected=len(records)), errors=notes)

    def report_paths(self, ctx: RunContext) -> list[Path]:
        """The report, its signature and the screenshots of failing browser cases."""
        return [*super().report_paths(ctx), *_screenshots(ctx.workspace.reports)]


def _screenshots(reports: Path) -> list[Path]:
    folder = reports / "screenshots"
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(p for p in folder.glob("*.png") if p.is_file() and not p.is_symlink())[
        :MAX_SCREENSHOTS
    ]


def _record(case: dict[str, Any]) -> RawRecord:
    status = case["status"]
    if status not in STATUSES:
        raise ValueError(f"case report: unknown status {status!r}")
    return RawRecord(
        id=str(case["id"]),
        name=str(case["name"]),
        file=str(case["file"]),
        status=status,
        duration_ms=float(case.get("duration_ms") or 0.0),
        markers=list(MARKERS.get(case["group_type"], [])),
        raw_status=status,
        message=case.get("message"),
        stdout=case.get("stdout"),
        stderr=case.get("stderr"),
        score=case.get("score"),
        attributes=case.get("attributes"),
        diff=case.get("diff"),
    )


def _problem_line(problem: dict[str, Any]) -> str:
    case = problem.get("case")
    return f"case {case!r}: {problem.get('message')}" if case else str(problem.get("message"))
