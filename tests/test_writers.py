"""JUnit XML and CTRF writers: round-trips through junitparser and our own readers, and the
CTRF output validated against the official schema (tests/fixtures/ctrf.schema.json)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, Skipped, xunit2

from runners.model.results import ExecutionResult, GroupType, TestResult
from runners.outputs.writers import write_ctrf, write_junit
from runners.parsers.ctrf import parse_ctrf
from runners.parsers.junit import parse_junit

SCHEMA = json.loads((Path(__file__).parent / "fixtures" / "ctrf.schema.json").read_text())
STARTED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def result(checkpoint: str = "checkpoint_2", **kw) -> ExecutionResult:
    tests = [
        TestResult(
            id="tests/test_checkpoint_2.py::test_add",
            name="test_add",
            checkpoint=checkpoint,
            group_type=GroupType.CORE,
            status="passed",
            raw_status="passed",
            duration_ms=12.6,
            file_path="tests/test_checkpoint_2.py",
            line=3,
            stdout="hi\n\x1b[31mred\x1b[0m\x00",
        ),
        TestResult(
            id="tests/test_checkpoint_2.py::test_bad_input",
            name="test_bad_input",
            checkpoint=checkpoint,
            group_type=GroupType.ERROR,
            status="failed",
            raw_status="failed",
            duration_ms=0.4,
            markers=["error"],
            failure_message="AssertionError: exit code 0\nassert 0 == 2",
            traceback="def test_bad_input():\n>   assert 0 == 2 <&>",
            stderr="oops",
        ),
        TestResult(
            id="tests/test_checkpoint_2.py::test_setup",
            name="test_setup",
            checkpoint=checkpoint,
            group_type=GroupType.FUNCTIONALITY,
            status="error",
            raw_status="setup_failed",
            markers=["functionality"],
            failure_message="[setup] RuntimeError: fixture exploded",
        ),
        TestResult(
            id="tests/test_broken.py",
            name="tests/test_broken.py (collection error)",
            checkpoint=checkpoint,
            group_type=GroupType.CORE,
            status="error",
            raw_status="collection_error",
            failure_message="collection error in tests/test_broken.py",
            file_path="tests/test_broken.py",
            collection_error=True,
        ),
        TestResult(
            id="tests/test_checkpoint_2.py::test_later",
            name="test_later",
            checkpoint=checkpoint,
            group_type=GroupType.CORE,
            status="skipped",
            raw_status="xfailed",
            failure_message="xfail: known bug",
        ),
        TestResult(
            id="tests/test_checkpoint_1.py::test_old",
            name="test_old",
            checkpoint="checkpoint_1",
            group_type=GroupType.REGRESSION,
            status="passed",
            raw_status="rerun",
            duration_ms=2.0,
            attempts=2,
            flaky=True,
            file_path="tests/test_checkpoint_1.py",
        ),
    ]
    return ExecutionResult(
        problem_name="inventory_cli",
        checkpoint_name=checkpoint,
        tests=tests,
        started_at=STARTED,
        duration=1.25,
        **kw,
    )


def infra_failure() -> ExecutionResult:
    return ExecutionResult(
        problem_name="inventory_cli",
        checkpoint_name="checkpoint_3",
        started_at=STARTED,
        duration=0.5,
        infrastructure_failure=True,
        infrastructure_reason="pytest exited 2 (interrupted)",
        errors=["collection error in tests/test_checkpoint_3.py"],
        stderr="ERROR collecting tests/test_checkpoint_3.py",
    )


def validate(path: Path) -> dict:
    document = json.loads(path.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(
        SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(document)]
    assert errors == []
    return document


# ---- JUnit -------------------------------------------------------------------------------------


def test_junit_round_trip_counts(tmp_path):
    path = write_junit([result(), infra_failure()], tmp_path / "deep" / "dir" / "junit.xml")
    assert path == tmp_path / "deep" / "dir" / "junit.xml"  # parent directories created
    xml = xunit2.JUnitXml.fromfile(str(path))
    suites = {s.name: s for s in xml}
    assert list(suites) == ["inventory_cli/checkpoint_2", "inventory_cli/checkpoint_3"]
    suite = suites["inventory_cli/checkpoint_2"]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (6, 1, 2, 1)
    assert suite.time == 1.25
    counts = Counter(type(r).__name__ for c in suite for r in c.result)
    assert counts == {"Failure": 1, "Error": 2, "Skipped": 1}
    assert (xml.tests, xml.failures, xml.errors) == (7, 1, 3)


def test_junit_testcase_fields(tmp_path):
    path = write_junit(result(), tmp_path / "junit.xml")
    suite = next(iter(xunit2.JUnitXml.fromfile(str(path))))
    cases = {c.name: c for c in suite}
    passed = cases["tests/test_checkpoint_2.py::test_add"]
    assert (passed.classname, passed.time, passed.result) == ("Core", 0.0126, [])
    assert {p.name: p.value for p in passed.properties()} == {"group": "Core"}
    assert passed.system_out == "hi\nred\ufffd"  # ANSI codes dropped, NUL replaced: still XML
    assert passed._elem.get("file") == "tests/test_checkpoint_2.py"
    assert passed._elem.get("line") == "3"

    failed = cases["tests/test_checkpoint_2.py::test_bad_input"]
    failure = failed.result[0]
    assert isinstance(failure, Failure) and failure.message == "AssertionError: exit code 0"
    assert failure.text == (
        "AssertionError: exit code 0\nassert 0 == 2\n\ndef test_bad_input():\n>   assert 0 == 2 <&>"
    )
    assert failed.system_err == "oops"
    assert {p.name: p.value for p in failed.properties()} == {"group": "Error", "markers": "error"}

    error = cases["tests/test_broken.py"].result[0]
    assert isinstance(error, Error) and error.type == "collection_error"
    skipped = cases["tests/test_checkpoint_2.py::test_later"].result[0]
    assert isinstance(skipped, Skipped) and skipped.message == "xfail: known bug"
    flaky = cases["tests/test_checkpoint_1.py::test_old"]
    assert (flaky.classname, flaky.result) == ("Regression", [])
    assert {p.name: p.value for p in flaky.properties()}["flaky"] == "true"
    assert {p.name: p.value for p in suite.properties()}["checkpoint"] == "checkpoint_2"


def test_junit_infrastructure_failure_is_a_visible_error(tmp_path):
    path = write_junit(infra_failure(), tmp_path / "junit.xml")
    suite = next(iter(xunit2.JUnitXml.fromfile(str(path))))
    (case,) = list(suite)
    assert (case.name, case.classname) == ("infrastructure failure", "infrastructure")
    error = case.result[0]
    assert isinstance(error, Error)
    assert error.message == "infrastructure failure: pytest exited 2 (interrupted)"
    assert error.text == (
        "pytest exited 2 (interrupted)\ncollection error in tests/test_checkpoint_3.py"
    )
    assert case.system_err == "ERROR collecting tests/test_checkpoint_3.py"
    assert (suite.tests, suite.errors) == (1, 1)


def test_junit_is_read_back_by_our_parser(tmp_path):
    path = write_junit(result(), tmp_path / "junit.xml")
    report = parse_junit(path.read_bytes())
    assert Counter(r.status for r in report.records) == {
        "passed": 2,
        "failed": 1,
        "error": 2,
        "skipped": 1,
    }
    records = {r.id: r for r in report.records}
    assert records["Error::tests/test_checkpoint_2.py::test_bad_input"].markers == ["error"]
    add = records["Core::tests/test_checkpoint_2.py::test_add"]
    assert add.file == "tests/test_checkpoint_2.py"
    assert report.collected == 6


# ---- CTRF --------------------------------------------------------------------------------------


def test_ctrf_is_valid_against_the_official_schema(tmp_path):
    path = write_ctrf([result(), infra_failure()], tmp_path / "a" / "b" / "ctrf.json")
    assert path.parent.is_dir()
    document = validate(path)
    assert document["reportFormat"] == "CTRF" and document["specVersion"] == "1.0.0"
    assert document["results"]["tool"] == {"name": "pytest"}


def test_ctrf_summary_and_tests(tmp_path):
    document = validate(write_ctrf(result(), tmp_path / "ctrf.json"))
    summary = document["results"]["summary"]
    assert {
        k: summary[k]
        for k in ("tests", "passed", "failed", "skipped", "pending", "other", "flaky", "suites")
    } == {
        "tests": 6,
        "passed": 2,
        "failed": 3,
        "skipped": 1,
        "pending": 0,
        "other": 0,
        "flaky": 1,
        "suites": 1,
    }
    assert summary["start"] == 1767323045000 and summary["stop"] == 1767323046250
    tests = {t["name"]: t for t in document["results"]["tests"]}
    add = tests["tests/test_checkpoint_2.py::test_add"]
    assert (add["status"], add["duration"], add["filePath"], add["line"]) == (
        "passed",
        13,
        "tests/test_checkpoint_2.py",
        3,
    )
    assert add["suite"] == ["checkpoint_2", "Core"]
    assert add["stdout"] == ["hi", "\x1b[31mred\x1b[0m\x00"]
    assert add["extra"] == {
        "group": "Core",
        "checkpoint": "checkpoint_2",
        "problem": "inventory_cli",
        "test_checkpoint": "checkpoint_2",
    }
    bad = tests["tests/test_checkpoint_2.py::test_bad_input"]
    assert (bad["status"], bad["rawStatus"], bad["tags"], bad["duration"]) == (
        "failed",
        "failed",
        ["error"],
        0,
    )
    assert bad["message"] == "AssertionError: exit code 0\nassert 0 == 2"
    assert bad["trace"].startswith("def test_bad_input():")
    setup = tests["tests/test_checkpoint_2.py::test_setup"]
    assert (setup["status"], setup["rawStatus"], setup["extra"]["raw_status"]) == (
        "failed",
        "error",
        "setup_failed",
    )
    broken = tests["tests/test_broken.py"]
    assert broken["extra"]["collection_error"] is True
    old = tests["tests/test_checkpoint_1.py::test_old"]
    assert (old["flaky"], old["retries"], old["suite"]) == (True, 1, ["checkpoint_2", "Regression"])
    assert old["extra"]["test_checkpoint"] == "checkpoint_1"
    assert tests["tests/test_checkpoint_2.py::test_later"]["status"] == "skipped"


def test_ctrf_infrastructure_failure_and_several_frameworks(tmp_path):
    vitest = result("checkpoint_1", framework="vitest")
    document = validate(write_ctrf([vitest, infra_failure()], tmp_path / "ctrf.json"))
    assert document["results"]["tool"]["name"] == "pytest+vitest"
    tests = document["results"]["tests"]
    (infra,) = [t for t in tests if t["rawStatus"] == "infrastructure_failure"]
    assert (infra["name"], infra["status"], infra["message"]) == (
        "inventory_cli/checkpoint_3: infrastructure failure",
        "failed",
        "pytest exited 2 (interrupted)",
    )
    runs = document["results"]["extra"]["runs"]
    assert [(r["checkpoint"], r["infrastructure_failure"]) for r in runs] == [
        ("checkpoint_1", False),
        ("checkpoint_3", True),
    ]
    assert document["results"]["summary"]["suites"] == 2


def test_ctrf_is_read_back_by_our_parser(tmp_path):
    path = write_ctrf(result(), tmp_path / "ctrf.json")
    report = parse_ctrf(path.read_bytes())
    records = {r.id: r for r in report.records}
    original = {t.id: t for t in result().tests}
    assert set(records) == set(original)
    for test_id, test in original.items():
        assert records[test_id].status == test.status
        assert records[test_id].collection_error == test.collection_error
    assert (
        records["tests/test_checkpoint_1.py::test_old"].attempts,
        records["tests/test_checkpoint_1.py::test_old"].flaky,
    ) == (2, True)


def test_ctrf_empty_result_is_still_valid(tmp_path):
    empty = ExecutionResult(problem_name="p", checkpoint_name="checkpoint_1", started_at=STARTED)
    document = validate(write_ctrf(empty, tmp_path / "ctrf.json"))
    assert document["results"]["summary"]["tests"] == 0
    assert document["results"]["tests"] == []


@pytest.mark.parametrize("writer", [write_junit, write_ctrf])
def test_writers_accept_str_paths(tmp_path, writer):
    target = tmp_path / "x" / "out"
    assert writer(result(), str(target)) == target
    assert target.stat().st_size > 0
