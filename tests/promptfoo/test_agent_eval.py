"""A real `npx promptfoo eval -j 4` of the agent provider: two scripted agents over two problems,
each step in bubblewrap, each snapshot graded.

Checked against its JSON output and the run directory: one column per agent, each row graded
from the snapshot its step left, later checkpoints continuing earlier ones (whatever worker
process took the row), the agent's time as latency, its reported tokens and cost, a failed step
as a failed row with its reason, and a re-grade of the snapshots with `runners batch` giving the
same results as the eval.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pf_agents import KNOWLEDGE, PROBLEMS, SPECS

from runners.agents.layout import RunLayout, StepRecord
from runners.model.results import ExecutionResult

pytestmark = [pytest.mark.node, pytest.mark.slow, pytest.mark.bubblewrap]
CHECKPOINTS = ("checkpoint_1", "checkpoint_2")


def cells(run) -> dict[tuple[str, str, str], dict]:
    found = {}
    for row in run.results["results"]["results"]:
        meta = row["testCase"]["metadata"]
        key = (row["provider"]["label"].removeprefix("agent-"), meta["problem"], meta["checkpoint"])
        assert key not in found, f"two rows for {key}"
        found[key] = row
    return found


GAVE_UP = ("partial", "tally", "checkpoint_2")  # exits 1, changing nothing: an ERROR row


def layouts(run) -> dict[str, RunLayout]:
    """Each agent's run directory, which its rows name: runs are stored by the agent's settings
    (`<output>/<agent>-<hash>/`), so that another eval of the same agent reuses them."""
    found: dict[str, set[str]] = {}
    for row in run.results["results"]["results"]:
        if "metadata" not in (row.get("response") or {}):
            continue  # an ERROR row (an agent that gave up changing nothing) is no grade
        agent = row["provider"]["label"].removeprefix("agent-")
        found.setdefault(agent, set()).add(row["response"]["metadata"]["run_dir"])
    roots = {agent: next(iter(dirs)) for agent, dirs in found.items() if len(dirs) == 1}
    assert len(roots) == len(found) == 2, found
    for agent, root in roots.items():
        step = StepRecord.load(RunLayout(Path(root)).step_dir(agent, PROBLEMS[0], CHECKPOINTS[0]))
        assert (
            step is not None and Path(root) == Path(run.world["runs"]) / f"{agent}-{step.agent_key}"
        )
    return {agent: RunLayout(Path(root)) for agent, root in roots.items()}


def test_every_row_is_an_agent_step_then_its_grade(agent_eval):
    rows = cells(agent_eval)
    assert len(rows) == 8 and agent_eval.proc.returncode == 100  # some rows fail: the partial agent
    verdicts = {key: row["success"] for key, row in rows.items()}
    assert verdicts == {("good", p, c): True for p in PROBLEMS for c in CHECKPOINTS} | {
        ("partial", "mini", "checkpoint_1"): False,
        ("partial", "mini", "checkpoint_2"): False,
        ("partial", "tally", "checkpoint_1"): True,
        ("partial", "tally", "checkpoint_2"): False,
    }
    for (agent, problem, checkpoint), row in rows.items():
        if (agent, problem, checkpoint) == GAVE_UP:
            assert "the agent failed before doing anything" in row["error"]
            continue
        step = StepRecord.model_validate(row["response"]["metadata"]["agent_step"])
        assert (step.agent, step.problem, step.checkpoint, step.sandbox) == (
            agent,
            problem,
            checkpoint,
            "bubblewrap",
        )
        assert step.started_from == ("empty" if checkpoint == "checkpoint_1" else "checkpoint_1")
        # latencyMs is the agent's own time, not the grading's nor the wait for a worker.
        assert row["latencyMs"] == round(step.duration * 1000) and step.duration < 10
        output = row["response"]["output"]
        assert output.startswith(f"{problem} · {checkpoint}: ")
        title = SPECS[problem][f"{checkpoint}.md"].splitlines()[0].lstrip("# ")
        if step.failure is None:
            assert step.excerpt.startswith(f"Implemented {title}: wrote ")  # in the row's details


def test_the_agent_reports_cost_and_tokens_when_it_prints_them(agent_eval):
    rows = cells(agent_eval)
    for problem in PROBLEMS:
        for checkpoint in CHECKPOINTS:
            good = rows[("good", problem, checkpoint)]
            words = len(SPECS[problem][f"{checkpoint}.md"].split())
            usage = good["response"]["tokenUsage"]
            # The scripted agent counts words: the spec's read, its earlier code read back (prompt
            # cache reads, counted in the prompt as Claude Code's are), the code's written (none at
            # mini's checkpoint 2, where it had nothing to change).
            earlier = (
                len(KNOWLEDGE["good"][problem]["checkpoint_1"].split())
                if checkpoint == "checkpoint_2"
                else 0
            )
            assert (
                usage["prompt"] == words + earlier
                and usage["total"] == usage["prompt"] + usage["completion"]
            )
            # Where promptfoo's own Claude Agent SDK provider puts them: `cached` would be read by
            # promptfoo (and its viewer) as a response replayed from its cache.
            assert usage.get("cached", 0) == 0  # promptfoo's own field, 0 for a fresh response
            assert usage["completionDetails"]["cacheReadInputTokens"] == earlier
            assert (usage["completion"] == 0) is ((problem, checkpoint) == ("mini", "checkpoint_2"))
            assert good["response"]["cost"] == 0.0
            assert f"· {usage['total']:,} tokens · $0.0000" in good["response"]["output"]
            # The plain-text agent reported none: nothing is invented for it.
            partial = rows[("partial", problem, checkpoint)]
            if (("partial", problem, checkpoint)) == GAVE_UP:
                continue  # an ERROR row: no grade, no figures
            assert "tokenUsage" not in partial["response"] and "cost" not in partial["response"]
            assert " tokens · " not in partial["response"]["output"]


def test_an_agent_that_gives_up_changing_nothing_is_an_error_row_not_a_grade(agent_eval):
    """partial says it does not know how and exits 1 without touching its workspace and without
    reporting any model use: that cannot be told from an agent that never started, so the row is
    an ERROR (no grade) with the agent's own words, and its step is kept as it happened."""
    row = cells(agent_eval)[GAVE_UP]
    assert row["success"] is False and "metadata" not in (row.get("response") or {})
    assert "the agent failed before doing anything (it changed nothing)" in row["error"]
    assert "I do not know how to implement tally checkpoint_2." in row["error"]
    run = layouts(agent_eval)["partial"]
    step = StepRecord.load(run.step_dir(*GAVE_UP))
    assert step is not None and step.exit_code == 1
    assert step.failure.endswith(
        "the agent exited with code 1: I do not know how to implement tally checkpoint_2."
    )


