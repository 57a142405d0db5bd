"""What a runner can do is said by the runner: `--select` is a capability (`Runner.selects`), and
a runner without it refuses ids, clearly and before any sandbox starts, instead of silently
running the whole suite."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from runners.frameworks.registry import BUILTINS, runner_class
from runners.model.errors import UserInputError


def _ctx(select: list[str]) -> SimpleNamespace:
    return SimpleNamespace(select=select)


@pytest.mark.parametrize("framework", ["junit", "ctrf"])
def test_a_runner_that_cannot_select_refuses_ids_naming_the_option(framework):
    runner = runner_class(framework).__new__(runner_class(framework))
    with pytest.raises(
        UserInputError, match=rf"option --select: the {framework} runner cannot run single tests"
    ):
        runner.check_select(_ctx(["tests/x::y"]))  # type: ignore[arg-type]
    runner.check_select(_ctx([]))  # type: ignore[arg-type]  # nothing asked: nothing refused


def test_every_built_in_runner_says_whether_it_selects():
    selecting = {key for key in BUILTINS if runner_class(*key).selects}
    assert selecting == {(f, k) for f, k in BUILTINS if f not in ("junit", "ctrf", "node-test")}


def test_the_test_files_up_to_a_checkpoint_honour_include_prior_tests(tmp_path):
    from support import make_problem

    from runners.model.problem_loader import load_problem

    checkpoints = {
        "checkpoint_1": {"version": 1},
        "checkpoint_2": {"version": 1, "include_prior_tests": False},
        "checkpoint_3": {"version": 1},
    }
    tests = {f"test_checkpoint_{i}.py": "def test_x(): pass\n" for i in (1, 2, 3)}
    problem = load_problem(make_problem(tmp_path, tests, checkpoints=checkpoints))
    runner = runner_class("pytest")(problem=problem, checkpoint="checkpoint_3")
    assert runner.test_files_up_to(problem.checkpoint("checkpoint_2")) == {"test_checkpoint_2.py"}
    assert runner.test_files_up_to(problem.checkpoint("checkpoint_3")) == {
        "test_checkpoint_1.py",
        "test_checkpoint_2.py",
        "test_checkpoint_3.py",
    }
