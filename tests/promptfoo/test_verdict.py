"""runners.promptfoo.verdict: which rows of a finished eval are no grade, and the exit code that
says so (scripts/compare.sh runs it; test_eval_errors.py runs it on real evals)."""

from __future__ import annotations

import pytest

from runners.promptfoo.verdict import verdict


def _row(failure: int, error: str | None = None, **metadata: object) -> dict:
    return {
        "failureReason": failure,
        "error": error,
        "provider": {"label": "a"},
        "testCase": {"metadata": {"problem": "p", "checkpoint": "c"}},
        "response": {"metadata": metadata} if metadata else {"error": error},
    }


@pytest.mark.parametrize(
    "rows, code",
    [
        ([_row(0), _row(1, "policy all-cases not met: 1/2 tests passed")], 0),
        ([_row(1, "policy ...", infrastructure_failure=True), _row(0)], 3),
        (
            [
                _row(2, "runners provider: p · c: PROBLEM ERROR (...)", problem_error=True),
                _row(1, "x"),
            ],
            4,
        ),
        (
            [
                _row(2, "runners provider: p/config.yaml: invalid configuration"),
                _row(2, "PROBLEM ERROR", problem_error=True),
            ],
            2,
        ),
    ],
)
def test_rows_that_are_no_grade_decide_the_exit_code(rows, code):
    found, lines = verdict({"results": {"results": rows}})
    assert found == code
    assert (lines == []) == (code == 0), lines
