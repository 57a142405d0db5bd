"""pytest-json-report (1.5) -> records.

The primary pytest source: one entry per test with parametrized cases expanded, phases with
their outcomes, captured output and tracebacks. Markers come from the metadata our plugin adds
(`runners_pytest_plugin`), never from `keywords`, which mix in parametrize ids and path names.
"""

from __future__ import annotations

import ast
from typing import Any

from runners.model.records import LoadError, ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.report_file import ReportError, load_json_object
from runners.plugins.runners_report_signature import LOAD_ERRORS_FIELD
from runners.util.gcpause import gc_paused

PHASES = ("setup", "call", "teardown")
_STATUS: dict[str, TestStatus] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "xfailed": "skipped",
    "xpassed": "passed",
    "error": "error",
}


@gc_paused()
def parse_pytest_json(data: bytes | str | dict[str, Any]) -> ParsedReport:
    report = load_report_object(data)
    tests = report.get("tests")
    if not isinstance(tests, list):
        raise ReportError("pytest-json-report has no `tests` list")
    records = [_test_record(t) for t in tests if isinstance(t, dict) and "nodeid" in t]
    facts = {
        str(f.get("nodeid")): f for f in report.get(LOAD_ERRORS_FIELD) or [] if isinstance(f, dict)
    }
    records += [
        _collector_record(c, facts.get(str(c.get("nodeid") or "")))
        for c in report.get("collectors") or []
        if isinstance(c, dict) and c.get("outcome") == "failed"
    ]
    summary = report.get("summary") or {}
    collected = summary.get("collected")
    exit_code = report.get("exitcode")
    return ParsedReport(
        records=records,
        collected=collected if isinstance(collected, int) else None,
        exit_code=exit_code if isinstance(exit_code, int) else None,
    )


def load_report_object(data: bytes | str | dict[str, Any]) -> dict[str, Any]:
    return load_json_object(data, "pytest-json-report")


def _status(test: dict[str, Any]) -> tuple[TestStatus, str, bool]:
    """(status, raw status, flaky). `rerun` is decided by the final attempt's phases (the
    report's top-level outcome says `rerun` even when that attempt passed)."""
    raw = str(test.get("outcome", ""))
    if raw == "rerun":
        phases = [test.get(p, {}).get("outcome") for p in PHASES if isinstance(test.get(p), dict)]
        if phases and all(o == "passed" for o in phases):
            return "passed", raw, True
        return ("error" if any(o == "failed" for o in phases[:1]) else "failed"), raw, False
    return _STATUS.get(raw, "error"), raw, False


def _test_record(test: dict[str, Any]) -> RawRecord:
    nodeid = str(test["nodeid"])
    status, raw, flaky = _status(test)
    meta = found if isinstance(found := test.get("metadata"), dict) else {}
    file = meta.get("file") or _file_of(nodeid)
    line = meta.get("line")
    if not isinstance(line, int):
        lineno = test.get("lineno")
        line = lineno + 1 if isinstance(lineno, int) else None
    markers = [m for m in meta.get("markers", []) if isinstance(m, str)]
    duration = 0.0
    stdout, stderr = [], []
    for phase in PHASES:
        stage = test.get(phase)
        if isinstance(stage, dict):
            duration += float(stage.get("duration") or 0.0)
            if stage.get("stdout"):
                stdout.append(str(stage["stdout"]))
            if stage.get("stderr"):
                stderr.append(str(stage["stderr"]))
    message, trace = _failure(test, status, raw)
    return RawRecord(
        id=nodeid,
        name=nodeid.split("::", 1)[1] if "::" in nodeid else nodeid,
        file=file,
        line=line,
        status=status,
        raw_status=raw,
        duration_ms=round(duration * 1000, 3),
        markers=markers,
        message=message,
        traceback=trace,
        stdout="".join(stdout) or None,
        stderr="".join(stderr) or None,
        attempts=2 if flaky else 1,
        flaky=flaky,
    )


def _failure(test: dict[str, Any], status: TestStatus, raw: str) -> tuple[str | None, str | None]:
    """Message and traceback of the phase that decided the outcome."""
    if status == "passed" and raw != "xpassed":
        return None, None
    for phase in PHASES:
        stage = test.get(phase)
        if not isinstance(stage, dict) or stage.get("outcome") == "passed":
            continue
        longrepr = stage.get("longrepr")
        crash = found if isinstance(found := stage.get("crash"), dict) else {}
        if stage.get("outcome") == "skipped":
            reason = _skip_reason(longrepr) or crash.get("message")
            prefix = "xfail: " if raw == "xfailed" else ""
            return (prefix + reason) if reason else None, longrepr if raw == "xfailed" else None
        message = crash.get("message") or _last_error_line(longrepr)
        if phase != "call":
            message = f"[{phase}] {message}" if message else f"error in {phase}"
        return message, longrepr
    if raw == "xpassed":
        return "xpass: passed although marked xfail", None
    return None, None


def load_error(facts: Any) -> LoadError | None:
    """Our plugin's facts about a file that failed to load (runners_pytest_plugin), checked."""
    if not isinstance(facts, dict):
        return None

    def located(key: str) -> list[tuple[str, int | None]]:
        return [
            (str(item[0]), item[1] if isinstance(item[1], int) else None)
            for item in facts.get(key) or []
            if isinstance(item, list) and len(item) == 2 and item[0]
        ]

    missing, on_path = facts.get("missing_module"), facts.get("submission_on_path")
    return LoadError(
        error=str(facts.get("error") or ""),
        frames=located("frames"),
        files=located("files"),
        missing_module=missing if isinstance(missing, str) else None,
        submission_on_path=on_path if isinstance(on_path, bool) else None,
    )


def _collector_record(collector: dict[str, Any], facts: dict[str, Any] | None = None) -> RawRecord:
    nodeid = str(collector.get("nodeid") or "<collection>")
    longrepr = collector.get("longrepr")
    message = _last_error_line(longrepr) or "collection failed"
    return RawRecord(
        id=nodeid,
        name=f"{nodeid} (collection error)",
        file=_file_of(nodeid) if nodeid != "<collection>" else None,
        status="error",
        raw_status="collection_error",
        message=f"collection error in {nodeid}: {message}",
        traceback=longrepr if isinstance(longrepr, str) else None,
        collection_error=True,
        load_error=load_error(facts),
    )


def _file_of(nodeid: str) -> str:
    return nodeid.split("[", 1)[0].split("::", 1)[0]


def _skip_reason(longrepr: Any) -> str | None:
    """Skips carry `repr((path, line, 'Skipped: reason'))` as their longrepr."""
    if not isinstance(longrepr, str):
        return None
    try:
        value = ast.literal_eval(longrepr)
    except (ValueError, SyntaxError):
        return longrepr.strip() or None
    if isinstance(value, tuple) and len(value) == 3:
        return str(value[2])
    return str(value)


def _last_error_line(longrepr: Any) -> str | None:
    """The `E   ...` lines of a pytest traceback, joined, else its last non-empty line."""
    if not isinstance(longrepr, str) or not longrepr.strip():
        return None
    errors = [line[1:].strip() for line in longrepr.splitlines() if line.startswith("E ")]
    if errors:
        return "\n".join(errors[:20])
    lines = [line.strip() for line in longrepr.splitlines() if line.strip()]
    return lines[-1] if lines else None
