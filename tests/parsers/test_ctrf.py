"""CTRF reader, on real pytest-json-ctrf / jest-ctrf / vitest-ctrf output (two of which break the
schema) and hand-made reports for retries, statuses and refusals."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from runners.parsers.ctrf import parse_ctrf
from runners.parsers.jest_json import parse_jest_json
from runners.parsers.report_file import ReportError

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"


def parse(name: str, root: str | None = None):
    return parse_ctrf((REPORTS / name).read_bytes(), root=root)


def by_id(report) -> dict[str, Any]:
    return {r.id: r for r in report.records}


def ctrf(*tests: dict[str, Any], **results: Any) -> dict[str, Any]:
    return {
        "reportFormat": "CTRF",
        "specVersion": "1.0.0",
        "results": {"tool": {"name": "x"}, "tests": list(tests), **results},
    }


# ---- pytest-json-ctrf --------------------------------------------------------------------------


def test_pytest_ctrf_counts_and_ids():
    report = parse("pytest-json-ctrf.json")
    assert len(report.records) == 20
    assert Counter(r.status for r in report.records) == {
        "passed": 11,
        "failed": 4,
        "skipped": 3,
        "error": 2,
    }
    assert report.collected == 20
    records = by_id(report)
    # the nodeid is the id, params with spaces, slashes and brackets included
    method = records["tests/test_main.py::TestClass::test_method_param[0.5]"]
    assert (method.name, method.file) == ("TestClass::test_method_param[0.5]", "tests/test_main.py")
    assert "tests/test_main.py::test_param_ids[two/with[brackets]]" in records


def test_pytest_ctrf_raw_statuses():
    records = by_id(parse("pytest-json-ctrf.json"))
    setup = records["tests/test_main.py::test_setup_error"]
    assert (setup.status, setup.raw_status, setup.message) == (
        "error",
        "setup_failed",
        "RuntimeError: fixture exploded",
    )
    assert records["tests/test_main.py::test_teardown_error"].status == "error"
    xfail = records["tests/test_main.py::test_xfail"]
    assert (xfail.status, xfail.raw_status) == ("skipped", "xfailed")
    fail = records["tests/test_main.py::test_fail"]
    assert (fail.status, fail.raw_status) == ("failed", "call_failed")
    assert fail.message == "AssertionError: numbers differ\nassert 1 == 2"


def test_pytest_ctrf_tags_become_plain_markers():
    records = by_id(parse("pytest-json-ctrf.json"))
    assert records["tests/test_main.py::test_param[2-3]"].markers == ["smoke", "slow"]
    # "xfail::reason_known bug" -> "xfail"
    assert records["tests/test_main.py::test_xfail"].markers == ["xfail"]
    assert records["tests/test_main.py::test_skip"].markers == []  # skip-marked tests get no tags


def test_pytest_ctrf_rerun_is_flaky():
    record = by_id(parse("pytest-json-ctrf.json"))["tests/test_main.py::test_flaky"]
    # retries: 1, retryAttempts holds only the failed first attempt
    assert (record.status, record.attempts, record.flaky) == ("passed", 2, True)
    assert record.markers == ["flaky"]


def test_pytest_ctrf_collection_interrupted_is_empty():
    report = parse("pytest-json-ctrf.collection-interrupted.json")
    assert report.records == []
    assert report.collected == 0


# ---- jest-ctrf-json-reporter (string suite, specVersion 0.0.0, absolute paths) ---------------


def test_jest_ctrf_is_read_despite_schema_errors():
    report = parse("jest-ctrf-json-reporter-0.0.11.json", root="/project/js/jest")
    assert len(report.records) == 17
    assert Counter(r.status for r in report.records) == {"passed": 9, "failed": 6, "skipped": 2}
    records = by_id(report)
    nested = records["tests/main.test.js > outer suite > inner suite > nested pass"]
    assert (nested.name, nested.file) == ("nested pass", "tests/main.test.js")
    pending = records["tests/main.test.js > skipped test"]
    todo = records["tests/main.test.js > todo test"]
    assert (pending.status, pending.raw_status) == ("skipped", "pending")
    assert (todo.status, todo.raw_status) == ("skipped", "todo")  # status "other"
    retry = records["tests/retry.test.js > flaky with retry"]
    assert (retry.attempts, retry.flaky) == (2, True)
    assert records["tests/main.test.js > top level pass"].traceback is None  # trace: ""


def test_jest_ctrf_ids_match_the_jest_json_ids():
    ctrf = parse("jest-ctrf-json-reporter-0.0.11.json", root="/project/js/jest")
    ctrf_ids = {r.id for r in ctrf.records}
    jest = parse_jest_json((REPORTS / "jest30-json.json").read_bytes(), root="/project/js/jest")
    # jest-ctrf drops the 3 suites that failed to run; every real test matches
    assert ctrf_ids == {r.id for r in jest.records if not r.collection_error}


# ---- vitest-ctrf-json-reporter (no reportFormat/specVersion, float durations) -----------------


def test_vitest_ctrf_truncated_report_is_read():
    report = parse("vitest3-ctrf-json-reporter-0.0.3.truncated.json")
    assert [(r.id, r.status, r.raw_status) for r in report.records] == [
        ("tests/hookfail.test.js > a", "skipped", "skip"),
        ("tests/hookfail.test.js > b", "skipped", "skip"),
        ("tests/hookfail.test.js > c", "failed", "fail"),
    ]
    assert report.records[2].duration_ms == 0.842
    assert report.records[2].message == "afterEach exploded"
    assert report.records[0].message is None  # message: ""


# ---- hand-made reports ------------------------------------------------------------------------


def test_unknown_status_falls_back_to_raw_status():
    report = parse_ctrf(
        ctrf(
            {"name": "a", "status": "weird", "rawStatus": "pass", "duration": 1},
            {"name": "b", "status": "weird", "rawStatus": "fail", "duration": 1},
            {"name": "c", "status": "weird", "duration": 1},
            {"name": "d", "status": "failed", "rawStatus": "error", "duration": 1},
        )
    )
    assert [(r.status, r.raw_status) for r in report.records] == [
        ("passed", "pass"),
        ("failed", "fail"),
        ("error", "weird"),
        ("error", "error"),
    ]


def test_retry_attempts_with_and_without_the_final_attempt():
    spec_example = {
        "name": "a",
        "status": "passed",
        "duration": 3,
        "retries": 2,
        "flaky": True,
        "retryAttempts": [
            {"attempt": 1, "status": "failed"},
            {"attempt": 2, "status": "failed"},
            {"attempt": 3, "status": "passed"},
        ],
    }
    no_retries = {
        "name": "b",
        "status": "passed",
        "duration": 3,
        "retryAttempts": [{"attempt": 1, "status": "failed"}],
    }
    final_listed = {
        "name": "c",
        "status": "failed",
        "duration": 3,
        "retryAttempts": [{"attempt": 1, "status": "failed"}, {"attempt": 2, "status": "failed"}],
    }
    flag_on_failure = {"name": "d", "status": "failed", "duration": 3, "flaky": True, "retries": 1}
    records = by_id(parse_ctrf(ctrf(spec_example, no_retries, final_listed, flag_on_failure)))
    assert (records["a"].attempts, records["a"].flaky) == (3, True)
    assert (records["b"].attempts, records["b"].flaky) == (2, True)  # failed attempt, then passed
    assert (records["c"].attempts, records["c"].flaky) == (2, False)
    assert (records["d"].attempts, records["d"].flaky) == (2, False)  # flaky needs a final pass


def test_suite_array_file_path_tags_lines_and_output():
    report = parse_ctrf(
        ctrf(
            {
                "name": "logs in @functionality",
                "status": "passed",
                "duration": 2.6,
                "suite": ["auth", "login"],
                "filePath": "/w/t/login.test.ts",
                "line": 7,
                "tags": ["smoke"],
                "stdout": ["a", "b"],
                "stderr": ["e"],
            }
        ),
        root="/w",
    )
    record = report.records[0]
    assert record.id == "t/login.test.ts > auth > login > logs in @functionality"
    assert (record.file, record.line, record.duration_ms) == ("t/login.test.ts", 7, 2.6)
    assert record.markers == ["smoke", "functionality"]
    assert (record.stdout, record.stderr) == ("a\nb", "e")


def test_duplicate_names_get_an_ordinal_and_nameless_tests_are_reported():
    report = parse_ctrf(
        ctrf(
            {"name": "same", "status": "passed", "duration": 0},
            {"name": "same", "status": "failed", "duration": 0},
            {"status": "passed", "duration": 0},
            summary={"tests": 4},
        )
    )
    assert [r.id for r in report.records] == ["same", "same #2"]
    assert report.errors == [
        "CTRF results.tests[2] has no name and was ignored",
        "CTRF summary counts 4 tests but the report lists 3: the report may be truncated",
    ]


def test_test_id_wins_when_present():
    report = parse_ctrf(
        ctrf({"name": "x", "testId": "a.test.ts::s::x", "status": "passed", "duration": 0})
    )
    assert report.records[0].id == "a.test.ts::s::x"


def test_collection_error_flag_survives_a_round_trip():
    report = parse_ctrf(
        ctrf(
            {
                "name": "tests/b.py",
                "status": "failed",
                "rawStatus": "error",
                "duration": 0,
                "filePath": "tests/b.py",
                "extra": {"collection_error": True},
            }
        )
    )
    record = report.records[0]
    assert (record.id, record.status, record.collection_error) == ("tests/b.py", "error", True)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"{", "CTRF report is not valid JSON"),
        (b"[1]", "CTRF report is not a JSON object"),
        (
            json.dumps({"reportFormat": "CTRF", "results": {}}),
            "CTRF report has no `results.tests` list",
        ),
        (
            json.dumps({**ctrf(), "specVersion": "2.0.0"}),
            "CTRF specVersion 2.0.0 is not supported (expected 0.x or 1.x)",
        ),
        (json.dumps({**ctrf(), "reportFormat": "JUnit"}), "CTRF report has reportFormat 'JUnit'"),
    ],
)
def test_unusable_reports_raise_report_error(data, reason):
    with pytest.raises(ReportError) as caught:
        parse_ctrf(data)
    assert str(caught.value).startswith(reason)
