"""jest 30 `--json --testLocationInResults` -> records.

Also the home of what the jest-shaped reports share (vitest's JSON reporter copies jest's
layout, and JUnit/CTRF files from JS runners carry the same titles): the pydantic models of the
report, the `file > describe > title` id with an ordinal for duplicates, `@tag` markers in titles,
paths made relative to the run's root, and the split of a stack string into message + trace.

Jest-specific facts handled here:
- suites that failed to run (syntax error, missing module, no tests) have a file `message`
  starting "Test suite failed to run" and no assertion results; they become `error` records;
- `pending`/`todo`/`skipped`/`disabled` are skips; `invocations` counts attempts;
- a failing `beforeAll` already marks each of its tests failed, so nothing is added for it;
- failure text may carry ANSI colour codes, which are stripped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runners.model.records import ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.report_file import ReportError, load_json_object

# ---- the jest-shaped report (field names follow the format) --------------------------------
# defer_build: the pytest runner imports this module for its helpers (through the CTRF
# cross-check); the models' validators are built on first use, by a JS run, not at import.
_REPORT_CONFIG = ConfigDict(extra="ignore", defer_build=True)


class Location(BaseModel):
    model_config = _REPORT_CONFIG
    line: int | None = None
    column: int | None = None


class AssertionResult(BaseModel):
    model_config = _REPORT_CONFIG
    ancestorTitles: list[str] = Field(default_factory=list)
    title: str
    status: str
    duration: float | None = None
    failureMessages: list[str] = Field(default_factory=list)
    location: Location | None = None
    tags: list[str] | None = None  # vitest >= 4.1
    invocations: int | None = None  # jest
    failing: bool | None = None  # jest `test.failing`
    retryReasons: list[str] = Field(default_factory=list)  # jest, with logErrorsBeforeRetry


class FileResult(BaseModel):
    model_config = _REPORT_CONFIG
    name: str = Field(min_length=1)
    status: str | None = None
    message: str | None = None
    assertionResults: list[AssertionResult] = Field(default_factory=list)
    # Our vitest reporter: a file's load error with its stack and the file it names
    # (runners.engine.blame).
    runnersLoadError: str | None = None


class JsonReport(BaseModel):
    model_config = _REPORT_CONFIG
    testResults: list[FileResult]
    numTotalTests: int | None = None
    numTotalTestSuites: int | None = None
    numFailedTestSuites: int | None = None
    numRuntimeErrorTestSuites: int | None = None  # jest only
    wasInterrupted: bool | None = None  # jest only


def load_json_report(data: bytes | str | dict[str, Any], label: str) -> JsonReport:
    """Validate a jest-shaped report; every problem is a `ReportError` naming the field."""
    data = load_json_object(data, label)
    if not isinstance(data.get("testResults"), list):
        raise ReportError(f"{label} report has no `testResults` list")
    try:
        return JsonReport.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReportError(f"{label} report: {where}: {first['msg']}") from None


# ---- helpers shared by the JS-family parsers (vitest JSON, JUnit, CTRF) ----------------------

# `@error` in "rejects empty input @error": a word after whitespace/bracket, not an e-mail.
_TITLE_TAG = re.compile(r"(?:^|(?<=[\s(\[]))@([A-Za-z][\w-]*)(?=$|[\s,;:)\]])")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_STACK_LINE = re.compile(r"^\s+at\s")
_ERROR_LINE = re.compile(r"^\s*[A-Z]\w*(?:Error|Exception)\b.*:")


def title_markers(titles: Iterable[str]) -> list[str]:
    """`@word` tags found in titles, in order, without duplicates."""
    found = (m.group(1) for title in titles for m in _TITLE_TAG.finditer(title))
    return list(dict.fromkeys(found))


def relative_path(path: str, root: str | None) -> str:
    """`path` relative to `root` when it lies under it; otherwise unchanged (posix slashes)."""
    path = path.replace("\\", "/")
    if root:
        base = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(base):
            return path[len(base) :]
    return path.removeprefix("./")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def split_failure(messages: Sequence[str]) -> tuple[str | None, str | None]:
    """(message, trace) from jest/vitest failure strings: the message is the first failure up to
    its first `    at ...` stack line; the trace is every failure in full."""
    cleaned = [strip_ansi(m).rstrip() for m in messages if m and m.strip()]
    if not cleaned:
        return None, None
    head: list[str] = []
    for line in cleaned[0].splitlines():
        if _STACK_LINE.match(line):
            break
        head.append(line)
    message = "\n".join(head).strip() or cleaned[0].splitlines()[0].strip()
    return message, "\n\n".join(cleaned)


def error_summary(text: str) -> str:
    """The line that says what went wrong in a formatted suite error: an `XxxError: ...` line if
    there is one, else the first line after jest's `● ...` header."""
    lines = [line.strip() for line in strip_ansi(text).splitlines() if line.strip()]
    body = [line for line in lines if not line.startswith("●")]
    for line in body:
        if _ERROR_LINE.match(line):
            return line
    return body[0] if body else (lines[0] if lines else "")


