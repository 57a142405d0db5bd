"""jest `--json --testLocationInResults` parser, on real jest 30.5.2 output and small hand-made
reports for cases the sample does not show (ANSI colours, retries that keep failing, ...)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from runners.parsers.jest_json import parse_jest_json
from runners.parsers.report_file import ReportError

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
ROOT = "/project/js/jest"


@pytest.fixture(scope="module")
def sample():
    return parse_jest_json((REPORTS / "jest30-json.json").read_bytes(), root=ROOT)


def by_id(report) -> dict[str, Any]:
    return {r.id: r for r in report.records}


def case(title: str, status: str = "passed", ancestors: list[str] | None = None, **extra: Any):
    return {
        "ancestorTitles": ancestors or [],
        "title": title,
        "status": status,
        "failureMessages": [],
        "duration": 1,
        "invocations": 1,
        **extra,
    }


def report_of(*files: dict[str, Any], **top: Any) -> str:
    return json.dumps({"testResults": list(files), **top})


# ---- the real sample ---------------------------------------------------------------------------


def test_counts_per_status(sample):
    # 17 tests + 3 suites that failed to run
    assert len(sample.records) == 20
    assert Counter(r.status for r in sample.records) == {
        "passed": 9,
        "failed": 6,
        "skipped": 2,
        "error": 3,
    }
    assert sample.collected == 17
    assert sample.errors == []


def test_ids_lines_and_duplicates(sample):
    records = by_id(sample)
    nested = records["tests/main.test.js > outer suite > inner suite > nested throws"]
    assert (nested.file, nested.line, nested.message) == (
        "tests/main.test.js",
        13,
        "TypeError: bad type",
    )
    # test.each rows share the line of the `.each` call; titles are rendered unquoted by jest
    assert records["tests/main.test.js > outer suite > add(1, 1) -> 2"].line == 15
    assert records["tests/main.test.js > outer suite > add(2, 2) -> 5"].line == 15
    assert "tests/main.test.js > outer suite > object alpha" in records
    assert records["tests/main.test.js > same name"].line == 23
    assert records["tests/main.test.js > same name #2"].line == 24


def test_suites_that_failed_to_run_become_error_records(sample):
    records = by_id(sample)
    expected = {
        "tests/broken.test.js": "Cannot find module './does-not-exist' from 'tests/broken.test.js'",
        "tests/syntax.test.js": "SyntaxError: /project/js/jest/tests/syntax.test.js: "
        "Unexpected reserved word 'let'. (1:18)",
        "tests/empty.test.js": "Your test suite must contain at least one test.",
    }
    for file, summary in expected.items():
        record = records[file]
        assert record.status == "error"
        assert record.raw_status == "suite_failed_to_run"
        assert record.collection_error is True
        assert record.file == file
        assert record.message == f"{file}: test suite failed to run: {summary}"
        assert record.traceback.startswith("  ● Test suite failed to run")


def test_failing_before_all_marks_its_tests_failed(sample):
    records = by_id(sample)
    for title in ("a", "b"):
        record = records[f"tests/hookfail.test.js > with failing beforeAll > {title}"]
        assert record.status == "failed"
        assert record.message == "Error: beforeAll exploded"
    # jest shows it on the tests, so no extra record is added for the file
    assert "tests/hookfail.test.js" not in records


def test_skips_keep_the_raw_status_and_have_no_duration(sample):
    records = by_id(sample)
    skipped = records["tests/main.test.js > skipped test"]
    todo = records["tests/main.test.js > todo test"]
    assert (skipped.status, skipped.raw_status, skipped.duration_ms) == ("skipped", "pending", None)
    assert (todo.status, todo.raw_status, todo.duration_ms) == ("skipped", "todo", None)
    assert records["tests/main.test.js > top level pass"].duration_ms == 8.0


def test_retried_test_counts_attempts_and_is_flaky(sample):
    record = by_id(sample)["tests/retry.test.js > flaky with retry"]
    assert (record.status, record.attempts, record.flaky) == ("passed", 2, True)


def test_failing_test_keeps_its_raw_status(sample):
    record = by_id(sample)["tests/main.test.js > expected to fail"]
    assert (record.status, record.raw_status, record.flaky) == ("passed", "passed", False)


def test_failure_message_stops_before_the_stack(sample):
    record = by_id(sample)["tests/main.test.js > outer suite > add(2, 2) -> 5"]
    assert record.message == (
        "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 5\nReceived: 4"
    )
    assert "at toBe (/project/js/jest/tests/main.test.js:16:19)" in record.traceback


# ---- hand-made reports ------------------------------------------------------------------------


def test_disabled_and_skipped_are_skips_and_unknown_is_an_error():
    data = report_of(
        {
            "name": "/r/t/a.test.js",
            "status": "focused",
            "message": "",
            "assertionResults": [case("d", "disabled"), case("s", "skipped"), case("f", "focused")],
        }
    )
    records = by_id(parse_jest_json(data, root="/r"))
    disabled, skipped = records["t/a.test.js > d"], records["t/a.test.js > s"]
    assert (disabled.status, disabled.raw_status) == ("skipped", "disabled")
    assert (skipped.status, skipped.raw_status) == ("skipped", "skipped")
    assert records["t/a.test.js > f"].status == "error"


def test_ansi_codes_are_stripped():
    message = (
        "\x1b[1m\x1b[31m  \x1b[1m● \x1b[22m\x1b[1mTest suite failed to run"
        "\x1b[39m\x1b[22m\n\n"
        "    \x1b[31mCannot find module 'x' from 'a.test.js'\x1b[39m\n"
    )
    data = report_of(
        {"name": "/r/a.test.js", "status": "failed", "message": message, "assertionResults": []},
        {
            "name": "/r/b.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [
                case(
                    "t",
                    "failed",
                    failureMessages=["\x1b[31mError: boom\x1b[39m\n    at x (b.js:1:1)"],
                )
            ],
        },
    )
    records = by_id(parse_jest_json(data, root="/r"))
    assert records["a.test.js"].message == (
        "a.test.js: test suite failed to run: Cannot find module 'x' from 'a.test.js'"
    )
    assert "\x1b" not in records["a.test.js"].traceback
    assert records["b.test.js > t"].message == "Error: boom"
    assert "\x1b" not in records["b.test.js > t"].traceback


def test_a_test_that_keeps_failing_is_not_flaky():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [
                case(
                    "t",
                    "failed",
                    invocations=3,
                    failureMessages=["Error: third"],
                    retryReasons=["Error: first", "Error: second"],
                )
            ],
        }
    )
    record = parse_jest_json(data, root="/r").records[0]
    assert (record.status, record.attempts, record.flaky) == ("failed", 3, False)
    assert record.message == "Error: third"


def test_retry_reasons_of_a_flaky_test_are_kept_in_the_trace():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [
                case("t", invocations=2, retryReasons=["Error: first try\n    at x (a.js:1:1)"])
            ],
        }
    )
    record = parse_jest_json(data, root="/r").records[0]
    assert (record.status, record.flaky, record.message) == ("passed", True, None)
    assert record.traceback.startswith("Error: first try")


def test_suite_error_next_to_passing_tests_is_visible():
    # e.g. an afterAll that throws: the tests passed but the file failed with a message
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "  ● Test suite failed to run\n\n    afterAll exploded\n",
            "assertionResults": [case("t")],
        }
    )
    records = by_id(parse_jest_json(data, root="/r"))
    assert records["a.test.js > t"].status == "passed"
    assert records["a.test.js"].status == "error"
    assert records["a.test.js"].message == "a.test.js: test suite failed to run: afterAll exploded"


def test_markers_from_title_tags():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [
                case("rejects empty input @error", ancestors=["cli @functionality"])
            ],
        }
    )
    record = parse_jest_json(data, root="/r").records[0]
    assert record.id == "a.test.js > cli @functionality > rejects empty input @error"
    assert record.markers == ["functionality", "error"]


def test_run_level_problems_are_reported():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [case("t")],
        },
        numRuntimeErrorTestSuites=1,
        wasInterrupted=True,
    )
    errors = parse_jest_json(data, root="/r").errors
    assert errors == [
        "jest says the run was interrupted; the report may be incomplete",
        ("jest counts 1 test suite(s) that failed to run, but only 0 appear in the report"),
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "jest JSON report is not valid JSON"),
        (b'"text"', "jest JSON report is not a JSON object"),
        (b'{"testResults": {}}', "jest JSON report has no `testResults` list"),
        (
            report_of({"name": "/r/a.test.js", "assertionResults": [{"title": "t", "status": 3}]}),
            (
                "jest JSON report: testResults.0.assertionResults.0.status: "
                "Input should be a valid string"
            ),
        ),
    ],
)
def test_unusable_reports_raise_report_error(data, reason):
    with pytest.raises(ReportError) as caught:
        parse_jest_json(data)
    assert str(caught.value).startswith(reason)
