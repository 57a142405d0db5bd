"""vitest `--reporter=json` parser, on real vitest 3.2.7 / 4.1.12 output and small hand-made
reports for cases the samples do not show."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from runners.parsers.report_file import ReportError
from runners.parsers.vitest_json import parse_vitest_json

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
ROOTS = {"vitest3-json.json": "/project/js/v3", "vitest4-json.json": "/project/js/v4"}


def parse(name: str):
    return parse_vitest_json((REPORTS / name).read_bytes(), root=ROOTS[name])


def by_id(report) -> dict[str, Any]:
    return {r.id: r for r in report.records}


def report_of(*files: dict[str, Any], **top: Any) -> str:
    return json.dumps({"testResults": list(files), **top})


def case(title: str, status: str = "passed", ancestors: list[str] | None = None, **extra: Any):
    return {
        "ancestorTitles": ancestors or [],
        "title": title,
        "status": status,
        "failureMessages": [],
        **extra,
    }


# ---- the real samples ---------------------------------------------------------------------------


def test_vitest3_counts_per_status():
    report = parse("vitest3-json.json")
    # 17 tests + 3 files that failed to load + 1 describe whose beforeAll failed
    assert len(report.records) == 21
    assert Counter(r.status for r in report.records) == {
        "passed": 9,
        "failed": 4,
        "skipped": 4,
        "error": 4,
    }
    assert report.collected == 17
    assert report.errors == []


def test_vitest4_counts_per_status_and_tags():
    report = parse("vitest4-json.json")
    assert len(report.records) == 22
    assert Counter(r.status for r in report.records) == {
        "passed": 10,
        "failed": 4,
        "skipped": 4,
        "error": 4,
    }
    tagged = by_id(report)["tests/tagged.test.js > tagged test"]
    assert tagged.markers == ["db", "slow"]
    assert by_id(report)["tests/main.test.js > top level pass"].markers == []


def test_ids_are_relative_file_describes_and_title():
    records = by_id(parse("vitest3-json.json"))
    nested = records["tests/main.test.js > outer suite > inner suite > nested throws"]
    assert nested.file == "tests/main.test.js"
    assert nested.name == "outer suite > inner suite > nested throws"
    assert nested.message == "TypeError: bad type"
    assert "main.test.js:19:39" in nested.traceback
    # test.each `$name` titles are kept as vitest renders them (quoted)
    assert "tests/main.test.js > outer suite > object 'alpha'" in records


def test_duplicate_titles_get_an_ordinal():
    records = by_id(parse("vitest3-json.json"))
    assert records["tests/main.test.js > same name"].duration_ms == 0.058
    assert records["tests/main.test.js > same name #2"].duration_ms == 0.164
    assert "tests/main.test.js > same name #3" not in records


def test_without_root_paths_stay_absolute():
    report = parse_vitest_json((REPORTS / "vitest3-json.json").read_bytes())
    assert "/project/js/v3/tests/main.test.js > top level pass" in by_id(report)


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_files_that_fail_to_load_become_collection_errors(name):
    records = by_id(parse(name))
    for file, text in [
        ("tests/broken.test.js", "Cannot find module './does-not-exist.js'"),
        ("tests/syntax.test.js", "Parse failure"),
        ("tests/throws_at_load.test.js", "module top-level explosion"),
    ]:
        record = records[file]
        assert record.status == "error"
        assert record.collection_error is True
        assert record.raw_status == "collection_error"
        assert record.file == file
        assert record.message.startswith(f"{file} failed to load: ")
        assert text in record.message
        assert "0 failed" not in record.message


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_failing_before_all_is_visible(name):
    records = by_id(parse(name))
    # vitest marks the hook's tests skipped and keeps the error nowhere in the JSON
    assert records["tests/hookfail.test.js > with failing beforeAll > a"].status == "skipped"
    assert records["tests/hookfail.test.js > with failing beforeAll > b"].status == "skipped"
    hook = records["tests/hookfail.test.js > with failing beforeAll"]
    assert hook.status == "error"
    assert hook.raw_status == "suite_error"
    assert hook.collection_error is True
    assert "suite-level hook" in hook.message
    assert hook.message.startswith("tests/hookfail.test.js > with failing beforeAll")
    # the failing afterEach shows on its test
    after_each = records["tests/hookfail.test.js > with failing afterEach > c"]
    assert after_each.status == "failed"
    assert after_each.message == "Error: afterEach exploded"


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_retried_test_stays_passed_and_is_flaky(name):
    record = by_id(parse(name))["tests/main.test.js > flaky with retry"]
    assert record.status == "passed"
    assert record.flaky is True
    assert record.attempts == 2
    assert record.message is None
    assert "first attempt fails 1" in record.traceback


def test_statuses_keep_the_raw_word():
    records = by_id(parse("vitest3-json.json"))
    assert (
        records["tests/main.test.js > todo test"].status,
        records["tests/main.test.js > todo test"].raw_status,
    ) == ("skipped", "todo")
    assert records["tests/main.test.js > skipped test"].raw_status == "skipped"
    # test.fails that failed as expected
    assert records["tests/main.test.js > expected to fail"].status == "passed"


def test_durations_are_float_ms_and_none_when_absent():
    records = by_id(parse("vitest3-json.json"))
    assert records["tests/main.test.js > top level pass"].duration_ms == 2.199
    assert records["tests/main.test.js > skipped test"].duration_ms is None
    assert records["tests/main.test.js > todo test"].duration_ms is None
    assert records["tests/main.test.js > top level pass"].line is None  # no includeTaskLocation


# ---- hand-made reports ------------------------------------------------------------------------


def test_pending_status_is_skipped_and_unknown_status_is_an_error():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [
                case("p", "pending"),
                case("q", "running"),
                case("f", "failed", failureMessages=["Error: x"]),
            ],
        }
    )
    records = by_id(parse_vitest_json(data, root="/r"))
    pending = records["a.test.js > p"]
    assert (pending.status, pending.raw_status) == ("skipped", "pending")
    assert records["a.test.js > q"].status == "error"
    assert records["a.test.js > q"].raw_status == "running"


def test_markers_from_title_tags_and_vitest_tags():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [
                case("rejects empty input @error", ancestors=["parser @functionality"]),
                case("mail to a@b.com works"),
                case("both", tags=["db"], ancestors=["[@regression]"]),
            ],
        }
    )
    records = parse_vitest_json(data, root="/r").records
    assert records[0].id == "a.test.js > parser @functionality > rejects empty input @error"
    assert records[0].markers == ["functionality", "error"]
    assert records[1].markers == []
    assert records[2].markers == ["db", "regression"]


def test_location_gives_the_line():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [case("x", location={"line": 13, "column": 6})],
        }
    )
    assert parse_vitest_json(data, root="/r").records[0].line == 13


def test_failed_file_without_failing_test_or_message_gets_a_hook_record():
    # beforeAll at file level: every test skipped, file failed, message ""
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [case("x", "skipped"), case("y", "skipped")],
        },
        numFailedTestSuites=1,
    )
    records = by_id(parse_vitest_json(data, root="/r"))
    hook = records["a.test.js"]
    assert hook.status == "error"
    assert hook.collection_error is True
    assert hook.message == (
        "a.test.js failed but none of its tests did: a suite-level hook "
        "(beforeAll/afterAll) failed; the report does not include its error"
    )
    assert Counter(r.status for r in records.values()) == {"skipped": 2, "error": 1}


def test_failed_file_with_passing_tests_and_a_message_keeps_the_message():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "afterAll exploded",
            "assertionResults": [case("x", ancestors=["d @error"])],
        }
    )
    hook = by_id(parse_vitest_json(data, root="/r"))["a.test.js"]
    assert hook.message.endswith(": afterAll exploded")
    assert hook.traceback == "afterAll exploded"


def test_file_with_no_tests_and_no_message_is_still_an_error():
    data = report_of(
        {"name": "/r/a.test.js", "status": "failed", "message": "", "assertionResults": []}
    )
    record = parse_vitest_json(data, root="/r").records[0]
    assert (record.id, record.status, record.collection_error) == ("a.test.js", "error", True)
    assert record.message == "a.test.js failed to load: no message in the report"


def test_unexplained_failed_suite_without_a_candidate_is_a_report_error():
    # an afterAll failed in "d" next to a failing test elsewhere: nothing to pin it on
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [
                case("x", ancestors=["d"]),
                case("y", "failed", failureMessages=["Error: y"]),
            ],
        },
        numFailedTestSuites=2,
    )
    report = parse_vitest_json(data, root="/r")
    assert [r.id for r in report.records] == ["a.test.js > d > x", "a.test.js > y"]
    assert len(report.errors) == 1
    assert "1 failed suite(s)" in report.errors[0]


def test_describe_skip_is_not_reported_when_suite_counts_agree():
    data = report_of(
        {
            "name": "/r/a.test.js",
            "status": "failed",
            "message": "",
            "assertionResults": [
                case("x", "skipped", ancestors=["skipped block"]),
                case("y", "failed", failureMessages=["Error: y"]),
            ],
        },
        numFailedTestSuites=1,
    )
    report = parse_vitest_json(data, root="/r")
    assert [r.status for r in report.records] == ["skipped", "failed"]
    assert report.errors == []


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"{not json", "vitest JSON report is not valid JSON"),
        (b"[]", "vitest JSON report is not a JSON object"),
        (b'{"numTotalTests": 3}', "vitest JSON report has no `testResults` list"),
        (
            report_of({"name": "/r/a.test.js", "assertionResults": [{"status": "passed"}]}),
            "vitest JSON report: testResults.0.assertionResults.0.title: Field required",
        ),
        (
            report_of({"assertionResults": []}),
            "vitest JSON report: testResults.0.name: Field required",
        ),
    ],
)
def test_unusable_reports_raise_report_error(data, reason):
    with pytest.raises(ReportError) as caught:
        parse_vitest_json(data)
    assert str(caught.value).startswith(reason)
