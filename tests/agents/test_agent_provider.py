"""The agent provider's answers to promptfoo, called as promptfoo calls it (providers/ by path):
bad input is an error row naming the key, a row runs the steps it needs, and the assertion fails a
row whose agent step failed with the step's reason first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from agent_support import answer_problem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "promptfoo"))
from pf_support import load_provider_module

PROVIDER = load_provider_module("agent_runner")
ASSERTIONS = load_provider_module("assertions")


def options(tmp_path: Path, **config: object) -> dict:
    base = {
        "agent": {
            "name": "a",
            "command": "sh -c 'echo forty-two > answer.txt; echo wrote it'",
            "timeout": 30,
        },
        "problems": str(tmp_path / "problems"),
        "sandbox": "none",
        "output": str(tmp_path / "runs"),
        "timeout": 120000,
    }
    return {"config": {**base, **config}}


def context(problem: str = "answer", checkpoint: str = "checkpoint_1") -> dict:
    return {
        "vars": {"__evalId": "eval-x"},
        "test": {"metadata": {"problem": problem, "checkpoint": checkpoint}},
    }


@pytest.mark.parametrize(
    "config, message",
    [
        ({"agent": {"command": "x"}}, "provider config `agent`: invalid configuration"),
        ({"agent": {"name": "a", "command": "run {nope}"}}, "unknown placeholder {nope}"),
        ({"agnt": {}}, "field `agnt`: unknown key"),
        ({"sandbox": "vm"}, "field `sandbox`: 'vm' is not one of auto"),
        (
            {"timeout": 20000},
            "provider config `timeout`: promptfoo's per-call limit of 20000 ms leaves 5 s",
        ),
        (
            {
                "agent": {
                    "name": "a",
                    "command": "cat {mounts[p]}",
                    "mounts": {"p": "."},
                    "timeout": 30,
                }
            },
            "holds the problem directory",
        ),
    ],
)
def test_bad_config_is_an_error_row_naming_the_key(tmp_path, monkeypatch, config, message):
    answer_problem(tmp_path / "problems", checkpoints=1)
    monkeypatch.chdir(tmp_path)
    answer = PROVIDER.call_api("", options(tmp_path, **config), context())
    assert set(answer) == {"error"} and message in answer["error"], answer


def test_an_unknown_problem_or_checkpoint_is_an_error_row(tmp_path):
    answer_problem(tmp_path / "problems", checkpoints=1)
    assert (
        "unknown problem 'nope'"
        in PROVIDER.call_api("", options(tmp_path), context("nope"))["error"]
    )
    assert (
        "has no checkpoint 'checkpoint_9'"
        in PROVIDER.call_api("", options(tmp_path), context(checkpoint="checkpoint_9"))["error"]
    )


def test_a_failed_step_fails_the_row_whatever_the_tests_say(tmp_path):
    answer_problem(tmp_path / "problems", checkpoints=1)
    command = "sh -c 'echo forty-two > answer.txt; echo out of budget >&2; exit 1'"
    answer = PROVIDER.call_api(
        "", options(tmp_path, agent={"name": "a", "command": command, "timeout": 30}), context()
    )
    meta = answer["metadata"]
    assert meta["pass_counts"] == {"Core": 1} and meta["total_counts"] == {
        "Core": 1
    }  # what it left passes
    assert meta["passed"] is False and not any(v for k, v in meta["policies"].items() if k != "any")
    assert (
        answer["output"].splitlines()[0]
        == "answer · checkpoint_1: FAIL (agent step failed) 1/1 tests"
    )
    graded = ASSERTIONS.get_assert(answer["output"], {"metadata": meta})
    assert graded["pass"] is False and graded["score"] == 1.0
    assert graded["reason"] == "agent step failed: the agent exited with code 1: out of budget"
    assert answer["latencyMs"] == round(meta["agent_step"]["duration"] * 1000)
    assert "cost" not in answer and "tokenUsage" not in answer


@pytest.mark.slow
def test_a_row_answers_from_the_steps_on_disk(tmp_path):
    answer_problem(tmp_path / "problems", checkpoints=2)
    first = PROVIDER.call_api("", options(tmp_path), context(checkpoint="checkpoint_2"))
    assert first["metadata"]["agent_step"]["started_from"] == "checkpoint_1"
    again = PROVIDER.call_api(
        "", options(tmp_path), context(checkpoint="checkpoint_1")
    )  # already run by the row above
    assert (
        again["metadata"]["agent_step"]["started_at"]
        < first["metadata"]["agent_step"]["started_at"]
    )
    assert again["output"].startswith("answer · checkpoint_1: PASS 1/1 tests")
    assert again["metadata"]["agent_step"]["excerpt"] == "wrote it"  # what it said: in the details
    run_dir = Path(again["metadata"]["run_dir"])
    key = again["metadata"]["agent_step"]["agent_key"]
    assert (
        run_dir == tmp_path / "runs" / f"a-{key}"
        and (run_dir / "submissions" / "a" / "answer" / "checkpoint_2").is_dir()
    )


@pytest.mark.slow
def test_another_eval_of_the_same_agent_reuses_its_stored_runs_and_a_changed_agent_runs_anew(
    tmp_path,
):
    """Runs are stored by the agent's settings: `promptfoo eval` again (another eval id) grades
    the stored snapshots without running the agent; a changed command is another agent."""
    answer_problem(tmp_path / "problems", checkpoints=2)
    first = PROVIDER.call_api("", options(tmp_path), context(checkpoint="checkpoint_2"))
    later = {
        "vars": {"__evalId": "eval-y"},
        "test": {"metadata": {"problem": "answer", "checkpoint": "checkpoint_2"}},
    }
    again = PROVIDER.call_api("", options(tmp_path), later)
    assert (
        again["metadata"]["agent_step"] == first["metadata"]["agent_step"]
    )  # the same step: not run again
    assert again["metadata"]["started_at"] != first["metadata"]["started_at"]  # but graded again
    changed = {
        "name": "a",
        "command": "sh -c 'echo forty-two > answer.txt; echo changed'",
        "timeout": 30,
    }
    other = PROVIDER.call_api("", options(tmp_path, agent=changed), later)
    assert (
        other["metadata"]["agent_step"]["agent_key"] != first["metadata"]["agent_step"]["agent_key"]
    )
    assert (
        other["metadata"]["run_dir"] != first["metadata"]["run_dir"]
        and other["metadata"]["agent_step"]["excerpt"] == "changed"
    )
    assert Path(first["metadata"]["run_dir"]).is_dir()  # the earlier agent's runs are kept


@pytest.mark.slow
def test_promptfoo_repetitions_are_separate_agent_runs_and_agent_repeat_gives_pass_at_k(tmp_path):
    answer_problem(tmp_path / "problems", checkpoints=1)
    second = {
        "vars": {"__evalId": "eval-x", "__repeatIndex": 1},
        "test": {"metadata": {"problem": "answer", "checkpoint": "checkpoint_1"}},
    }
    zero = PROVIDER.call_api("", options(tmp_path), context())
    one = PROVIDER.call_api("", options(tmp_path), second)
    assert (zero["metadata"]["agent_step"]["agent"], one["metadata"]["agent_step"]["agent"]) == (
        "a",
        "a@r2",
    )
    # `repeat: 3`: a row runs three repeats; the second one's agent fails (it sees its repeat).
    flaky = {
        "name": "f",
        "timeout": 30,
        "repeat": 3,
        "command": (
            "sh -c 'echo forty-two > answer.txt; [ $RUNNERS_REPEAT != 2 ] || exit 1; echo ok'"
        ),
    }
    answer = PROVIDER.call_api("", options(tmp_path, agent=flaky), context())
    meta = answer["metadata"]
    assert [run["agent"] for run in meta["repeat_runs"]] == ["f@r1", "f@r2", "f@r3"]
    assert meta["repeats"]["n"] == 3 and meta["repeats"]["passed"] == 2
    assert meta["repeats"]["pass_at"] == {"1": pytest.approx(2 / 3), "2": 1.0, "3": 1.0}
    assert (
        "repeats: 2/3 met policy all-cases · pass@1 0.67 · pass@2 1.00 · pass@3 1.00"
        in answer["output"]
    )
    graded = ASSERTIONS.get_assert(answer["output"], {"metadata": meta})
    assert graded["pass"] is False and graded["score"] == pytest.approx(2 / 3)
    assert (
        graded["namedScores"]["pass@1"] == pytest.approx(2 / 3)
        and graded["namedScores"]["pass@3"] == 1.0
    )
    assert graded["reason"].startswith(
        "2/3 repeats met policy all-cases; not: f@r2: the agent exited with code 1"
    )
    again = PROVIDER.call_api(
        "", options(tmp_path, agent=flaky), context()
    )  # stored: no agent runs again
    assert [r["agent_failure"] for r in again["metadata"]["repeat_runs"]] == [
        r["agent_failure"] for r in meta["repeat_runs"]
    ]
    assert again["metadata"]["agent_step"] == meta["agent_step"]


def test_a_key_not_set_on_the_host_is_said_in_the_row(tmp_path, monkeypatch):
    """A real agent without its API key fails with its own words ("invalid API key") before doing
    anything: an error row (no grade) that also says which `pass_env` name was not set where
    promptfoo ran."""
    answer_problem(tmp_path / "problems", checkpoints=1)
    monkeypatch.delenv("RUNNERS_REVIEW_UNSET_KEY", raising=False)
    agent = {
        "name": "a",
        "command": "sh -c 'echo Invalid API key >&2; exit 1'",
        "timeout": 30,
        "pass_env": ["RUNNERS_REVIEW_UNSET_KEY"],
    }
    answer = PROVIDER.call_api("", options(tmp_path, agent=agent), context())
    assert "the agent exited with code 1: Invalid API key" in answer["error"]
    assert "note: not set on the host, so not passed: RUNNERS_REVIEW_UNSET_KEY" in answer["error"]


@pytest.mark.parametrize(
    "command", ["no-such-agent-cli -p {prompt}", "sh -c 'echo invalid API key >&2; exit 1'"]
)
def test_an_agent_that_never_started_is_an_error_row_for_every_checkpoint(tmp_path, command):
    """Not a FAIL row graded on an empty workspace (which earned the Error tests' credit): ERROR,
    which promptfoo counts apart from failures, saying what to fix."""
    answer_problem(tmp_path / "problems", checkpoints=2)
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        answer = PROVIDER.call_api(
            "",
            options(tmp_path, agent={"name": "a", "command": command, "timeout": 30}),
            context(checkpoint=checkpoint),
        )
        assert set(answer) == {"error"}, answer
        assert (
            "agent 'a' on answer checkpoint_1:" in answer["error"]
            and "nothing was graded" in answer["error"]
        )
    assert not list((tmp_path / "runs").glob("*/grades"))
