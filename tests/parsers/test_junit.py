"""JUnit XML parser, on real pytest / vitest / jest-junit output and hand-made XML for the
variants the samples do not show (Surefire reruns, nesting, odd times, properties...)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import junitparser
import pytest
from junitparser import xunit2

from runners.parsers.junit import parse_junit
from runners.parsers.report_file import ReportError

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"


def parse(name: str, root: str | None = None):
    return parse_junit((REPORTS / name).read_bytes(), root=root)


def by_id(report) -> dict[str, Any]:
    return {r.id: r for r in report.records}


# ---- pytest ------------------------------------------------------------------------------------


def test_pytest_counts_per_status():
    report = parse("pytest-junit-xunit2-logging-all.xml")
    # 22 <testcase> elements, two of them the same rerun test
    assert len(report.records) == 21
    assert Counter(r.status for r in report.records) == {
        "passed": 11,
        "failed": 4,
        "skipped": 3,
        "error": 3,
    }
    assert report.collected == 21


def test_pytest_collection_failure_is_a_collection_error():
    record = by_id(parse("pytest-junit-xunit2-logging-all.xml"))["tests/test_broken_import.py"]
    assert (record.status, record.raw_status, record.collection_error) == (
        "error",
        "collection_error",
        True,
    )
    assert record.file == "tests/test_broken_import.py"
    assert record.message == (
        "tests/test_broken_import.py failed to load: "
        "ModuleNotFoundError: No module named 'nonexistent_module_xyz'"
    )
    assert "ImportError while importing test module" in record.traceback


def test_pytest_collection_interrupted():
    report = parse("pytest-junit.collection-interrupted.xml")
    assert [(r.id, r.status, r.collection_error) for r in report.records] == [
        ("tests/test_broken_import.py", "error", True)
    ]
    assert report.collected == 1


def test_pytest_outcomes_and_messages():
    records = by_id(parse("pytest-junit-xunit2-logging-all.xml"))
    fail = records["tests.test_main::test_fail"]
    assert (fail.status, fail.raw_status) == ("failed", "failure")
    assert fail.message == "AssertionError: numbers differ\nassert 1 == 2"
    assert fail.traceback.endswith("tests/test_main.py:10: AssertionError")
    assert records["tests.test_main::test_setup_error"].status == "error"
    assert records["tests.test_main::test_setup_error"].message == (
        'failed on setup with "RuntimeError: fixture exploded"'
    )
    assert records["tests.test_main::test_teardown_error"].status == "error"
    xfail = records["tests.test_main::test_xfail"]
    assert (xfail.status, xfail.raw_status, xfail.message) == ("skipped", "xfailed", "known bug")
    skip = records["tests.test_main::test_skip"]
    assert (skip.status, skip.raw_status, skip.message) == ("skipped", "skipped", "not ready")
    assert records["tests.test_main::test_xpass_strict"].status == "failed"
    assert records["tests.test_main::test_xpass"].status == "passed"


def test_pytest_ids_and_files():
    records = by_id(parse("pytest-junit-xunit2-logging-all.xml"))
    assert records["tests.test_main::test_param[x y-x y]"].file == "tests/test_main.py"
    assert records["tests.test_main::test_param_ids[two/with[brackets]]"].name == (
        "test_param_ids[two/with[brackets]]"
    )
    assert records["tests.test_main.TestClass::test_method"].file == "tests/test_main.py"
    assert records["tests.test_warn::test_warns"].file == "tests/test_warn.py"


def test_pytest_rerun_is_merged_and_flaky():
    records = by_id(parse("pytest-junit-xunit2-logging-all.xml"))
    flaky = records["tests.test_main::test_flaky"]
    assert (flaky.status, flaky.attempts, flaky.flaky) == ("passed", 2, True)
    assert records["tests.test_main::test_pass"].attempts == 1


def test_pytest_captured_output_without_section_headers():
    records = by_id(parse("pytest-junit-xunit2-logging-all.xml"))
    assert records["tests.test_main::test_pass"].stdout == "hello stdout"
    assert records["tests.test_main::test_pass"].stderr == "hello stderr"
    assert records["tests.test_main::test_fail"].stdout == "out before fail"
    # duplicated, empty blocks on skipped tests
    assert records["tests.test_main::test_skip"].stdout is None


def test_root_statistics_are_never_computed(monkeypatch):
    """Reading root stats on pytest's attribute-less <testsuites> rewrites every suite."""

    def refuse(self):
        raise AssertionError("update_statistics() called while parsing")

    for cls in (junitparser.JUnitXml, junitparser.TestSuite, xunit2.JUnitXml, xunit2.TestSuite):
        monkeypatch.setattr(cls, "update_statistics", refuse)
    assert len(parse("pytest-junit-xunit2-logging-all.xml").records) == 21


