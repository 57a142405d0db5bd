"""CTRF (Common Test Report Format) -> records, read leniently.

Real producers break the schema in known ways, and all of them are accepted: `suite` as a
string (`"main.test.js > outer > inner"`, jest-ctrf), missing `reportFormat`/`specVersion`
(vitest-ctrf), `specVersion: "0.0.0"`, float durations, statuses outside the enum (then
`rawStatus` decides). An incompatible major `specVersion` is refused, as the spec requires.

Ids: a pytest nodeid (`name` holding `::`) or a name that already starts with its file is kept;
otherwise `file > suite... > title`, the JS scheme of the jest/vitest parsers (jest-ctrf's
`name` is jest's fullName, so the suite titles are cut off its front), plus ` #2` for repeats.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from runners.model.records import ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.jest_json import IdAllocator, relative_path, title_markers
from runners.parsers.report_file import ReportError, load_json_object
from runners.util.gcpause import gc_paused

_STATUS: dict[str, TestStatus] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "pending": "skipped",
    "other": "skipped",  # jest-ctrf: todo/disabled/focused
    "error": "error",
}
# Source statuses seen in `rawStatus` (vitest-ctrf's task states, jest's and pytest's words).
_RAW_STATUS: dict[str, TestStatus] = {
    "pass": "passed",
    "fail": "failed",
    "skip": "skipped",
    "todo": "skipped",
    "disabled": "skipped",
    "xfailed": "skipped",
    "xpassed": "passed",
}
# pytest-json-ctrf reports setup/teardown errors as failed with these raw statuses; our own
# writer writes `error` as failed + rawStatus "error"; Allure says "broken".
_SYNTHETIC_RAW = {"collection_error", "suite_error", "suite_failed_to_run"}  # file-level records
_ERROR_RAW = {"setup_failed", "teardown_failed", "error", "broken", *_SYNTHETIC_RAW}


@gc_paused()
def parse_ctrf(data: bytes | str | dict[str, Any], root: str | None = None) -> ParsedReport:
    results = _results(data)
    new_id = IdAllocator()
    records: list[RawRecord] = []
    errors: list[str] = []
    for index, test in enumerate(results["tests"]):
        if not _named(test):
            errors.append(f"CTRF results.tests[{index}] has no name and was ignored")
            continue
        records.append(_record(test, root, new_id))
    summary = found if isinstance(found := results.get("summary"), dict) else {}
    total = summary.get("tests") if isinstance(summary.get("tests"), int) else None
    if total is not None and total != len(results["tests"]):
        errors.append(
            f"CTRF summary counts {total} tests but the report lists "
            f"{len(results['tests'])}: the report may be truncated"
        )
    return ParsedReport(records=records, collected=total, errors=errors)


@gc_paused()
def ctrf_outcomes(
    data: bytes | str | dict[str, Any], root: str | None = None
) -> dict[str, Outcome]:
    """Only what a cross-check needs, by test id (the ids `parse_ctrf` gives): a third of its
    time on a big report, since names, markers and messages are not worked out."""
    results = _results(data)
    new_id = IdAllocator()
    outcomes: dict[str, Outcome] = {}
    for test in results["tests"]:
        if _named(test):
            status = ctrf_status(test.get("status"), test.get("rawStatus"))
            outcomes[new_id(ctrf_test_id(test, root))] = Outcome(
                status == "passed", *_attempts(test, status)
            )
    return outcomes


class Outcome(NamedTuple):
    passed: bool
    attempts: int
    flaky: bool


def _results(data: bytes | str | dict[str, Any]) -> dict[str, Any]:
    """The report's `results`, after checking the format and the version."""
    report = load_json_object(data, "CTRF")
    fmt = report.get("reportFormat")
    if fmt is not None and fmt != "CTRF":
        raise ReportError(f"CTRF report has reportFormat {fmt!r}, expected 'CTRF'")
    spec = report.get("specVersion")
    if isinstance(spec, str) and spec.split(".", 1)[0] not in ("0", "1"):
        raise ReportError(f"CTRF specVersion {spec} is not supported (expected 0.x or 1.x)")
    results = report.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("tests"), list):
        raise ReportError("CTRF report has no `results.tests` list")
    return results


def _named(test: Any) -> bool:
    return isinstance(test, dict) and isinstance(test.get("name"), str) and bool(test["name"])


