"""`go test -json` events -> records, on reports captured from real go test runs (Go 1.19):
tests/fixtures/reports/go/."""

from __future__ import annotations

from pathlib import Path

import pytest

from runners.parsers.go_json import go_test_functions, parse_go_json
from runners.parsers.report_file import ReportError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "reports" / "go"


def parse(name: str, files: dict[str, str] | None = None):
    return parse_go_json((FIXTURES / name).read_bytes(), files)


def test_statuses_markers_and_messages_of_a_mixed_run():
    files = {
        "TestCore_Hello": "checkpoint_1_test.go",
        "TestError_Fails": "checkpoint_1_test.go",
        "TestSub": "checkpoint_2_test.go",
    }
    report = parse("mixed.json", files)
    got = {r.id: (r.status, r.markers) for r in report.records}
    assert got == {
        "tests/checkpoint_1_test.go::TestCore_Hello": ("passed", ["core"]),
        "tests/checkpoint_1_test.go::TestError_Fails": ("failed", ["error"]),
        # subtests stand for their parent; "@error negative" is written @error_negative by go
        "tests/checkpoint_2_test.go::TestSub/@error_negative": ("passed", ["error"]),
        "tests/checkpoint_2_test.go::TestSub/plain": ("skipped", []),
    }
    failed = next(r for r in report.records if r.status == "failed")
    # the test's own log lines, without === RUN / --- FAIL
    assert (
        failed.message == "checkpoint_1_test.go:10: some output\n    checkpoint_1_test.go:10: boom"
    )
    assert failed.file == "tests/checkpoint_1_test.go" and report.collected == 4


def test_a_parent_that_fails_on_its_own_is_kept_and_a_test_the_binary_died_in_is_an_error():
    report = parse("crash.json")
    got = {r.id: r.status for r in report.records}
    assert got == {
        "tests::TestFirst": "passed",
        "tests::TestParent/ok": "passed",
        "tests::TestParent": "failed",
        "tests::TestExits": "error",
    }
    exited = next(r for r in report.records if r.id == "tests::TestExits")
    assert "never finished" in exited.message and "FAIL\thiddentests" in exited.message


def test_a_panicking_subtest_fails_with_its_stack_and_its_parent_is_not_counted_twice():
    report = parse("panic.json")
    assert [(r.id, r.status) for r in report.records] == [("tests::TestPanics/inner", "failed")]
    assert "assignment to entry in nil map" in report.records[0].message


def test_a_package_that_did_not_build_gives_no_test_and_keeps_go_s_words():
    report = parse("setup-failed.txt")
    assert report.records == [] and report.errors == ["FAIL\thiddentests [setup failed]"]


def test_a_line_that_is_json_but_not_an_event_is_refused_with_its_line_number():
    with pytest.raises(ReportError, match="line 2: not a test2json event"):
        parse_go_json(b'{"Action":"run","Package":"p","Test":"TestA"}\n{"Test": 3}\n')


def test_test_functions_are_read_from_the_source():
    source = (
        'package p\n\nimport "testing"\n\n'
        "func TestA(t *testing.T) {}\nfunc helper(t *testing.T) {}\n"
        "func TestB(tt *testing.T) {\n}\nfunc BenchmarkC(b *testing.B) {}\n"
    )
    assert go_test_functions(source) == ["TestA", "TestB"]
