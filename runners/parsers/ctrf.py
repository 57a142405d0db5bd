"""CTRF (Common Test Report Format) -> records, read leniently.

Real producers break the schema in known ways (a string `suite`, missing `reportFormat` or
`specVersion`, float durations), so those are accepted; an incompatible major `specVersion`
is refused, as the spec requires.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from runners.parsers.report_file import ReportError
from runners.records import ParsedReport, RawRecord
from runners.results import TestStatus

_STATUS: dict[str, TestStatus] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "pending": "skipped",
    "other": "skipped",
}
# pytest-json-ctrf reports setup/teardown errors as failed with these raw statuses.
_ERROR_RAW = {"setup_failed", "teardown_failed", "error", "broken"}


def parse_ctrf(data: bytes | str | dict[str, Any]) -> ParsedReport:
    report = _load(data)
    spec = report.get("specVersion")
    if isinstance(spec, str) and spec.split(".", 1)[0] not in ("0", "1"):
        raise ReportError(f"CTRF specVersion {spec} is not supported (expected 0.x or 1.x)")
    results = report.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
        raise ReportError("CTRF report has no `results.tests` list")
    records: list[RawRecord] = []
    seen: Counter[str] = Counter()
    for test in results["tests"]:
        if not isinstance(test, dict) or not test.get("name"):
            continue
        record = _record(test)
        seen[record.id] += 1
        if seen[record.id] > 1:  # duplicate names: keep both, distinguishable
            record.id = f"{record.id} #{seen[record.id]}"
        records.append(record)
    summary = results.get("summary") if isinstance(results.get("summary"), dict) else {}
    total = summary.get("tests")
    return ParsedReport(records=records, collected=total if isinstance(total, int) else None)


def _load(data: bytes | str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(data, dict):
        return data
    try:
        report = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"CTRF report is not valid JSON ({exc})") from None
    if not isinstance(report, dict):
        raise ReportError("CTRF report is not a JSON object")
    return report


def ctrf_status(status: Any, raw: Any) -> TestStatus:
    raw_text = str(raw) if raw is not None else ""
    if raw_text in _ERROR_RAW:
        return "error"
    if status in _STATUS:
        return _STATUS[str(status)]
    if raw_text in _STATUS:
        return _STATUS[raw_text]
    return "error"  # an unknown status is never a pass


def ctrf_test_id(test: dict[str, Any]) -> str:
    """`testId` when given; else suite path + name, unless the name is already a full id."""
    if isinstance(test.get("testId"), str) and test["testId"]:
        return test["testId"]
    name = str(test["name"])
    suite = test.get("suite")
    if isinstance(suite, str):
        suite = [s.strip() for s in suite.split(" > ") if s.strip()]
    if "::" in name or not isinstance(suite, list) or not suite:
        file = test.get("filePath")
        if file and "::" not in name:
            return f"{file}::{name}"
        return name
    return " > ".join([*map(str, suite), name])


def _record(test: dict[str, Any]) -> RawRecord:
    raw = test.get("rawStatus")
    status = ctrf_status(test.get("status"), raw)
    tags = [str(t).split("::", 1)[0] for t in test.get("tags") or [] if isinstance(t, (str, int))]
    attempts = test.get("retryAttempts")
    retries = test.get("retries") if isinstance(test.get("retries"), int) else 0
    duration = test.get("duration")
    line = test.get("line")
    name = str(test["name"])
    return RawRecord(
        id=ctrf_test_id(test),
        name=name.split("::", 1)[1] if "::" in name else name,
        file=test.get("filePath") if isinstance(test.get("filePath"), str) else None,
        line=line if isinstance(line, int) else None,
        status=status,
        raw_status=str(raw if raw is not None else test.get("status")),
        duration_ms=float(duration) if isinstance(duration, (int, float)) else None,
        markers=list(dict.fromkeys(t for t in tags if t)),
        message=test.get("message") or None,
        traceback=test.get("trace") or None,
        stdout="\n".join(map(str, test["stdout"])) if isinstance(test.get("stdout"), list) else None,
        stderr="\n".join(map(str, test["stderr"])) if isinstance(test.get("stderr"), list) else None,
        attempts=max(retries, len(attempts) if isinstance(attempts, list) else 0) + 1,
        flaky=bool(test.get("flaky")) and status == "passed",
    )
