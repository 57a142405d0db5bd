"""Write normalized results as JUnit XML or CTRF JSON, for CI dashboards and report viewers.

One checkpoint run is one JUnit `<testsuite>` named `problem/checkpoint` (one CTRF `suite`
root); a test's group is its JUnit classname (CTRF: the second suite level). An infrastructure
failure becomes a synthetic erroring testcase, so CI shows a red run instead of an empty one.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from junitparser import Attr, Error, Failure, Skipped, TestCase, xunit2

from runners.model.results import ExecutionResult, TestResult

Results = ExecutionResult | Iterable[ExecutionResult]

INFRA_GROUP = "infrastructure"
_CTRF_STATUS = {"passed": "passed", "failed": "failed", "error": "failed", "skipped": "skipped"}
# Characters XML 1.0 cannot carry (test output often has ANSI colour codes and NULs).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _Case(xunit2.TestCase):
    file = Attr()
    line = Attr()


def _runs(results: Results) -> list[ExecutionResult]:
    return [results] if isinstance(results, ExecutionResult) else list(results)


def _prepare(path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# ---- JUnit XML ---------------------------------------------------------------------------------


def write_junit(results: Results, path: str | Path) -> Path:
    runs = _runs(results)
    xml = xunit2.JUnitXml(name="runners")
    suites = [_junit_suite(run) for run in runs]
    for suite in suites:
        xml.append(suite)  # not add_testsuite: it merges suites that compare equal
    xml.update_statistics()
    for suite, run in zip(suites, runs):
        if run.duration > 0:  # the run's wall time, setup and collection included
            suite.time = round(run.duration, 3)
    xml.time = round(sum(s.time or 0.0 for s in suites), 3)
    path = _prepare(path)
    xml.write(str(path), pretty=True)
    return path


def _junit_suite(run: ExecutionResult) -> xunit2.TestSuite:
    suite = xunit2.TestSuite(_xml_text(f"{run.problem_name}/{run.checkpoint_name}"))
    suite.timestamp = run.started_at.isoformat()
    for name, value in (
        ("problem", run.problem_name),
        ("checkpoint", run.checkpoint_name),
        ("framework", run.framework),
        ("sandbox", run.sandbox),
        ("schema_version", run.schema_version),
        ("summary", run.summary),
    ):
        suite.add_property(name, _xml_text(str(value)))
    cases: list[TestCase] = [_junit_case(test) for test in run.tests]
    if not run.graded:
        cases.append(_junit_infra_case(run))
    suite.add_testcases(cases)
    return suite


def _junit_case(test: TestResult) -> _Case:
    case = _Case(
        _xml_text(test.id),
        test.group_type.value,
        test.duration_ms / 1000 if test.duration_ms is not None else None,
    )
    if test.file_path:
        case.file = _xml_text(test.file_path)
    if test.line is not None:
        case.line = str(test.line)
    case.add_property("group", test.group_type.value)
    if test.markers:
        case.add_property("markers", _xml_text(",".join(test.markers)))
    if test.attempts > 1:
        case.add_property("attempts", str(test.attempts))
    if test.flaky:
        case.add_property("flaky", "true")
    result = _junit_result(test)
    if result is not None:
        case.result = [result]
    if test.stdout:
        case.system_out = _xml_text(test.stdout)
    if test.stderr:
        case.system_err = _xml_text(test.stderr)
    return case


def _junit_result(test: TestResult) -> Failure | Error | Skipped | None:
    kinds: dict[str, type[Failure | Error | Skipped]] = {
        "failed": Failure,
        "error": Error,
        "skipped": Skipped,
    }
    kind = kinds.get(test.status)
    if kind is None:
        return None
    message = test.first_message_line or test.raw_status or test.status
    result = kind(_xml_text(message), _xml_text(test.raw_status) if test.raw_status else None)
    text = "\n\n".join(t for t in (test.failure_message, test.traceback) if t)
    if text:
        result.text = _xml_text(text)
    return result


def _no_grade(run: ExecutionResult) -> tuple[str, str]:
    """Why a result that is no grade is none: (its status, its reason)."""
    if run.infrastructure_failure:
        return "infrastructure_failure", run.infrastructure_reason or "unknown"
    return "problem_error", run.problem_error_reason or "unknown"


def _junit_infra_case(run: ExecutionResult) -> _Case:
    """An infrastructure failure or a problem error: one errored case that says why."""
    status, reason = _no_grade(run)
    what = status.replace("_", " ")
    case = _Case(what, INFRA_GROUP, 0.0)
    case.add_property("group", INFRA_GROUP)
    error = Error(_xml_text(f"{what}: {reason}"), status)
    error.text = _xml_text("\n".join([reason, *run.errors]))
    case.result = [error]
    if run.stderr:
        case.system_err = _xml_text(run.stderr)
    return case


def _xml_text(text: str) -> str:
    return _XML_ILLEGAL.sub("\ufffd", _ANSI.sub("", text))


# ---- CTRF JSON ---------------------------------------------------------------------------------


def write_ctrf(results: Results, path: str | Path) -> Path:
    runs = _runs(results)
    tests = [entry for run in runs for entry in _ctrf_tests(run)]
    frameworks = sorted({run.framework for run in runs})
    start, stop = _span(runs)
    summary: dict[str, Any] = {
        "tests": len(tests),
        **{
            s: sum(t["status"] == s for t in tests)
            for s in ("passed", "failed", "skipped", "pending", "other")
        },
        "flaky": sum(bool(t.get("flaky")) for t in tests),
        "suites": len(runs),
        "start": start,
        "stop": stop,
        "duration": stop - start,
    }
    report = {
        "reportFormat": "CTRF",
        "specVersion": "1.0.0",
        "reportId": str(uuid.uuid4()),
        "timestamp": _iso(datetime.now(UTC)),
        "generatedBy": "runners",
        "results": {
            "tool": {"name": "+".join(frameworks) or "runners"},
            "summary": summary,
            "tests": tests,
            "extra": {"runs": [_ctrf_run(run) for run in runs]},
        },
    }
    path = _prepare(path)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return path


def _ctrf_tests(run: ExecutionResult) -> list[dict[str, Any]]:
    tests = [_ctrf_test(run, test) for test in run.tests]
    if not run.graded:
        status, reason = _no_grade(run)
        tests.append(
            {
                "name": f"{run.problem_name}/{run.checkpoint_name}: {status.replace('_', ' ')}",
                "status": "failed",
                "duration": 0,
                "rawStatus": status,
                "message": reason,
                "suite": [run.checkpoint_name, INFRA_GROUP],
                "extra": {
                    "group": INFRA_GROUP,
                    "checkpoint": run.checkpoint_name,
                    "problem": run.problem_name,
                    status: True,
                },
            }
        )
    return tests


def _ctrf_test(run: ExecutionResult, test: TestResult) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": test.id or test.name or "(unnamed test)",
        "status": _CTRF_STATUS[test.status],
        # CTRF durations are integer milliseconds.
        "duration": round(test.duration_ms) if test.duration_ms is not None else 0,
        "rawStatus": "error" if test.status == "error" else (test.raw_status or test.status),
        "suite": [run.checkpoint_name, test.group_type.value],
    }
    optional: dict[str, Any] = {
        "filePath": test.file_path,
        "line": test.line,
        "tags": list(test.markers) or None,
        "message": test.failure_message,
        "trace": test.traceback,
        "stdout": test.stdout.splitlines() if test.stdout else None,
        "stderr": test.stderr.splitlines() if test.stderr else None,
        "retries": test.attempts - 1 if test.attempts > 1 else None,
        "flaky": True if test.flaky else None,
    }
    entry.update({k: v for k, v in optional.items() if v is not None})
    extra: dict[str, Any] = {
        "group": test.group_type.value,
        "checkpoint": run.checkpoint_name,
        "problem": run.problem_name,
        "test_checkpoint": test.checkpoint,
    }
    if test.status == "error" and test.raw_status and test.raw_status != "error":
        extra["raw_status"] = test.raw_status  # rawStatus says "error"; keep the source's word
    if test.collection_error:
        extra["collection_error"] = True
    entry["extra"] = extra
    return entry


def _ctrf_run(run: ExecutionResult) -> dict[str, Any]:
    return {
        "problem": run.problem_name,
        "checkpoint": run.checkpoint_name,
        "framework": run.framework,
        "sandbox": run.sandbox,
        "summary": run.summary,
        "pass_rate": run.pass_rate,
        "exit_code": run.exit_code,
        "status": run.status,
        "infrastructure_failure": run.infrastructure_failure,
        "infrastructure_reason": run.infrastructure_reason,
        "problem_error": run.problem_error,
        "problem_error_reason": run.problem_error_reason,
        "errors": list(run.errors),
    }


def _span(runs: list[ExecutionResult]) -> tuple[int, int]:
    """(start, stop) of all runs in epoch milliseconds."""
    if not runs:
        now = _epoch_ms(datetime.now(UTC))
        return now, now
    start = min(_epoch_ms(run.started_at) for run in runs)
    stop = max(_epoch_ms(run.started_at + timedelta(seconds=run.duration)) for run in runs)
    return start, max(stop, start)


def _epoch_ms(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
