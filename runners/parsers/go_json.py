"""`go test -json` (test2json events, one JSON object per line) -> records.

- One record per test that has no subtests, and per subtest (`TestParse/empty input`): a test
  whose subtests report is represented by them, unless it failed while all of them passed (a
  failure of its own, outside the subtests).
- Status from the test's last `pass` / `fail` / `skip` event; a test that started but never
  ended (the test binary crashed or exited under it) is an `error` with the package's output.
- `output` events make the record's text; the failure message is the test's own log lines
  (`file_test.go:12: ...`) and a panic, without the `=== RUN` / `--- FAIL` bookkeeping.
- Markers: `@word` tags in subtest names (`t.Run("@error negative quantity", ...)`; go writes
  spaces as `_`, so a tag ends at one), and the word after `Test` in a function named
  `Test<Word>_...` (`TestError_NegativeQuantity` -> `error`).
- A package that failed without running a test (it did not compile, setup failed) is one
  collection-error record carrying the package's output; lines that are not JSON (Go 1.19 prints
  `FAIL pkg [setup failed]` that way) count as the output of the run.
- `files` maps test function names to their files (the runner reads the test sources), so the
  id is `tests/<file>::<Test/sub>` and earlier checkpoints' tests count as Regression.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, ValidationError

from runners.model.records import ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.report_file import ReportError

_FINAL = {"pass": "passed", "fail": "failed", "skip": "skipped"}
_BOOKKEEPING = re.compile(
    r"^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)\s|--- (?:PASS|FAIL|SKIP):\s|PASS$|FAIL$|ok\s)"
)
_NAME_MARKER = re.compile(r"^Test([A-Z][a-z0-9]+)_")
# go test writes a subtest's spaces as `_`, so a tag ends there: "@error_negative" is `error`.
_SUBTEST_TAG = re.compile(r"@([A-Za-z0-9.-]+)")


class Event(BaseModel):
    """One test2json event; unknown fields (newer Go versions add some) are ignored."""

    model_config = ConfigDict(extra="ignore")

    Action: str
    Package: str = ""
    Test: str | None = None
    Elapsed: float | None = None
    Output: str | None = None


@dataclass
class _Test:
    name: str
    package: str
    status: str | None = None
    elapsed: float | None = None
    output: list[str] = field(default_factory=list)


def parse_go_json(
    data: bytes, files: Mapping[str, str] | None = None, tests_prefix: str = "tests"
) -> ParsedReport:
    tests: dict[tuple[str, str], _Test] = {}
    package_output: dict[str, list[str]] = {}
    package_status: dict[str, str] = {}
    loose: list[str] = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("{"):
            loose.append(raw)
            continue
        try:
            event = Event.model_validate(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise ReportError(
                f"go test -json report, line {number}: not a test2json event ({exc})"
            ) from None
        if event.Test:
            test = tests.setdefault((event.Package, event.Test), _Test(event.Test, event.Package))
            if event.Action == "output" and event.Output is not None:
                test.output.append(event.Output)
            elif event.Action in _FINAL:
                test.status, test.elapsed = event.Action, event.Elapsed
        elif event.Action == "output" and event.Output is not None:
            package_output.setdefault(event.Package, []).append(event.Output)
        elif event.Action in _FINAL:
            package_status[event.Package] = event.Action
    report = ParsedReport()
    descendants: dict[tuple[str, str], list[_Test]] = {}
    for (package, name), test in tests.items():
        parts = name.split("/")
        for depth in range(1, len(parts)):
            descendants.setdefault((package, "/".join(parts[:depth])), []).append(test)
    for (package, name), test in tests.items():
        children = descendants.get((package, name), [])
        if children and not (test.status == "fail" and all(c.status != "fail" for c in children)):
            continue
        report.records.append(
            _record(test, files or {}, tests_prefix, package_output.get(package, []))
        )
    ran = {package for package, _ in tests}
    for package, status in package_status.items():
        if status == "fail" and package not in ran:
            text = "".join(package_output.get(package, [])) + "\n".join(loose)
            report.records.append(
                RawRecord(
                    id=f"{tests_prefix}::{package}",
                    name=package,
                    status="error",
                    collection_error=True,
                    message=f"package {package} failed before any test ran:\n{text.strip()}"[:4000],
                )
            )
    if loose and not report.records:
        report.errors.append("\n".join(loose)[:4000])
    report.collected = sum(1 for r in report.records if not r.collection_error)
    return report


def _record(
    test: _Test, files: Mapping[str, str], prefix: str, package_output: list[str]
) -> RawRecord:
    top = test.name.split("/", 1)[0]
    file = files.get(top)
    status: TestStatus
    message: str | None
    if test.status is None:
        status = "error"
        message = (
            "the test started but never finished: the test binary crashed or exited\n"
            + "".join(package_output[-40:])
        ).strip()
    else:
        status = _FINAL[test.status]  # type: ignore[assignment]
        message = (
            "".join(line for line in test.output if not _BOOKKEEPING.match(line)).strip() or None
        )
    markers = list(
        dict.fromkeys(
            m.group(1) for part in test.name.split("/")[1:] for m in _SUBTEST_TAG.finditer(part)
        )
    )
    word = _NAME_MARKER.match(top)
    if word:
        markers = list(dict.fromkeys([word.group(1).lower(), *markers]))
    return RawRecord(
        id=f"{prefix}/{file}::{test.name}" if file else f"{prefix}::{test.name}",
        name=test.name,
        file=f"{prefix}/{file}" if file else None,
        status=status,
        raw_status=test.status,
        duration_ms=round(test.elapsed * 1000, 3) if test.elapsed is not None else None,
        markers=markers,
        message=message if status in ("failed", "error") else None,
        stdout="".join(test.output) or None,
    )


def go_test_functions(source: str) -> list[str]:
    """Names of the top-level test functions a Go test file declares."""
    return re.findall(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", source, re.MULTILINE)