class IdAllocator:
    """Hands out ids, suffixing ` #2`, ` #3`, ... when the same id comes again (two tests with
    the same title in the same describe are legal in jest and vitest)."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def __call__(self, base: str) -> str:
        self._seen[base] += 1
        count = self._seen[base]
        return base if count == 1 else f"{base} #{count}"


def js_test_id(file: str, ancestors: Sequence[str], title: str) -> str:
    """`file > describe > ... > title`: titles stay as written (markers are not stripped)."""
    return " > ".join([file, *ancestors, title])


# ---- jest --------------------------------------------------------------------------------------

_JEST_STATUS: dict[str, TestStatus] = {
    "passed": "passed",
    "failed": "failed",
    "pending": "skipped",  # test.skip / xit
    "skipped": "skipped",
    "todo": "skipped",
    "disabled": "skipped",
}
_FAILED_TO_RUN = "Test suite failed to run"


def parse_jest_json(data: bytes | str | dict[str, Any], root: str | None = None) -> ParsedReport:
    report = load_json_report(data, "jest JSON")
    new_id = IdAllocator()
    records: list[RawRecord] = []
    failed_to_run = 0
    for entry in report.testResults:
        file = relative_path(entry.name, root)
        tests = [_jest_record(a, file, new_id) for a in entry.assertionResults]
        records += tests
        suite_error = _jest_suite_error(entry, file, tests, new_id)
        if suite_error is not None:
            failed_to_run += suite_error.raw_status == "suite_failed_to_run"
            records.append(suite_error)
    errors = []
    if report.wasInterrupted:
        errors.append("jest says the run was interrupted; the report may be incomplete")
    expected = report.numRuntimeErrorTestSuites or 0
    if expected > failed_to_run:
        errors.append(
            f"jest counts {expected} test suite(s) that failed to run, "
            f"but only {failed_to_run} appear in the report"
        )
    return ParsedReport(records=records, collected=report.numTotalTests, errors=errors)


def _jest_record(test: AssertionResult, file: str, new_id: IdAllocator) -> RawRecord:
    status = _JEST_STATUS.get(test.status, "error")  # an unknown status is never a pass
    attempts = max(test.invocations or 1, 1)
    message: str | None = None
    trace: str | None = None
    if status in ("failed", "error"):
        message, trace = split_failure(test.failureMessages)
    if status == "error":
        message = f"unknown jest status {test.status!r}"
    if status == "passed" and attempts > 1 and test.retryReasons:
        _, trace = split_failure(test.retryReasons)  # earlier attempts' errors, for debugging
    return RawRecord(
        id=new_id(js_test_id(file, test.ancestorTitles, test.title)),
        name=" > ".join([*test.ancestorTitles, test.title]),
        file=file,
        line=test.location.line if test.location else None,
        status=status,
        raw_status=test.status,
        duration_ms=round(test.duration, 3) if test.duration is not None else None,
        markers=title_markers([*test.ancestorTitles, test.title]),
        message=message,
        traceback=trace,
        attempts=attempts,
        flaky=status == "passed" and attempts > 1,
    )


def _jest_suite_error(
    entry: FileResult, file: str, tests: list[RawRecord], new_id: IdAllocator
) -> RawRecord | None:
    """A record for a file whose failure no test shows: a suite that failed to run, or a suite
    error (such as a failing `afterAll`) next to tests that all passed or were skipped."""
    if entry.status != "failed" or any(t.status in ("failed", "error") for t in tests):
        return None
    text = strip_ansi(entry.message or "").strip("\n")
    if _FAILED_TO_RUN in text or not tests:
        raw, what = "suite_failed_to_run", "test suite failed to run"
    else:
        raw, what = "suite_error", "the suite failed outside its tests (a beforeAll/afterAll hook?)"
    summary = error_summary(text) if text.strip() else "no message in the report"
    return RawRecord(
        id=new_id(file),
        name=f"{file} ({what})",
        file=file,
        status="error",
        raw_status=raw,
        message=f"{file}: {what}: {summary}",
        traceback=text or None,
        collection_error=True,
    )