def ctrf_status(status: Any, raw: Any) -> TestStatus:
    raw_text = str(raw) if raw is not None else ""
    if raw_text in _ERROR_RAW:
        return "error"
    if status in _STATUS:
        return _STATUS[str(status)]
    if raw_text in _STATUS:
        return _STATUS[raw_text]
    if raw_text in _RAW_STATUS:
        return _RAW_STATUS[raw_text]
    return "error"  # an unknown status is never a pass


def ctrf_test_id(test: dict[str, Any], root: str | None = None) -> str:
    """`testId` when given; a pytest nodeid or a name that starts with its file as is; else
    `file > suite... > title`."""
    if isinstance(test.get("testId"), str) and test["testId"]:
        return test["testId"]
    name = str(test["name"])
    if "::" in name:  # a pytest nodeid
        return name
    file = _file(test, root)
    if file and name.startswith(file):
        return name
    suite = _suite(test, file)
    return " > ".join([*([file] if file else []), *suite, _title(name, suite)])


def _file(test: dict[str, Any], root: str | None) -> str | None:
    path = test.get("filePath")
    return relative_path(path, root) if isinstance(path, str) and path else None


def _suite(test: dict[str, Any], file: str | None) -> list[str]:
    """Suite titles, outermost first, without a leading entry naming the file itself."""
    suite = test.get("suite")
    if isinstance(suite, str):
        suite = suite.split(" > ")
    titles = [str(s).strip() for s in suite if str(s).strip()] if isinstance(suite, list) else []
    if titles and file and titles[0] in (file, _basename(file)):
        titles = titles[1:]
    return titles


@lru_cache(maxsize=4096)
def _basename(file: str) -> str:
    # Once per file, not once per test: PurePosixPath was a third of parsing 100,000 tests.
    return PurePosixPath(file).name


def _title(name: str, suite: list[str]) -> str:
    """jest-ctrf's name is jest's fullName (suite titles and title joined by spaces)."""
    prefix = " ".join(suite) + " "
    return name[len(prefix) :] if suite and name.startswith(prefix) else name


def _attempts(test: dict[str, Any], status: TestStatus) -> tuple[int, bool]:
    """(attempts, flaky). Producers disagree on whether `retryAttempts` holds the final
    attempt (pytest-json-ctrf: no; the spec's own example: yes), so count whichever is more."""
    tries = found if isinstance(found := test.get("retryAttempts"), list) else []
    tries = [t for t in tries if isinstance(t, dict)]
    retries = test.get("retries") if isinstance(test.get("retries"), int) else None
    if retries is None:
        final_listed = bool(tries) and tries[-1].get("status") == test.get("status")
        retries = len(tries) - 1 if final_listed else len(tries)
    attempts = max(retries + 1, len(tries), 1)
    failed_before = any(t.get("status") == "failed" for t in tries)
    flaky = status == "passed" and (test.get("flaky") is True or failed_before)
    return attempts, flaky


def _record(test: dict[str, Any], root: str | None, new_id: IdAllocator) -> RawRecord:
    raw = test.get("rawStatus")
    status = ctrf_status(test.get("status"), raw)
    name = str(test["name"])
    file = _file(test, root)
    suite = _suite(test, file)
    tags = [str(t).split("::", 1)[0] for t in test.get("tags") or [] if isinstance(t, (str, int))]
    attempts, flaky = _attempts(test, status)
    duration = test.get("duration")
    line = test.get("line")
    return RawRecord(
        id=new_id(ctrf_test_id(test, root)),
        name=name.split("::", 1)[1] if "::" in name else _title(name, suite),
        file=file,
        line=line if isinstance(line, int) else None,
        status=status,
        raw_status=str(raw if raw is not None else test.get("status")),
        duration_ms=round(float(duration), 3) if isinstance(duration, (int, float)) else None,
        markers=list(dict.fromkeys(t for t in [*tags, *title_markers([*suite, name])] if t)),
        message=_text(test.get("message")),
        traceback=_text(test.get("trace")),
        stdout=_lines(test.get("stdout")),
        stderr=_lines(test.get("stderr")),
        attempts=attempts,
        flaky=flaky,
        collection_error=raw in _SYNTHETIC_RAW or _extra(test).get("collection_error") is True,
    )


def _extra(test: dict[str, Any]) -> dict[str, Any]:
    return test["extra"] if isinstance(test.get("extra"), dict) else {}


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _lines(value: Any) -> str | None:
    """CTRF `stdout`/`stderr` are arrays of lines; a plain string is accepted too."""
    if isinstance(value, list):
        return "\n".join(map(str, value)) or None
    return value if isinstance(value, str) and value else None
