"""`runners solve` and `runners batch --agents` as a user runs them: the scripted example agents
work through the example problems in bubblewrap, and their grades are the example submissions'
expected counts (examples/expected.yaml); a re-grade of the snapshots gives the same results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need_sandbox

from runners.agents.layout import StepRecord
from runners.batch.store import BatchStore
from runners.model.results import ExecutionResult
from runners.sandbox.base import network_env

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text())
SCRIPTED = (
    "{python} {mounts[agent]}/scripted_agent.py --knowledge {mounts[knowledge]} "
    "--problem {problem} "
    "--checkpoint {checkpoint} --prompt {prompt_file} --format claude-json"
)


def runners_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # A user's minimal environment, with what their machine needs to reach a package index (its
    # CA bundle, proxy): a cold toolchain cache installs the tests' dependencies.
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "COLUMNS": "250",
            "HOME": str(Path.home()),
            **network_env(),
        },
        check=False,
    )


def counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts[g], total] for g, total in result.total_counts.items()}


@pytest.mark.bubblewrap
@pytest.mark.parametrize("knowledge, exit_code", [("alpha", 0), ("beta", 1)])
def test_solve_runs_every_checkpoint_and_prints_the_table(tmp_path, knowledge, exit_code):
    need_sandbox("bubblewrap")
    out = runners_cli(
        "solve",
        "problems/inventory_cli",
        "--name",
        f"scripted-{knowledge}",
        "--agent",
        SCRIPTED,
        "--mount",
        "agent=examples/agents",
        "--mount",
        f"knowledge=examples/submissions/{knowledge}",
        "--sandbox",
        "bubblewrap",
        "--output",
        str(tmp_path / "run"),
        "--json",
        str(tmp_path / "all.json"),
    )
    assert out.returncode == exit_code, out.stdout + out.stderr
    done = json.loads((tmp_path / "all.json").read_text())
    assert [d["step"]["checkpoint"] for d in done] == [
        "checkpoint_1",
        "checkpoint_2",
        "checkpoint_3",
    ]
    for entry in done:
        step, result = (
            StepRecord.model_validate(entry["step"]),
            ExecutionResult.model_validate(entry["result"]),
        )
        assert (
            step.failure is None
            and step.sandbox == "bubblewrap"
            and step.report.format == "claude-json"
        )
        assert counts(result) == EXPECTED["inventory_cli"][knowledge][step.checkpoint]
        snapshot = (
            tmp_path
            / "run"
            / "submissions"
            / f"scripted-{knowledge}"
            / "inventory_cli"
            / step.checkpoint
        )
        assert sorted(p.name for p in snapshot.iterdir()) == sorted(
            p.name
            for p in (
                ROOT / "examples" / "submissions" / knowledge / "inventory_cli" / step.checkpoint
            ).iterdir()
        )
    table = out.stdout
    assert f"scripted-{knowledge} on inventory_cli · per checkpoint" in table
    for header in (
        "Checkpoint",
        "Agent",
        "Time",
        "Tokens",
        "Cost",
        "Regression",
        "Policy (all-cases)",
        "LOC",
        "CC max",
        "Dup",
        "Lint",
        "Said",
    ):
        assert header in table
    # The snapshots' code-quality figures, each checkpoint's growth since the one before.
    third = ExecutionResult.model_validate(done[2]["result"]).quality
    assert third is not None and third.previous_checkpoint == "checkpoint_2"
    from runners.quality.text import delta

    assert f"{third.metrics.loc}{delta(third.growth['loc'])}" in table
    assert "Implemented Inventory ledger — checkpoint 3" in table and "$0.0000" in table
    assert f"checkpoints passed: {3 if knowledge == 'alpha' else 1}/3" in table


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--agent", "run {prompt_path}"],
            (
                "error: option --agent: unknown placeholder {prompt_path} (did you mean "
                "{prompt}?) (known:"
            ),
        ),
        (
            ["--agent", "cat {mounts[data]}"],
            "error: option --agent: {mounts[data]}: no mount named 'data' (mounts: none)",
        ),
        (
            ["--agent", "true", "--name", "my agent"],
            "error: option --name: may only contain letters",
        ),
        (["--agent", "cat {mounts[x]}", "--mount", "x=problems"], "holds the problem directory"),
        (
            ["--agent", "true", "--env", "NOEQUALS"],
            "option --env: expected NAME=VALUE, got 'NOEQUALS'",
        ),
        (["--agent", "true", "--mount", "x=nowhere"], "field `mounts.x`:"),
    ],
)
def test_solve_refuses_bad_input_with_exit_2(tmp_path, args, message):
    out = runners_cli(
        "solve", "problems/calc_cli", *args, "--sandbox", "none", "--output", str(tmp_path / "run")
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in " ".join(out.stderr.split()), out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "run" / "submissions").exists()


@pytest.mark.bubblewrap
def test_batch_runs_the_agents_file_then_grades_and_a_regrade_agrees(tmp_path):
    need_sandbox("bubblewrap")
    output = tmp_path / "batch"
    args = [
        "batch",
        "--problems",
        "problems",
        "--agents",
        "examples/agents/agents.yaml",
        "--problem",
        "calc_cli",
        "--sandbox",
        "bubblewrap",
        "-j",
        "2",
        "-o",
        str(output),
    ]
    out = runners_cli(*args)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 agent chains (2 agents × 1 problems)" in out.stdout and "agent steps" in out.stdout
    store = BatchStore(output)
    graded = {}
    for agent in ("scripted-alpha", "scripted-beta"):
        for checkpoint, expected in EXPECTED["calc_cli"][agent.split("-")[1]].items():
            step = StepRecord.load(output / "agent-steps" / agent / "calc_cli" / checkpoint)
            assert step is not None and step.failure is None
            result = ExecutionResult.model_validate_json(
                (store.root / "cells" / agent / "calc_cli" / checkpoint / "result.json").read_text()
            )
            assert counts(result) == expected, (agent, checkpoint)
            graded[(agent, checkpoint)] = result
    stamps = {p: p.stat().st_mtime_ns for p in (output / "agent-steps").rglob("step.json")}
    again = runners_cli(*args)  # resumes: no agent step and no cell runs again
    assert again.returncode == 0, again.stdout + again.stderr
    assert {p: p.stat().st_mtime_ns for p in (output / "agent-steps").rglob("step.json")} == stamps
    assert "0 to run" in again.stdout
    # The snapshots re-graded from scratch, as any submissions tree: the same results.
    regrade = runners_cli(
        "batch",
        "--problems",
        "problems",
        "--submissions",
        str(output / "submissions"),
        "--sandbox",
        "bubblewrap",
        "-o",
        str(tmp_path / "regrade"),
    )
    assert regrade.returncode == 0, regrade.stdout + regrade.stderr
    for (agent, checkpoint), result in graded.items():
        redone = ExecutionResult.model_validate_json(
            (
                tmp_path / "regrade" / "cells" / agent / "calc_cli" / checkpoint / "result.json"
            ).read_text()
        )
        assert [(t.id, t.status, t.group_type) for t in redone.tests] == [
            (t.id, t.status, t.group_type) for t in result.tests
        ]


@pytest.mark.parametrize("command", ["solve", "batch"])
def test_a_missing_specification_is_refused_before_any_agent_runs(tmp_path, command):
    """A checkpoint without its specification is bad input found up front: not after the agent
    has already worked (and been paid for) through the checkpoints before it."""
    sys.path.insert(0, str(Path(__file__).parent))
    from agent_support import answer_problem

    problem = answer_problem(tmp_path / "problems", checkpoints=3)
    (problem.path / "checkpoint_2.md").unlink()
    trail = tmp_path / "ran.txt"
    agent = f"sh -c 'echo {{checkpoint}} >> {trail}'"
    if command == "solve":
        out = runners_cli(
            "solve",
            str(problem.path),
            "--agent",
            agent,
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "run"),
        )
    else:
        (tmp_path / "agents.yaml").write_text(yaml.safe_dump({"agents": {"a": agent}}))
        out = runners_cli(
            "batch",
            "--problems",
            str(tmp_path / "problems"),
            "--agents",
            str(tmp_path / "agents.yaml"),
            "--sandbox",
            "none",
            "-o",
            str(tmp_path / "run"),
        )
    assert out.returncode == 2, out.stdout + out.stderr
    message = " ".join(out.stderr.split())
    assert f"{problem.path / 'config.yaml'}: invalid configuration" in message
    assert "checkpoint `checkpoint_2`: its specification checkpoint_2.md is missing" in message, (
        message
    )
    assert not trail.exists() and not (tmp_path / "run" / "submissions").exists()


@pytest.mark.slow
def test_solve_says_up_front_which_passed_variables_are_not_set(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from agent_support import answer_problem

    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    out = runners_cli(
        "solve",
        str(problem.path),
        "--agent",
        "sh -c 'echo forty-two > answer.txt'",
        "--pass-env",
        "RUNNERS_REVIEW_UNSET_KEY",
        "--sandbox",
        "none",
        "-o",
        str(tmp_path / "run"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    first = out.stdout.splitlines()[0]
    assert first == (
        "note: agent 'agent': RUNNERS_REVIEW_UNSET_KEY is not set here, "
        "so the agent will not see it"
    )


@pytest.mark.slow
def test_batch_counts_a_failed_agent_step_as_not_solved_like_solve_and_promptfoo(tmp_path):
    """An agent that wrote the right files but then failed (exit 1; or timed out, or reported an
    error) does not solve the checkpoint: the batch's tables say so, as `solve` and the Promptfoo
    row do, and keep the tests' pass rates of what it left."""
    sys.path.insert(0, str(Path(__file__).parent))
    from agent_support import answer_problem

    answer_problem(tmp_path / "problems", checkpoints=2)
    failing = (
        "sh -c 'echo forty-two > answer.txt; tr a-z A-Z < answer.txt > upper.txt; "
        "if [ {checkpoint_number} = 2 ]; then echo quota exceeded >&2; exit 1; fi'"
    )
    (tmp_path / "agents.yaml").write_text(yaml.safe_dump({"agents": {"quitter": failing}}))
    output = tmp_path / "run"
    args = [
        "batch",
        "--problems",
        str(tmp_path / "problems"),
        "--agents",
        str(tmp_path / "agents.yaml"),
        "--sandbox",
        "none",
        "-o",
        str(output),
    ]
    for attempt in ("first", "resumed"):
        out = runners_cli(*args)
        assert out.returncode == 0, out.stdout + out.stderr
        text = " ".join(out.stdout.split())
        assert "quitter answer 1/2 1/2 1/2 1/2 100% " in text, (
            attempt,
            out.stdout,
        )  # strict isol. core policy
        assert "quitter/answer: agent step failed at checkpoint_2" in text, out.stdout
        rows = [json.loads(line) for line in (output / "results.jsonl").read_text().splitlines()]
        second = [r for r in rows if r["checkpoint"] == "checkpoint_2"]
        assert second and all(r["passed"] for r in second)  # the tests of what it left passed
        assert all(
            not r["policy_met"]
            and r["agent_failure"] == "the agent exited with code 1: quota exceeded"
            for r in second
        )
        assert all(
            r["policy_met"] and r["agent_failure"] is None
            for r in rows
            if r["checkpoint"] == "checkpoint_1"
        )
        assert "agent step failed at checkpoint_2" in (output / "summary.md").read_text()
    assert "✘ quitter/answer/checkpoint_2" in out.stdout or "0 to run" in out.stdout


