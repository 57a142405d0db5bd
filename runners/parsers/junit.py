"""JUnit XML (pytest, vitest, jest-junit, Surefire, anything else) -> records.

Read with junitparser's `xunit2` classes, which also see Surefire's rerun/flaky children and
testcase properties. Producer quirks handled:
- suites nested at any depth, a `<testsuite>` or `<testsuites>` root;
- several results on one testcase: the most severe wins (error > failure > skipped);
- repeated testcases with the same (file, classname, name) are reruns (pytest-rerunfailures):
  merged into one record whose final attempt is the last; pytest writes the failed attempt
  with no `<failure>`, so a repeat is itself the sign of an earlier failed attempt. vitest and
  jest-junit never write reruns, so in their files repeats are distinct tests (ordinal suffix);
- pytest's `collection failure` testcase and vitest's testcase named after a file that failed to
  load become `collection_error` records; vitest's testcase named after a describe whose
  `beforeAll` failed becomes a suite-level `error` record;
- `<skipped type="pytest.xfail">` keeps raw status `xfailed`; `status="disabled"` is a skip;
- markers from `markers`/`tags` properties (comma-separated) and `@tag` words in names;
- pytest's `---- Captured Out ----` section headers are removed from system-out/err.

Root statistics are never read: on a root without `tests`/`time` junitparser recomputes them and
overwrites every suite's attributes (the lazy-statistics pitfall).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, cast

from junitparser import Attr, Error, Failure, JUnitXmlError, Skipped, xunit2

from runners.model.records import ParsedReport, RawRecord
from runners.model.results import TestStatus
from runners.parsers.jest_json import IdAllocator, relative_path, split_failure, title_markers
from runners.parsers.report_file import ReportError


class _Case(xunit2.TestCase):
    file = Attr()
    line = Attr()
    status = Attr()


class _Suite(xunit2.TestSuite):
    testcase = _Case


class _Xml(xunit2.JUnitXml):
    testsuite = _Suite


# Root names of producers that never write a rerun as a repeated testcase.
_NO_RERUN_PRODUCERS = {"vitest tests", "jest tests"}
_SKIP_STATUS = {"disabled", "skipped", "notrun", "ignored"}
_PYTEST_SECTION = re.compile(r"^-+ Captured (?:Log|Out|Err) -+$\n?", re.MULTILINE)
# A test file path, not a title: ends like a test file, or has a slash and no spaces.
_PATH_LIKE = re.compile(r"^(?:\S*[/\\]\S*|.*\.(?:[cm]?[jt]sx?|py))$")
_PYTEST_MODULE = re.compile(r"^(?:test_\w*|\w+_test)$")


@dataclass
class _Context:
    """What a testcase inherits from the suites around it."""

    file: str | None = None
    markers: list[str] = field(default_factory=list)


def parse_junit(data: bytes | str, root: str | None = None) -> ParsedReport:
    xml = _load(data)
    pytest = xml.name == "pytest tests" or any(s.name == "pytest" for s in xml)
    groups: dict[tuple[str | None, str, str], list[tuple[_Case, _Context]]] = {}
    merge = xml.name not in _NO_RERUN_PRODUCERS
    for case, ctx in _cases(xml, _Context()):
        key = (case.file or ctx.file, (case.classname or "").strip(), (case.name or "").strip())
        if not merge:
            key = (*key[:2], f"{key[2]}\x00{len(groups)}")  # keep repeats apart
        groups.setdefault(key, []).append((case, ctx))
    builder = _Builder(root=root, pytest=pytest)
    records = [builder.record(attempts) for attempts in groups.values()]
    _mark_describe_failures(records)
    return ParsedReport(records=records, collected=_collected(xml))


def _load(data: bytes | str) -> _Xml:
    if not data or not data.strip():
        raise ReportError("JUnit XML report is empty")
    try:
        # The standard library's expat never loads external entities and caps entity expansion;
        # parsing here (not in junitparser, which would use lxml when installed) keeps it so.
        element = ET.fromstring(data)
    except ET.ParseError as exc:
        raise ReportError(f"JUnit XML report is not well-formed XML ({exc})") from None
    try:
        # junitparser reads an ElementTree element as its own; `fromroot` builds `cls`.
        return cast(_Xml, _Xml.fromroot(cast(Any, element)))
    except JUnitXmlError:
        raise ReportError(
            f"JUnit XML report has root <{element.tag}>, expected <testsuites> or <testsuite>"
        ) from None


def _cases(parent: _Xml | _Suite, ctx: _Context) -> Iterator[tuple[_Case, _Context]]:
    """Every testcase in document order, suites nested at any depth."""
    # junitparser builds them as the `testsuite` class of their parent: `_Suite`.
    suites = cast(
        Iterator[_Suite], parent.testsuites() if isinstance(parent, _Suite) else iter(parent)
    )
    if isinstance(parent, _Suite):
        yield from ((case, ctx) for case in parent.iterchildren(_Case))
    for suite in suites:
        inner = _Context(
            file=suite.file or ctx.file,
            markers=[*ctx.markers, *_property_markers(suite.properties())],
        )
        yield from _cases(suite, inner)


def _property_markers(properties: Iterator[Any] | None) -> list[str]:
    markers: list[str] = []
    for prop in properties or ():
        if getattr(prop, "name", None) in ("markers", "tags") and getattr(prop, "value", None):
            markers += [m.strip() for m in str(prop.value).split(",") if m.strip()]
    return markers


def _collected(xml: _Xml) -> int | None:
    """The `tests` count the report states, read raw (never through the lazy statistics)."""
    values = [xml._elem.get("tests")]
    if not values[0]:
        values = [suite._elem.get("tests") for suite in xml]
    try:
        return sum(int(v) for v in values) if values and all(values) else None
    except ValueError:
        return None


@dataclass
class _Builder:
    root: str | None
    pytest: bool
    new_id: IdAllocator = field(default_factory=IdAllocator)

    def record(self, attempts: list[tuple[_Case, _Context]]) -> RawRecord:
        case, ctx = attempts[-1]  # the final attempt decides
        classname, name = (case.classname or "").strip(), (case.name or "").strip()
        file = self._file(case, ctx, classname)
        status, raw, message, trace = _outcome(case)
        markers = [
            *_property_markers(case.properties()),
            *ctx.markers,
            *title_markers([classname, name]),
        ]
        common: dict[str, Any] = {
            "file": file,
            "line": self._line(case),
            "duration_ms": _duration_ms(case),
            "stdout": _output(case.system_out),
            "stderr": _output(case.system_err),
            "markers": list(dict.fromkeys(markers)),
        }
        if status in ("failed", "error") and _is_load_failure(case, classname, name):
            where = file or name
            detail = _error_line(trace) if classname != name else message
            return RawRecord(
                id=self.new_id(where),
                name=f"{where} (failed to load)",
                status="error",
                raw_status="collection_error",
                traceback=trace,
                collection_error=True,
                message=f"{where} failed to load: {detail or message or 'no message'}",
                **common,
            )
        interim = [r for c, _ in attempts for r in c.interim_result]
        count = len(attempts) + len(interim)
        flaky = status == "passed" and count > 1
        if flaky:  # earlier attempts' errors, for debugging; the test itself passed
            texts = [t for c, _ in attempts[:-1] for t in _texts(c)]
            texts += [r.stack_trace or r.text or r.message or "" for r in interim]
            trace = "\n\n".join(t for t in texts if t.strip()) or None
        return RawRecord(
            id=self._id(classname, name, file),
            name=name or classname,
            status=status,
            raw_status=raw,
            message=message,
            traceback=trace,
            attempts=count,
            flaky=flaky,
            **common,
        )

    def _id(self, classname: str, name: str, file: str | None) -> str:
        if classname and classname != name:
            return self.new_id(f"{classname}::{name}")
        if not classname and file and file != name:
            return self.new_id(f"{file}::{name}")
        return self.new_id(name or classname or "<unnamed testcase>")

    def _file(self, case: _Case, ctx: _Context, classname: str) -> str | None:
        file = case.file or ctx.file
        if not file and _PATH_LIKE.match(classname):
            file = classname  # vitest: classname is the test file
        if not file and self.pytest:
            file = _pytest_file(classname or (case.name or ""))
        return relative_path(file, self.root) if file else None

    def _line(self, case: _Case) -> int | None:
        try:
            line = int(case.line) if case.line is not None else None
        except ValueError:
            return None
        # pytest (xunit1) writes 0-based lines; everyone else 1-based.
        return line + 1 if line is not None and self.pytest else line


def _is_load_failure(case: _Case, classname: str, name: str) -> bool:
    """pytest: `<error message="collection failure">`; vitest: a testcase named after its file."""
    if any(isinstance(r, Error) and r.message == "collection failure" for r in case.result):
        return True
    raw = case.classname or ""
    # jest-junit pads top-level titles with a space and uses them as classname too.
    return (
        bool(classname) and raw == case.name and raw == classname and bool(_PATH_LIKE.match(name))
    )


def _mark_describe_failures(records: list[RawRecord]) -> None:
    """vitest writes a failing `beforeAll` as an extra testcase named after the describe (its
    tests are `<skipped/>`): a failed record whose name prefixes other names in its file."""
    names = {(r.file, r.name) for r in records}
    for i, record in enumerate(records):
        if record.status != "failed" or record.collection_error:
            continue
        prefix = record.name + " > "
        if any(f == record.file and n.startswith(prefix) for f, n in names):
            where = " > ".join(p for p in (record.file, record.name) if p)
            records[i] = replace(
                record,
                status="error",
                raw_status="suite_error",
                message=f"{where}: a suite-level hook (beforeAll/afterAll) failed: "
                f"{record.message or 'no message'}",
                collection_error=True,
            )


def _outcome(case: _Case) -> tuple[TestStatus, str, str | None, str | None]:
    """(status, raw status, message, trace) from the most severe result on the testcase."""
    results = case.result
    for kind, status, raw in ((Error, "error", "error"), (Failure, "failed", "failure")):
        hits = [r for r in results if isinstance(r, kind)]
        if hits:
            others = [r for r in results if isinstance(r, (Error, Failure)) and r not in hits]
            chosen = hits + others
            messages = [_message(r) for r in chosen]
            texts = [r.text.strip() for r in chosen if r.text and r.text.strip()]
            message = "\n".join(dict.fromkeys(m for m in messages if m)) or None
            return status, raw, message, "\n\n".join(texts) or None  # type: ignore[return-value]
    skips = [r for r in results if isinstance(r, Skipped)]
    if skips:
        raw = "xfailed" if skips[0].type == "pytest.xfail" else "skipped"
        return "skipped", raw, _message(skips[0]), None
    if (case.status or "").lower() in _SKIP_STATUS:
        return "skipped", case.status.lower(), None, None
    return "passed", "passed", None, None


def _message(result: Error | Failure | Skipped) -> str | None:
    if result.message and result.message.strip():
        return result.message.strip()
    return split_failure([result.text])[0] if result.text else None


def _texts(case: _Case) -> list[str]:
    return [r.text or r.message or "" for r in case.result if isinstance(r, (Error, Failure))]


def _duration_ms(case: _Case) -> float | None:
    try:
        seconds = case.time  # None when missing; "1,234.5" is read as 1234.5
    except ValueError:
        return None
    return round(seconds * 1000, 3) if seconds is not None else None


def _output(text: str | None) -> str | None:
    if not text:
        return None
    return _PYTEST_SECTION.sub("", text).strip() or None


def _pytest_file(dotted: str) -> str | None:
    """`tests.test_main.TestClass` -> `tests/test_main.py`: up to the test-module segment."""
    parts = dotted.split(".")
    for i in range(len(parts) - 1, -1, -1):
        if _PYTEST_MODULE.match(parts[i]):
            return "/".join(parts[: i + 1]) + ".py"
    return None


def _error_line(text: str | None) -> str | None:
    """pytest's `E   ...` lines, else the last line of a traceback."""
    if not text:
        return None
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "\n".join(errors) if errors else (lines[-1] if lines else None)