# ---- vitest ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "total", "passed"), [("vitest3-junit.xml", 21, 9), ("vitest4-junit.xml", 22, 10)]
)
def test_vitest_counts_per_status(name, total, passed):
    report = parse(name)
    assert len(report.records) == total
    assert Counter(r.status for r in report.records) == {
        "passed": passed,
        "failed": 4,
        "skipped": 4,
        "error": 4,
    }


@pytest.mark.parametrize("name", ["vitest3-junit.xml", "vitest4-junit.xml"])
def test_vitest_file_testcases_are_collection_errors(name):
    records = by_id(parse(name))
    for file in ("tests/broken.test.js", "tests/syntax.test.js", "tests/throws_at_load.test.js"):
        record = records[file]
        assert (record.status, record.collection_error, record.file) == ("error", True, file)
        assert record.message.startswith(f"{file} failed to load: ")
    assert "Cannot find module './does-not-exist.js'" in records["tests/broken.test.js"].message


@pytest.mark.parametrize("name", ["vitest3-junit.xml", "vitest4-junit.xml"])
def test_vitest_describe_testcase_carries_the_before_all_failure(name):
    records = by_id(parse(name))
    hook = records["tests/hookfail.test.js::with failing beforeAll"]
    assert (hook.status, hook.raw_status, hook.collection_error) == ("error", "suite_error", True)
    assert hook.message == (
        "tests/hookfail.test.js > with failing beforeAll: a suite-level hook "
        "(beforeAll/afterAll) failed: beforeAll exploded"
    )
    assert records["tests/hookfail.test.js::with failing beforeAll > a"].status == "skipped"


def test_vitest_details():
    records = by_id(parse("vitest3-junit.xml"))
    top = records["tests/main.test.js::top level pass"]
    assert (top.file, top.duration_ms, top.stdout, top.stderr) == (
        "tests/main.test.js",
        2.199,
        "log from pass",
        "err from pass",
    )
    assert records["tests/main.test.js::todo test"].status == "skipped"
    # two distinct tests with the same title: vitest never writes reruns as repeats
    assert records["tests/main.test.js::same name"].attempts == 1
    assert records["tests/main.test.js::same name #2"].duration_ms == 0.164
    nested = records["tests/main.test.js::outer suite > inner suite > nested throws"]
    assert nested.message == "bad type"


# ---- jest-junit --------------------------------------------------------------------------------


def test_jest_junit():
    report = parse("jest-junit-17.xml")
    records = by_id(report)
    assert len(report.records) == 17
    assert Counter(r.status for r in report.records) == {"passed": 10, "failed": 6, "skipped": 1}
    # leading-space classname/name (" top level pass") is trimmed; classname == name -> name
    assert "top level pass" in records
    assert records["todo test"].status == "passed"  # jest-junit writes todo as a plain pass
    fail = records["top level fail"]  # <failure> without a message attribute
    assert fail.message.startswith("Error: expect(received).toEqual(expected) // deep equality")
    assert "at Object.toEqual" not in fail.message
    assert "same name #2" in records


# ---- hand-made variants ------------------------------------------------------------------------


def xml(body: str, root: str = "testsuites", **attrs: str) -> bytes:
    attributes = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'<?xml version="1.0"?><{root}{attributes}>{body}</{root}>'.encode()


def test_root_testsuite_and_nesting_at_any_depth():
    data = xml(
        '<properties><property name="tags" value="slow"/></properties>'
        '<testcase classname="a" name="top"/>'
        '<testsuite name="b" file="/src/p/b_test.py">'
        '  <testsuite name="c"><testsuite name="d">'
        '    <testcase classname="d" name="deep"/></testsuite>'
        "  </testsuite></testsuite>",
        root="testsuite",
        name="a",
    )
    report = parse_junit(data, root="/src/p")
    assert [r.id for r in report.records] == ["a::top", "d::deep"]
    assert report.records[1].file == "b_test.py"  # inherited from the enclosing suite
    assert report.records[1].markers == ["slow"]  # suite properties apply to nested cases
    assert report.collected is None  # no `tests` attribute anywhere


def test_most_severe_result_wins():
    data = xml(
        '<testsuite name="s">'
        '<testcase classname="c" name="both">'
        '  <failure message="f"/><error message="e"/></testcase>'
        '<testcase classname="c" name="skip_and_fail">'
        '  <skipped/><failure message="f"/></testcase>'
        "</testsuite>"
    )
    records = by_id(parse_junit(data))
    assert (records["c::both"].status, records["c::both"].message) == ("error", "e\nf")
    assert records["c::skip_and_fail"].status == "failed"