def test_snapshots_continue_each_other_and_each_step_ran_once(agent_eval):
    runs = layouts(agent_eval)
    for agent in ("good", "partial"):
        run = runs[agent]
        for problem in PROBLEMS:
            records = [StepRecord.load(run.step_dir(agent, problem, cp)) for cp in CHECKPOINTS]
            assert all(records) and records[0].started_at < records[1].started_at
            for checkpoint in CHECKPOINTS:
                if (agent, problem, checkpoint) == GAVE_UP:
                    # Not a submission: no snapshot is kept to be graded.
                    assert not run.snapshot(agent, problem, checkpoint).exists()
                    continue
                snapshot = run.snapshot(agent, problem, checkpoint)
                assert sorted(p.name for p in snapshot.iterdir()) == ["main.py"]
                assert (
                    (run.step_dir(agent, problem, checkpoint) / "stderr.txt")
                    .read_text()
                    .startswith("Reading the specification: ")
                )
    # The scripted agent refuses to go on when its earlier work is not in its workspace as it left
    # it. At mini's checkpoint 2 the good agent had nothing to change: its snapshot is checkpoint
    # 1's main.py, carried over.
    run = runs["good"]
    mini, tally = (StepRecord.load(run.step_dir("good", p, "checkpoint_2")) for p in PROBLEMS)
    assert "wrote 0 file(s) (none), kept 1 from checkpoint_1" in mini.excerpt
    assert (run.snapshot("good", "mini", "checkpoint_2") / "main.py").read_text() == (
        run.snapshot("good", "mini", "checkpoint_1") / "main.py"
    ).read_text()
    assert "wrote 1 file(s) (main.py), kept 0 from checkpoint_1" in tally.excerpt


def test_a_regrade_of_the_snapshots_with_runners_batch_gives_the_same_results(agent_eval, tmp_path):
    for agent, run in layouts(agent_eval).items():
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "runners",
                "batch",
                "--problems",
                str(agent_eval.world["problems"]),
                "--submissions",
                str(run.submissions),
                "--sandbox",
                "none",
                "-o",
                str(tmp_path / "batch" / agent),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for (agent, problem, checkpoint), row in cells(agent_eval).items():
        if (agent, problem, checkpoint) == GAVE_UP:
            continue  # an ERROR row: nothing to compare with
        regraded = ExecutionResult.model_validate_json(
            (
                tmp_path / "batch" / agent / "cells" / agent / problem / checkpoint / "result.json"
            ).read_text()
        )
        graded = ExecutionResult.model_validate(
            {
                k: v
                for k, v in row["response"]["metadata"].items()
                if k in ExecutionResult.model_fields
            }
        )
        assert [(t.id, t.status, t.group_type) for t in regraded.tests] == [
            (t.id, t.status, t.group_type) for t in graded.tests
        ], (agent, problem, checkpoint)
        assert regraded.pass_counts == graded.pass_counts
