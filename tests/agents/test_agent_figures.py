"""An agent's own figures (cost, tokens, turns) are as untrusted as its code: one that cannot be
true (negative, not finite, not a number, beyond any run: -$1,000,000, -5 or 10^30 tokens, -3
turns) is refused, never stored as a figure nor shown or summed; the step record keeps what
the agent said and why it was refused, and every table says `refused` where the figure was."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from support import run_agents_batch

from runners.agents.layout import StepRecord
from runners.agents.report import MAX_COST_USD, MAX_TOKENS, AgentReport, read_report

HOSTILE = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "num_turns": -3,
    "result": "all done",
    "total_cost_usd": -1_000_000,
    "usage": {"input_tokens": -5, "output_tokens": 10**30},
}


def test_impossible_figures_are_refused_and_said():
    report = read_report(json.dumps(HOSTILE))
    assert report.final_text == "all done"  # the rest of the account stands
    assert (report.cost_usd, report.turns, report.prompt_tokens, report.completion_tokens) == (
        None,
        None,
        None,
        None,
    )
    assert report.token_usage() is None
    assert report.refused == {
        "cost_usd": "cost (USD) -1,000,000: not a number from 0 to 10,000",
        "turns": "turns -3: not a number from 0 to 1,000,000",
        "prompt_tokens": "prompt tokens -5: not a number from 0 to 10,000,000,000",
        "completion_tokens": "completion tokens 1e+30: not a number from 0 to 10,000,000,000",
    }


@pytest.mark.parametrize("cost", [float("nan"), float("inf"), MAX_COST_USD * 2, "12", True])
def test_a_cost_that_is_not_a_finite_amount_in_bounds_is_refused(cost):
    report = AgentReport(format="claude-json", cost_usd=cost)
    assert report.cost_usd is None and "cost_usd" in report.refused


def test_one_impossible_token_count_drops_the_others_of_that_account():
    """Codex sums its turns: a turn of 10^30 tokens makes the sum meaningless, not partly right."""
    lines = [
        {"type": "turn.started"},
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 100, "cached_input_tokens": 10, "output_tokens": 5},
        },
        {"type": "turn.completed", "usage": {"input_tokens": 10**30, "output_tokens": 5}},
    ]
    report = read_report("\n".join(json.dumps(line) for line in lines))
    assert report.turns == 2 and report.token_usage() is None
    assert set(report.refused) == {"prompt_tokens"}


def test_figures_at_their_bounds_stand():
    report = AgentReport(cost_usd=0, prompt_tokens=MAX_TOKENS, completion_tokens=0, turns=0)
    assert (
        report.refused == {}
        and report.cost_usd == 0
        and report.token_usage()["total"] == MAX_TOKENS
    )


def test_a_stored_step_with_impossible_figures_is_refused_when_read_back(tmp_path):
    record = StepRecord(
        agent="a",
        problem="p",
        checkpoint="checkpoint_1",
        number=1,
        command=["x"],
        sandbox="none",
        started_from="empty",
    )
    data = json.loads(record.model_dump_json())
    data["report"].update(cost_usd=-1_000_000, total_tokens=-5)
    (tmp_path / "step.json").write_text(json.dumps(data))
    loaded = StepRecord.load(tmp_path)
    assert (
        loaded is not None and loaded.report.cost_usd is None and loaded.report.total_tokens is None
    )
    assert set(loaded.report.refused) == {"cost_usd", "total_tokens"}


@pytest.mark.slow
def test_the_batch_table_and_the_record_say_the_figures_were_refused(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from agent_support import answer_problem

    answer_problem(tmp_path / "problems", checkpoints=1)
    script = tmp_path / "liar.py"
    script.write_text(
        f"import json\nopen('answer.txt', 'w').write('forty-two')\nprint(json.dumps({HOSTILE!r}))\n"
    )
    (tmp_path / "agents.yaml").write_text(
        yaml.safe_dump({"agents": {"liar": f"{sys.executable} {script}"}})
    )
    out = run_agents_batch(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    [row] = [
        line
        for line in out.stdout.splitlines()
        if "liar" in line and "checkpoint_1" in line and "refused" in line
    ]
    assert row.count("refused") == 2, row  # tokens and cost
    assert "1,000,000" not in out.stdout and "1e+30" not in out.stdout
    step = StepRecord.load(tmp_path / "run" / "agent-steps" / "liar" / "answer" / "checkpoint_1")
    assert step is not None and step.report.cost_usd is None and step.report.turns is None
    assert (
        "the agent's own figure refused: cost (USD) -1,000,000: not a number from 0 to 10,000"
        in step.notes
    )
    assert (
        "the agent's own figure refused: completion tokens 1e+30: "
        "not a number from 0 to 10,000,000,000"
    ) in step.notes
