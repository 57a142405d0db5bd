"""Repeats (`repeat: N`): every repeat is its own run, kept; `solve` and `batch --agents` report
pass@k (the unbiased estimator) and each group's mean ± spread over the repeats; stored runs are
not run again."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
import yaml
from agent_support import answer_problem
from support import need_sandbox
from test_agent_cli import runners_cli

from runners.agents.layout import RunLayout, StepRecord
from runners.agents.repeats import group_repeats, pass_at_k
from runners.model.results import ExecutionResult, GroupType, TestResult

# Fails its second repeat (it sees RUNNERS_REPEAT), after writing the answer: a flaky agent.
FLAKY = (
    "sh -c 'echo forty-two > answer.txt; echo FORTY-TWO > upper.txt; "
    "[ $RUNNERS_REPEAT != 2 ] || exit 1; echo ok'"
)


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(3, 2, 1) == pytest.approx(2 / 3)
    assert pass_at_k(5, 1, 2) == pytest.approx(1 - 6 / 10)  # 1 - C(4,2)/C(5,2)
    assert pass_at_k(5, 0, 5) == 0.0 and pass_at_k(5, 4, 2) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def result(passed: list[bool]) -> ExecutionResult:
    tests = [
        TestResult(
            id=f"t{i}",
            name=f"t{i}",
            checkpoint="checkpoint_1",
            group_type=GroupType.CORE,
            status="passed" if ok else "failed",
        )
        for i, ok in enumerate(passed)
    ]
    return ExecutionResult(problem_name="p", checkpoint_name="checkpoint_1", tests=tests)


def test_repeats_give_the_mean_and_spread_of_each_group_and_a_plain_first_repeat_counts():
    rows = [
        ("a", "p", "checkpoint_1", 1, result([True, True]), True),  # promptfoo's first repetition
        ("a@r2", "p", "checkpoint_1", 1, result([True, False]), False),
        ("a@r3", "p", "checkpoint_1", 1, result([True, True]), True),
        ("solo", "p", "checkpoint_1", 1, result([True]), True),
    ]  # no repeats: left out
    [stats] = group_repeats(rows)
    assert (stats.agent, stats.n, stats.passed) == ("a", 3, 2)
    assert stats.pass_at == {1: pytest.approx(2 / 3), 2: 1.0, 3: 1.0}
    core = stats.groups["Core"]
    assert core.mean == pytest.approx(5 / 6) and core.std == pytest.approx(0.288675, rel=1e-4)
    assert core.text() == "83.3 ± 28.9%"


@pytest.mark.bubblewrap
@pytest.mark.slow
def test_solve_repeat_runs_each_repeat_and_prints_pass_at_k(tmp_path):
    need_sandbox("bubblewrap")
    answer_problem(tmp_path / "problems", checkpoints=2)
    out = runners_cli(
        "solve",
        str(tmp_path / "problems" / "answer"),
        "--name",
        "flaky",
        "--agent",
        FLAKY,
        "--repeat",
        "3",
        "--sandbox",
        "bubblewrap",
        "--output",
        str(tmp_path / "run"),
        "--json",
        str(tmp_path / "all.json"),
    )
    assert out.returncode == 1, out.stdout + out.stderr  # repeat 2 failed its steps
    done = json.loads((tmp_path / "all.json").read_text())
    steps = [StepRecord.model_validate(d["step"]) for d in done["checkpoints"]]
    assert [(s.agent, s.repeat, s.checkpoint) for s in steps] == [
        (f"flaky@r{k}", k, f"checkpoint_{c}") for k in (1, 2, 3) for c in (1, 2)
    ]
    assert [s.failed for s in steps] == [False, False, True, True, False, False]
    layout = RunLayout(tmp_path / "run")
    for k in (1, 2, 3):  # every repeat's snapshot is kept
        assert (
            layout.snapshot(f"flaky@r{k}", "answer", "checkpoint_1") / "answer.txt"
        ).read_text() == "forty-two\n"
    repeats = {r["checkpoint"]: r for r in done["repeats"]}
    assert repeats["checkpoint_1"]["passed"] == 2 and repeats["checkpoint_1"]["pass_at"] == {
        "1": pytest.approx(2 / 3),
        "2": 1.0,
        "3": 1.0,
    }
    table = out.stdout
    assert "repeats · pass@k (unbiased)" in table and "Repeat" in table
    for cell in ("2/3", "0.67", "pass@3", "100.0 ± 0.0%", "checkpoints passed: 4/6"):
        assert cell in table, table


@pytest.mark.bubblewrap
@pytest.mark.slow
def test_batch_repeats_are_in_the_summary_and_the_tables_and_a_rerun_runs_no_agent(tmp_path):
    need_sandbox("bubblewrap")
    answer_problem(tmp_path / "problems", checkpoints=2)
    agents = tmp_path / "agents.yaml"
    agents.write_text(
        yaml.safe_dump(
            {
                "agents": {
                    "flaky": {"command": FLAKY, "repeat": 3, "timeout": 60},
                    "steady": {"command": "sh -c 'echo forty-two > answer.txt'"},
                }
            }
        )
    )
    args = (
        "batch",
        "--problems",
        str(tmp_path / "problems"),
        "--agents",
        str(agents),
        "--sandbox",
        "bubblewrap",
        "--output",
        str(tmp_path / "out"),
        "-j",
        "2",
    )
    out = runners_cli(*args)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [
        json.loads(line) for line in (tmp_path / "out" / "repeats.jsonl").read_text().splitlines()
    ]
    assert [(r["agent"], r["checkpoint"], r["repeats"], r["passed"]) for r in rows] == [
        ("flaky", "checkpoint_1", 3, 2),
        ("flaky", "checkpoint_2", 3, 2),
    ]
    assert rows[0]["pass_at"] == [pytest.approx(2 / 3), 1.0, 1.0] and rows[0][
        "pass_at_1"
    ] == pytest.approx(2 / 3)
    assert rows[0]["core_mean"] == 1.0  # what the failed repeat left still passes its tests
    table = pq.read_table(tmp_path / "out" / "repeats.parquet").to_pylist()
    assert [(r["agent"], r["passed"]) for r in table] == [("flaky", 2), ("flaky", 2)]
    results = pq.read_table(tmp_path / "out" / "results.parquet").to_pylist()
    assert {(r["agent"], r["agent_name"], r["repeat"]) for r in results} == {
        ("flaky@r1", "flaky", 1),
        ("flaky@r2", "flaky", 2),
        ("flaky@r3", "flaky", 3),
        ("steady", "steady", 1),
    }
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert (
        "## Repeats" in summary
        and "| flaky | answer | checkpoint_1 | 2/3 | 0.67 | 1.00 | 1.00 |" in summary
    )
    assert "repeats · pass@k" in out.stdout
    before = {p: p.read_text() for p in (tmp_path / "out" / "agent-steps").rglob("step.json")}
    assert len(before) == 8  # 3 repeats + 1, two checkpoints each
    again = runners_cli(*args)  # stored runs: no agent runs again, the cells are kept
    assert again.returncode == 0, again.stdout + again.stderr
    assert {
        p: p.read_text() for p in (tmp_path / "out" / "agent-steps").rglob("step.json")
    } == before
    assert "done in" not in again.stdout and "8 kept" in again.stdout
