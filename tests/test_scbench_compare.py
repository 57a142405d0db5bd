"""bench/scbench_pytest_compare.py's verdict: a problem whose data file is missing is SCBench's
infrastructure failure and runners' problem error (runners/engine/blame.py); the two are the same
verdict, and a problem error against SCBench's test-by-test grade is a difference that names the
file."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scbench_pytest_compare import Checkpoint, markdown, missing_files, verdict

MISSING = "tests/test_checkpoint_4.py, line 29: FileNotFoundError: 'tests/data/cases.json'"
PROBLEM_ERROR = {
    "infrastructure_failure": False,
    "problem_error": True,
    "problem_reason": MISSING,
    "sandbox": "bubblewrap",
    "python": "3.12.1",
    "tests": {},
}


def test_a_problem_error_is_the_same_verdict_as_scbench_s_infrastructure_failure():
    cp = Checkpoint(
        "shop", "checkpoint_4", Path(), PROBLEM_ERROR, {"infrastructure_failure": True, "tests": {}}
    )
    assert verdict(cp) == (True, [])
    assert "**1 of 1 checkpoints exact**" in markdown([cp], "bubblewrap", 0)


def test_a_problem_error_where_scbench_graded_the_tests_differs_and_names_the_file():
    theirs = {
        "infrastructure_failure": False,
        "tests": {"test_a.py::test_x": {"status": "passed", "group": "Core"}},
    }
    same, differ = verdict(Checkpoint("shop", "checkpoint_4", Path(), PROBLEM_ERROR, theirs))
    assert not same
    assert "tests/data/cases.json" in differ[0]


def test_the_table_says_which_backend_no_options_ran_on():
    cp = Checkpoint(
        "shop", "checkpoint_4", Path(), PROBLEM_ERROR, {"infrastructure_failure": True, "tests": {}}
    )
    assert "no options: ran on bubblewrap, Python 3.12.1" in markdown([cp], None, 0)


def test_a_checkpoint_whose_data_the_checkout_lacks_is_an_error_naming_the_file(tmp_path):
    """eve_market_tools 1: SCBench errors 9 of 10 tests in their setup; the issue asks for an
    error that names the missing file, counted apart from the exact checkpoints."""
    (tmp_path / "tests" / "data").mkdir(parents=True)
    (tmp_path / "tests" / "data" / "here.json").write_text("{}")
    reason = (
        "tests/data/orders.csv.gz: FileNotFoundError: [Errno 2] No such file or directory: "
        "'tests/data/orders.csv.gz'\nx: No such file or directory: 'tests/data/here.json'"
    )
    assert missing_files(tmp_path, reason) == ["tests/data/orders.csv.gz"]
    theirs = {
        "infrastructure_failure": False,
        "tests": {"test_a.py::test_x": {"status": "error", "group": "Core"}},
    }
    cp = Checkpoint(
        "shop",
        "checkpoint_1",
        Path(),
        {**PROBLEM_ERROR, "missing_files": ["tests/data/orders.csv.gz"]},
        theirs,
    )
    assert verdict(cp) == (True, ["missing data: tests/data/orders.csv.gz"])
    table = markdown([cp], "bubblewrap", 0)
    assert "**0 of 0 checkpoints exact**, and 1 whose data the checkout lacks" in table
    # without the check against the checkout, the same problem error is a difference
    assert not verdict(Checkpoint("shop", "checkpoint_1", Path(), PROBLEM_ERROR, theirs))[0]
