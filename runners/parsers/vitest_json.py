"""vitest 3 / 4 `--reporter=json` -> records.

The report copies jest's layout (models and shared helpers live in `jest_json`), with vitest's
own quirks:
- a file that failed to import, parse or run its top level has a `message` and no assertion
  results, and vitest counts no failed test for it: it becomes an `error` record;
- a failing `beforeAll` marks its tests `skipped` and its error is serialized nowhere; the file
  (and the describe) still count as failed suites. A failed file with no failing test gets an
  `error` record; inside a file that also has failing tests, the describe is found by comparing
  `numFailedTestSuites` with the suites the failing tests explain;
- a test that passed on retry is `passed` but keeps the earlier attempts' errors in
  `failureMessages` (no retry count is written): it stays passed and is flaky;
- `tags` (vitest >= 4.1) are markers; `@word` tags in titles are markers too;
- in CI mode a file whose `.snap` has obsolete entries fails with no failing test: no record;
- a type test file's (`--typecheck`) tests have the file's own path as their outermost describe:
  dropped, so their ids read like any other test's.
"""

from __future__ import annotations

from typing import Any

from runners.model.records import ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.jest_json import (
    AssertionResult,
    FileResult,
    IdAllocator,
    js_test_id,
    load_json_report,
    relative_path,
    split_failure,
    title_markers,
)

_STATUS: dict[str, TestStatus] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "todo": "skipped",
    "pending": "skipped",  # never finished: vitest warns about it as an internal bug
}
_HOOK = "a suite-level hook (beforeAll/afterAll) failed"
# What vitest (update "none", as in CI) makes a file's error when its `.snap` has entries no test
# checked; the hinted snapshots of a failed test count among them.
OBSOLETE_SNAPSHOTS = "Obsolete snapshots found when no snapshot update is expected."

Scope = tuple[str, ...]  # describe titles, outermost first


def parse_vitest_json(data: bytes | str | dict[str, Any], root: str | None = None) -> ParsedReport:
    report = load_json_report(data, "vitest JSON")
    new_id = IdAllocator()
    records: list[RawRecord] = []
    failed_files = 0
    explained: set[tuple[str, Scope]] = set()  # describes whose failure a record shows
    hidden: list[tuple[int, str, list[Scope]]] = []  # (insert at, file, candidate describes)
    for entry in report.testResults:
        file = relative_path(entry.name, root)
        for test in entry.assertionResults:
            if test.ancestorTitles[:1] == [file]:
                test.ancestorTitles = test.ancestorTitles[1:]
        records += [_record(a, file, new_id) for a in entry.assertionResults]
        if entry.status != "failed":
            continue
        failed_files += 1
        failing = [a for a in entry.assertionResults if a.status == "failed"]
        for test in failing:
            explained.update(
                (file, tuple(test.ancestorTitles[:n]))
                for n in range(1, len(test.ancestorTitles) + 1)
            )
        candidates = _skipped_scopes(entry.assertionResults)
        if not entry.assertionResults:
            records.append(_load_error(entry, file, new_id))
        elif not failing and (entry.message or "").lstrip().startswith(OBSOLETE_SNAPSHOTS):
            continue  # no test's failure: the runner notes it (obsolete snapshots are not errors)
        elif not failing:
            records.append(_file_hook_error(entry, file, candidates, new_id))
            explained.update(
                (file, scope[:n]) for scope in candidates for n in range(1, len(scope) + 1)
            )
        elif candidates:
            hidden.append((len(records), file, candidates))
    errors: list[str] = []
    unexplained = (report.numFailedTestSuites or 0) - failed_files - len(explained)
    if unexplained > 0:
        for at, file, scopes in reversed(hidden):  # after the file's own records
            records[at:at] = [_scope_hook_error(file, scope, new_id) for scope in scopes]
        if not hidden:
            errors.append(
                f"vitest counts {unexplained} failed suite(s) that no failing test "
                f"explains: {_HOOK} somewhere; its error is not in the JSON report"
            )
    return ParsedReport(records=records, collected=report.numTotalTests, errors=errors)


def _record(test: AssertionResult, file: str, new_id: IdAllocator) -> RawRecord:
    status = _STATUS.get(test.status, "error")  # an unknown status is never a pass
    message, trace = split_failure(test.failureMessages)
    retried = status == "passed" and bool(test.failureMessages)
    if status == "passed":
        message = None  # earlier attempts' errors stay in the trace, for debugging
    elif status == "error":
        message = f"unknown vitest status {test.status!r}"
    titles = [*test.ancestorTitles, test.title]
    return RawRecord(
        id=new_id(js_test_id(file, test.ancestorTitles, test.title)),
        name=" > ".join(titles),
        file=file,
        line=test.location.line if test.location else None,
        status=status,
        raw_status=test.status,
        duration_ms=round(test.duration, 3) if test.duration is not None else None,
        markers=list(dict.fromkeys([*(test.tags or []), *title_markers(titles)])),
        message=message,
        traceback=trace,
        attempts=len(test.failureMessages) + 1 if retried else 1,
        flaky=retried,
    )


def _skipped_scopes(tests: list[AssertionResult]) -> list[Scope]:
    """The outermost describes whose tests were all `skipped`: where a failing `beforeAll`
    leaves its mark (a `describe.skip` looks the same, so these are only candidates)."""
    scopes: dict[Scope, bool] = {}
    for test in tests:
        skipped = test.status == "skipped"
        for n in range(1, len(test.ancestorTitles) + 1):
            scope = tuple(test.ancestorTitles[:n])
            scopes[scope] = scopes.get(scope, True) and skipped
    all_skipped = [s for s, ok in scopes.items() if ok]
    return [
        s
        for s in all_skipped
        if not any(s[:n] in scopes and scopes[s[:n]] for n in range(1, len(s)))
    ]


def _load_error(entry: FileResult, file: str, new_id: IdAllocator) -> RawRecord:
    text = (entry.message or "").strip()
    return RawRecord(
        id=new_id(file),
        name=f"{file} (failed to load)",
        file=file,
        status="error",
        raw_status="collection_error",
        message=f"{file} failed to load: {text or 'no message in the report'}",
        traceback=(entry.runnersLoadError or text or None),
        collection_error=True,
    )


def _file_hook_error(
    entry: FileResult, file: str, scopes: list[Scope], new_id: IdAllocator
) -> RawRecord:
    where = f" (probably in: {'; '.join(' > '.join(s) for s in scopes)})" if scopes else ""
    text = (entry.message or "").strip()
    detail = f": {text}" if text else "; the report does not include its error"
    return RawRecord(
        id=new_id(file),
        name=f"{file} (suite-level failure)",
        file=file,
        status="error",
        raw_status="suite_error",
        message=f"{file} failed but none of its tests did: {_HOOK}{where}{detail}",
        traceback=text or None,
        markers=title_markers([t for s in scopes for t in s]),
        collection_error=True,
    )


def _scope_hook_error(file: str, scope: Scope, new_id: IdAllocator) -> RawRecord:
    path = " > ".join(scope)
    return RawRecord(
        id=new_id(js_test_id(file, scope[:-1], scope[-1])),
        name=f"{path} (suite-level failure)",
        file=file,
        status="error",
        raw_status="suite_error",
        message=(
            f"{file} > {path}: {_HOOK}, so its tests were reported as skipped; "
            "the report does not include the hook's error"
        ),
        markers=title_markers(scope),
        collection_error=True,
    )
