"""What a user reads of a case that did not pass: SCBench-style DeepDiff reports as one line per
difference, and the table and the Promptfoo row showing why (a dead server, a crash's stderr)
besides the diff."""

from __future__ import annotations

from rich.console import Console

from runners.cases.model import CLIResult
from runners.cases.scoring import VerificationResult, score_case
from runners.model.results import ExecutionResult, TestResult
from runners.outputs.render import failures_table
from runners.promptfoo.output import headline

# DeepDiff(expected, actual).to_json() as SCBench's deepdiff_verify returns it (expected = old).
REPORT = {
    "values_changed": {
        "root['a']": {"new_value": 2, "old_value": 1},
        "root['text']": {
            "new_value": "x\nq",
            "old_value": "x\ny",
            "diff": "--- \n+++ \n@@ -1,2 +1,2 @@\n x\n-y\n+q",
        },
    },
    "type_changes": {
        "root['e']": {"old_type": "str", "new_type": "int", "old_value": "5", "new_value": 5}
    },
    "dictionary_item_added": ["root['extra']"],
    "dictionary_item_removed": ["root['odd key']"],
    "iterable_item_removed": {"root['words'][3]": "apple"},
    "iterable_item_added": {"root['words'][4]": "pear"},
}


def test_a_deepdiff_report_reads_one_line_per_difference():
    ids = {"id": "c", "group": "g", "group_type": "Core"}
    verdict = {"output": VerificationResult(diff=REPORT, is_correct=False, weight=2)}
    score = score_case(verdict, CLIResult(**ids, output="x"), CLIResult(**ids, output="y"))
    lines = [
        "output:",
        "  $.a: expected 1, got 2",
        "  $.text:",
        "    @@ -1,2 +1,2 @@",
        "     x",
        "    -y",
        "    +q",
        '  $.e: expected "5" (str), got 5 (int)',
        "  $.extra: unexpected",
        "  $['odd key']: missing",
        '  $.words[3]: missing "apple"',
        '  $.words[4]: unexpected "pear"',
    ]
    assert score.diff_text() == "\n".join(lines)
    whole = {
        "output": VerificationResult(
            diff={"values_changed": {"root": {"new_value": "3 words", "old_value": "4 words"}}},
            is_correct=False,
        )
    }
    assert (
        score_case(whole, CLIResult(**ids), CLIResult(**ids)).diff_text()
        == 'output: expected "4 words", got "3 words"'
    )
    flat = {
        "output": VerificationResult(
            diff={"x-total-count": "'1' does not match '^3$'", "allow": None}, is_correct=False
        )
    }  # {where: what}: a line each
    assert (
        score_case(flat, CLIResult(**ids), CLIResult(**ids)).diff_text()
        == "output:\n  x-total-count: '1' does not match '^3$'\n  allow: None"
    )
    nested = {
        "output": VerificationResult(diff={"$.x": ["a", "b"]}, is_correct=False)
    }  # anything else: JSON
    assert (
        score_case(nested, CLIResult(**ids), CLIResult(**ids)).diff_text()
        == 'output:\n  {\n   "$.x": [\n    "a",\n    "b"\n   ]\n  }'
    )


def test_the_table_and_the_promptfoo_row_show_why_a_case_failed_not_only_its_diff():
    message = (
        "status_code wrong (score 0.00)\n"
        "the request got no answer: the server exited with code 13 during case 'b'\n"
        "status_code: expected 200, got -1"
    )
    case = TestResult(
        id="core/b",
        name="b",
        checkpoint="checkpoint_1",
        group_type="Core",
        status="failed",
        failure_message=message,
        score=0.0,
        diff="status_code: expected 200, got -1",
        attributes=[],
    )
    pytest_test = TestResult(
        id="tests/test_x.py::test_y",
        name="test_y",
        checkpoint="checkpoint_1",
        group_type="Core",
        status="failed",
        failure_message="AssertionError: assert 1 == 2\nwhere 1 = f()",
    )
    result = ExecutionResult(
        problem_name="p",
        checkpoint_name="checkpoint_1",
        framework="cases",
        tests=[case, pytest_test],
    )
    console = Console(width=200, record=True)
    console.print(failures_table(result))
    table = console.export_text()
    assert (
        "the server exited with code 13 during case 'b'" in table
        and "status_code: expected 200, got -1" in table
    )
    assert "where 1 = f()" not in table  # other frameworks' tests: their first line, as before
    # The Promptfoo row's reason line: the case's first line and why it got nothing.
    line = headline(
        {
            **result.model_dump(mode="json"),
            "problem": "p",
            "checkpoint": "checkpoint_1",
            "passed": False,
            "policy": "all-cases",
        }
    )
    assert (
        line
        == "[Core] b: status_code wrong (score 0.00); the request got no answer: the se… (+1 more)"
    )
    assert "where 1 = f()" not in line