@pytest.mark.docker
def test_solve_refuses_an_agent_image_that_is_not_there(tmp_path):
    """The agent's own image (`image:`, --image) missing is the user's to build or pull: bad input
    said up front, not an infrastructure failure per checkpoint telling them to build runners'
    images."""
    need_sandbox("docker")
    sys.path.insert(0, str(Path(__file__).parent))
    from agent_support import answer_problem

    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    out = runners_cli(
        "solve",
        str(problem.path),
        "--agent",
        "claude -p {prompt}",
        "--image",
        "no-such-agent-image:1",
        "--sandbox",
        "docker",
        "-o",
        str(tmp_path / "run"),
    )
    assert out.returncode == 2, out.stdout + out.stderr
    message = " ".join(out.stderr.split())
    assert (
        "error: agent 'agent': its image no-such-agent-image:1 (`image`, --image) "
        "is not on this machine: "
        "build or pull it first"
    ) in message, message
    assert "runners image build" not in message and not (tmp_path / "run" / "agent-steps").exists()


@pytest.mark.bubblewrap
@pytest.mark.slow
def test_solve_gives_a_case_based_problem_its_checkpoint_spec(tmp_path):
    """Case-based problems (SCBench's case format) keep each checkpoint's specification as
    `checkpoint_N/spec.md`, beside the hidden cases: the agent gets that file alone, as
    `<checkpoint>.md`, and its work is graded by the cases."""
    need_sandbox("bubblewrap")
    out = runners_cli(
        "solve",
        "problems/csv_stats",
        "--name",
        "scripted-alpha",
        "--agent",
        SCRIPTED,
        "--mount",
        "agent=examples/agents",
        "--mount",
        "knowledge=examples/submissions/alpha",
        "--sandbox",
        "bubblewrap",
        "-o",
        str(tmp_path / "run"),
        "--json",
        str(tmp_path / "all.json"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    for entry in json.loads((tmp_path / "all.json").read_text()):
        step, result = (
            StepRecord.model_validate(entry["step"]),
            ExecutionResult.model_validate(entry["result"]),
        )
        assert step.failure is None, step.failure
        assert step.excerpt.startswith(f"Implemented csv_stats — checkpoint {step.number}: wrote ")
        assert counts(result) == EXPECTED["csv_stats"]["alpha"][step.checkpoint]


@pytest.mark.bubblewrap
@pytest.mark.slow
def test_an_agent_that_never_started_exits_2_from_solve_and_batch(tmp_path):
    """solve: bad input (2), nothing graded. batch --agents: the agents that work are graded, the
    one that never started is named, and the exit code is 2 (not 0: a config error, not a grade)."""
    need_sandbox("bubblewrap")
    out = runners_cli(
        "solve",
        "problems/inventory_cli",
        "--agent",
        "no-such-agent-cli -p {prompt}",
        "--sandbox",
        "bubblewrap",
        "--output",
        str(tmp_path / "solve"),
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert (
        "error: agent 'agent' on inventory_cli checkpoint_1: the agent could not be started: "
        "its program "
        "'no-such-agent-cli' was not found" in " ".join(out.stderr.split())
    )
    assert not (tmp_path / "solve" / "grades").exists()
    agents = tmp_path / "agents.yaml"
    agents.write_text(
        yaml.safe_dump(
            {
                "agents": {
                    "broken": "no-such-agent-cli -p {prompt}",
                    "works": "sh -c 'echo {checkpoint} > answer.txt'",
                }
            }
        )
    )
    out = runners_cli(
        "batch",
        "--problems",
        "problems",
        "--problem",
        "inventory_cli",
        "--agents",
        str(agents),
        "--sandbox",
        "bubblewrap",
        "-o",
        str(tmp_path / "batch"),
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "error: broken/inventory_cli/checkpoint_1: the agent never started" in out.stdout
    graded = sorted(
        str(p.parent.relative_to(tmp_path / "batch" / "cells"))
        for p in (tmp_path / "batch" / "cells").rglob("result.json")
    )
    assert graded == [f"works/inventory_cli/checkpoint_{n}" for n in (1, 2, 3)], (
        graded
    )  # the working agent's only