def test_times_missing_and_with_thousands_separators():
    data = xml(
        '<testsuite name="s"><testcase classname="c" name="none"/>'
        '<testcase classname="c" name="big" time="1,234.5"/>'
        '<testcase classname="c" name="bad" time="soon"/></testsuite>'
    )
    records = by_id(parse_junit(data))
    assert records["c::none"].duration_ms is None
    assert records["c::big"].duration_ms == 1234500.0
    assert records["c::bad"].duration_ms is None


def test_repeated_testcases_are_reruns():
    data = xml(
        '<testsuite name="s">'
        '<testcase classname="c" name="healed"><failure message="first"/></testcase>'
        '<testcase classname="c" name="broke"/>'
        '<testcase classname="c" name="healed" time="0.5"/>'
        '<testcase classname="c" name="broke"><failure message="second"/></testcase>'
        "</testsuite>"
    )
    records = by_id(parse_junit(data))
    healed, broke = records["c::healed"], records["c::broke"]
    assert (healed.status, healed.attempts, healed.flaky, healed.duration_ms) == (
        "passed",
        2,
        True,
        500.0,
    )
    assert healed.traceback == "first"  # the earlier attempt's error, kept for debugging
    assert (broke.status, broke.attempts, broke.flaky, broke.message) == (
        "failed",
        2,
        False,
        "second",
    )
    assert list(records) == ["c::healed", "c::broke"]


def test_surefire_flaky_and_rerun_failures():
    data = xml(
        '<testcase classname="com.A" name="flaky" time="0.1">'
        '  <flakyFailure message="boom 1" type="AssertionError">'
        "    <stackTrace>at A.flaky(A.java:3)</stackTrace>"
        "    <system-out>attempt 1</system-out></flakyFailure>"
        '  <flakyError message="boom 2" type="IOException">'
        "    <stackTrace>at A.io</stackTrace></flakyError>"
        "</testcase>"
        '<testcase classname="com.A" name="broken" time="0.1">'
        '  <failure message="final" type="AssertionError">at A.broken(A.java:9)</failure>'
        '  <rerunFailure message="again" type="AssertionError">'
        "    <stackTrace>at A</stackTrace></rerunFailure>"
        "</testcase>",
        root="testsuite",
        name="com.A",
    )
    records = by_id(parse_junit(data))
    flaky = records["com.A::flaky"]
    assert (flaky.status, flaky.attempts, flaky.flaky, flaky.message) == ("passed", 3, True, None)
    assert flaky.traceback == "at A.flaky(A.java:3)\n\nat A.io"
    assert flaky.stdout is None  # the attempt's output is not the test's
    broken = records["com.A::broken"]
    assert (broken.status, broken.attempts, broken.flaky, broken.message) == (
        "failed",
        2,
        False,
        "final",
    )


def test_properties_and_title_tags_become_markers():
    data = xml(
        '<testsuite name="s"><testcase classname="c" name="rejects empty @error">'
        '<properties><property name="markers" value="functionality, slow"/>'
        '<property name="owner" value="me"/></properties></testcase></testsuite>'
    )
    record = parse_junit(data).records[0]
    assert record.id == "c::rejects empty @error"
    assert record.markers == ["functionality", "slow", "error"]


def test_file_and_line_attributes():
    data = xml(
        '<testsuite name="s">'
        '<testcase classname="" name="t" file="/w/tests/x.py" line="12"/></testsuite>'
    )
    record = parse_junit(data, root="/w").records[0]
    assert (record.id, record.file, record.line) == ("tests/x.py::t", "tests/x.py", 12)
    # pytest's xunit1 lines are 0-based
    pytest_data = xml(
        '<testsuite name="pytest"><testcase classname="tests.test_x" name="t" '
        'file="tests/test_x.py" line="11"/></testsuite>',
        name="pytest tests",
    )
    record = parse_junit(pytest_data).records[0]
    assert (record.id, record.file, record.line) == ("tests.test_x::t", "tests/test_x.py", 12)


def test_disabled_status_is_a_skip():
    data = xml(
        '<testsuite name="s"><testcase classname="c" name="off" status="disabled"/></testsuite>'
    )
    record = parse_junit(data).records[0]
    assert (record.status, record.raw_status) == ("skipped", "disabled")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "JUnit XML report is empty"),
        (b"<testsuites><testsuite>", "JUnit XML report is not well-formed XML"),
        (
            b"<html><body/></html>",
            "JUnit XML report has root <html>, expected <testsuites> or <testsuite>",
        ),
        (
            (
                b'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
                b'<testsuite><testcase name="n"><failure>&e;</failure></testcase></testsuite>'
            ),
            "JUnit XML report is not well-formed XML (undefined entity",
        ),
    ],
)
def test_unusable_reports_raise_report_error(data, reason):
    with pytest.raises(ReportError) as caught:
        parse_junit(data)
    assert str(caught.value).startswith(reason)
