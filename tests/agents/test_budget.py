"""Budgets (`budget: {step: ..., run: ...}`) in real sandboxes: a cap reached stops the step as it
happens (tokens counted by the proxy, or read from the agent's stream output), the reason is
recorded, and what the agent left so far is graded; a run cap spent skips the later steps."""

from __future__ import annotations

import json
import textwrap
import time

import pytest
from agent_support import BACKENDS, agent, answer_problem, environment, snapshot_files
from egress_support import serving

from runners.agents.layout import RunLayout
from runners.agents.solve import solve
from runners.model.policy import PassPolicy

ISOLATED = [
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
]
# Asks its model again and again (162 tokens an answer) after writing its answer: only a cap stops
# it.
GREEDY = textwrap.dedent("""
    import json, os, urllib.request
    open("answer.txt", "w").write("forty-two\\n")
    asked = 0
    while True:
        request = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
                                         data=b"{}",
                                         headers={"content-type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=10).read()
        except urllib.error.HTTPError as exc:
            open("refused.txt", "w").write(f"{exc.code} {exc.read().decode()}")
        asked += 1
        open("asked.txt", "w").write(str(asked))
""")


@pytest.mark.parametrize("backend", ISOLATED)
@pytest.mark.slow
def test_a_token_cap_counted_by_the_proxy_stops_the_step_and_what_it_left_is_graded(
    tmp_path, backend
):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    layout = RunLayout(tmp_path / "run")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "greedy.py").write_text(GREEDY)
    with serving() as model:
        spec = agent(
            ["{python}", "{mounts[a]}/greedy.py"],
            mounts={"a": str(tmp_path / "agent")},
            network={"routes": {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{model.port}"}},
            budget={"step": {"tokens": 500}},
        )
        began = time.monotonic()
        [done] = solve(spec, problem, layout, environment(backend))
        took = time.monotonic() - began
    step = done.step
    assert took < 45  # the agent's own limit is 60 s: the cap stopped it
    assert step.budget_stop == (
        "stopped at 648 tokens (counted by the proxy): the step's token cap of 500 was reached"
    )
    assert step.failure == f"budget: {step.budget_stop}; every process it started was killed"
    assert step.egress is not None and step.egress.routed.requests == 4  # 4 × 162 = 648 >= 500
    files = snapshot_files(layout, step)
    assert files["answer.txt"] == "forty-two\n"  # the work left so far, graded
    assert done.result.pass_counts == {"Core": 1} and not done.passed(PassPolicy.ALL_CASES)


STREAMER = (
    "sh -c 'echo forty-two > answer.txt; i=0; while true; do i=$((i+1)); "
    'echo "{{\\"type\\":\\"assistant\\",\\"message\\":{{\\"id\\":\\"m$i\\",\\"usage\\":'
    '{{\\"input_tokens\\":100,\\"output_tokens\\":50}}}}}}"; sleep 0.2; done\''
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.slow
def test_a_token_cap_read_from_the_agents_stream_output_stops_the_step(tmp_path, backend):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    layout = RunLayout(tmp_path / "run")
    spec = agent(STREAMER, budget={"step": {"tokens": 1000}})
    [done] = solve(spec, problem, layout, environment(backend))
    step = done.step
    assert step.budget_stop == (
        "stopped at 1,050 tokens (as the agent reported them): the step's token cap "
        "of 1,000 was reached"
    )
    assert step.duration < 30 and not step.timed_out
    assert snapshot_files(layout, step)["answer.txt"] == "forty-two\n"


def claude_result(tokens: int, cost: float) -> str:
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "done",
        "total_cost_usd": cost,
        "usage": {"input_tokens": tokens - 10, "output_tokens": 10},
    }
    return json.dumps(result)


@pytest.mark.parametrize(
    "cap, said",
    [
        ({"tokens": 800}, "the run's token cap of 800 was reached (1,000 tokens spent)"),
        ({"cost_usd": 0.4}, "the run's cost cap of $0.4 was reached ($0.5000 spent)"),
    ],
)
@pytest.mark.slow
def test_a_run_cap_spent_skips_the_later_steps_whose_snapshot_is_the_last_work(tmp_path, cap, said):
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout = RunLayout(tmp_path / "run")
    text = claude_result(1000, 0.5).replace("{", "{{").replace("}", "}}")
    command = ["sh", "-c", "echo forty-two > answer.txt; echo '" + text + "'"]
    solved = solve(agent(command, budget={"run": cap}), problem, layout, environment("bubblewrap"))
    first, second = (d.step for d in solved)
    assert first.failure is None and first.tokens == 1000
    assert second.budget_stop == said and second.failure == f"budget: {said}; the step did not run"
    assert second.duration == 0 and second.exit_code is None
    assert snapshot_files(layout, second) == {
        "answer.txt": "forty-two\n"
    }  # checkpoint 1's work, graded
    assert solved[1].result.total_counts == {"Core": 1, "Regression": 1}


@pytest.mark.slow
def test_a_run_time_cap_shortens_the_steps_clock(tmp_path):
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout = RunLayout(tmp_path / "run")
    command = "sh -c 'echo forty-two > answer.txt; sleep {checkpoint_number}'"
    spec = agent(command, budget={"run": {"seconds": 2.5}})
    first, second = (d.step for d in solve(spec, problem, layout, environment("bubblewrap")))
    assert first.failure is None and 1 <= first.duration < 2.5
    assert second.budget_stop == "the run's time cap of 2.5 s ran out"
    assert second.failure is not None and second.failure.startswith(
        "budget: the agent did not finish within"
    )
    assert second.duration < 2.5


def test_a_bad_budget_is_refused_naming_the_field():
    from runners.model.errors import ConfigError

    for budget, said in (
        ({"step": {"tokens": 0}}, "greater than 0"),
        ({"steps": {}}, "unknown key"),
        ({"run": {"dollars": 1}}, "unknown key"),
    ):
        with pytest.raises(ConfigError) as caught:
            agent("true", budget=budget)
        assert "field `budget." in str(caught.value) and said in str(caught.value)
