"""Agent steps in real sandboxes: the workspace carries over, the agent sees its checkpoint's
specification and the variables it is allowed, a failed or timed-out step is kept and the next
one goes on from what it left."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from agent_support import BACKENDS, agent, answer_problem, environment, snapshot_files

from runners.agents.chain import ensure_steps
from runners.agents.layout import RunLayout, StepRecord
from runners.agents.solve import AgentNotStarted, agent_sandbox, solve
from runners.model.errors import UserInputError
from runners.model.policy import PassPolicy

# checkpoint 1 writes the answer and a note; checkpoint 2 reads both back (its own earlier files).
CARRY = (
    "sh -c 'ls -a {workspace} > listing-{checkpoint_number}.txt; "
    "if [ {checkpoint_number} = 1 ]; then echo forty-two > answer.txt; "
    'echo "note from {checkpoint}" > notes.txt; '
    "else tr a-z A-Z < answer.txt > upper.txt; cat notes.txt > seen.txt; fi; echo did {checkpoint}'"
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_checkpoint_starts_from_what_the_previous_one_left(tmp_path, backend):
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout = RunLayout(tmp_path / "run")
    env = environment(backend)
    solved = solve(agent(CARRY), problem, layout, env)
    assert [s.step.failure for s in solved] == [None, None]
    first, second = (snapshot_files(layout, s.step) for s in solved)
    assert second["seen.txt"] == "note from checkpoint_1\n"  # read back what checkpoint 1 wrote
    assert (
        second["upper.txt"] == "FORTY-TWO\n" and "seen.txt" not in first
    )  # snapshots are separate
    assert second["listing-2.txt"].split() == [
        ".",
        "..",
        "answer.txt",
        "listing-1.txt",
        "listing-2.txt",
        "notes.txt",
    ]
    assert [s.result.summary for s in solved] == ["Core 1/1", "Core 1/1, Regression 1/1"]
    assert all(s.passed(PassPolicy.ALL_CASES) for s in solved)
    assert solved[1].step.started_from == "checkpoint_1" and solved[0].step.started_from == "empty"
    assert solved[1].step.excerpt == "did checkpoint_2"
    transcript = layout.step_dir("a", "answer", "checkpoint_2")
    assert (transcript / "stdout.txt").read_text() == "did checkpoint_2\n"
    assert StepRecord.load(transcript) == solved[1].step
    assert ("unsandboxed" in solved[0].step.flags) is (backend == "none")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_agent_gets_its_spec_alone_its_home_and_only_allowed_variables(
    tmp_path, backend, monkeypatch
):
    monkeypatch.setenv("RUNNERS_TEST_API_KEY", "key-123")
    monkeypatch.setenv("RUNNERS_TEST_SECRET", "secret-456")
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout = RunLayout(tmp_path / "run")
    command = (
        "sh -c 'ls $(dirname {prompt_file}) > prompts.txt; cat {prompt_file} > spec.txt; "
        "env | sort > env.txt; touch $HOME/h && echo home-ok > home.txt; "
        "echo tmp > $TMPDIR/t && echo tmp-ok > tmp.txt'"
    )
    spec = agent(
        command, pass_env=["RUNNERS_TEST_API_KEY", "RUNNERS_TEST_MISSING"], env={"MODE": "fast"}
    )
    records = ensure_steps(
        spec,
        problem,
        problem.checkpoints["checkpoint_2"],
        layout,
        environment(backend),
        agent_sandbox(spec, environment(backend)),
    )
    files = snapshot_files(layout, records[1])
    assert files["prompts.txt"].split() == [
        "checkpoint_2.md"
    ]  # not checkpoint_1's or any later spec
    assert files["spec.txt"] == (problem.path / "checkpoint_2.md").read_text()
    env = dict(line.split("=", 1) for line in files["env.txt"].splitlines() if "=" in line)
    assert env["RUNNERS_TEST_API_KEY"] == "key-123" and env["MODE"] == "fast"
    assert "RUNNERS_TEST_SECRET" not in env and "secret-456" not in files["env.txt"]
    assert env["RUNNERS_CHECKPOINT"] == "checkpoint_2" and env["RUNNERS_CHECKPOINT_NUMBER"] == "2"
    assert env["RUNNERS_PROBLEM"] == "answer" and env["RUNNERS_PROMPT_FILE"].endswith(
        "/checkpoint_2.md"
    )
    assert env["HOME"] != os.environ.get("HOME") and env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert files["home.txt"] == "home-ok\n" and files["tmp.txt"] == "tmp-ok\n"
    assert "not set on the host, so not passed: RUNNERS_TEST_MISSING" in records[1].notes


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failed_or_timed_out_step_is_a_graded_failure_and_the_next_goes_on(tmp_path, backend):
    problem = answer_problem(tmp_path / "problems", checkpoints=3)
    layout = RunLayout(tmp_path / "run")
    command = (
        "sh -c 'case {checkpoint_number} in "
        "1) echo forty-two > answer.txt; echo cannot go on >&2; exit 3;; "
        "2) tr a-z A-Z < answer.txt > upper.txt; sleep 300;; "
        "3) test -f upper.txt && touch done.txt;; esac'"
    )
    spec = agent(command, timeout=3)
    solved = solve(spec, problem, layout, environment(backend))
    first, second, third = solved
    assert first.step.failure == "the agent exited with code 3: cannot go on"
    assert not first.passed(PassPolicy.ALL_CASES)
    assert first.result.summary == "Core 1/1"  # what it left is graded all the same
    assert second.step.timed_out and second.step.failure.startswith(
        "timed out: the agent did not finish within its limit of 3 s"
    )
    assert (
        snapshot_files(layout, second.step)["upper.txt"] == "FORTY-TWO\n"
    )  # kept what it wrote before the kill
    assert third.step.failure is None and third.step.started_from == "checkpoint_2"
    assert third.result.summary == "Core 1/1, Regression 2/2"
    assert third.verdicts()["all-cases"] and not second.verdicts()["all-cases"]
    assert second.step.duration < 3 + 10


def test_a_starter_directory_seeds_the_first_checkpoint(tmp_path):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    (problem.path / "starter").mkdir()
    (problem.path / "starter" / "answer.txt").write_text("forty-two\n")
    layout = RunLayout(tmp_path / "run")
    spec = agent("sh -c 'ls > seen.txt'")
    [record] = ensure_steps(
        spec,
        problem,
        problem.checkpoints["checkpoint_1"],
        layout,
        environment("none"),
        agent_sandbox(spec, environment("none")),
    )
    assert record.started_from == "starter"
    assert snapshot_files(layout, record)["seen.txt"].split() == ["answer.txt", "seen.txt"]
    assert (problem.path / "starter" / "answer.txt").read_text() == "forty-two\n"  # only read


ROW = """
import sys
import time
from pathlib import Path
from runners.agents.chain import ensure_steps
from runners.agents.layout import RunLayout
from runners.agents.spec import parse_agent
from runners.model.problem_loader import load_problem
from runners.model.environment import EnvironmentSpec
from runners.sandbox.none import NoSandbox
problem_dir, run, checkpoint, log = sys.argv[1:5]
spec = parse_agent({"name": "a", "command": [
    "sh", "-c", "sleep 0.5; echo {checkpoint} >> " + log + "; echo {checkpoint} >> trail.txt",
]}, "t")
problem = load_problem(problem_dir)
records = ensure_steps(spec, problem, problem.checkpoints[checkpoint], RunLayout(Path(run)),
                       EnvironmentSpec(sandbox="none"), NoSandbox())
print(" ".join(r.checkpoint for r in records))
"""


@pytest.mark.slow
def test_rows_in_any_order_and_processes_run_each_step_once_in_order(tmp_path):
    """Promptfoo may ask for checkpoint 3 first, from several worker processes at once: the
    chain's lock makes each step run once, in order, and nobody waits on a row that waits."""
    problem = answer_problem(tmp_path / "problems", checkpoints=3)
    log = tmp_path / "runs.log"
    rows = [
        subprocess.Popen(
            [sys.executable, "-c", ROW, str(problem.path), str(tmp_path / "run"), cp, str(log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for cp in ("checkpoint_3", "checkpoint_2", "checkpoint_3", "checkpoint_1")
    ]
    outs = [row.communicate(timeout=120)[0].split() for row in rows]
    assert all(row.returncode == 0 for row in rows)
    assert outs == [
        ["checkpoint_1", "checkpoint_2", "checkpoint_3"],
        ["checkpoint_1", "checkpoint_2"],
        ["checkpoint_1", "checkpoint_2", "checkpoint_3"],
        ["checkpoint_1"],
    ]
    assert log.read_text().split() == ["checkpoint_1", "checkpoint_2", "checkpoint_3"]
    trail = (
        tmp_path / "run" / "submissions" / "a" / "answer" / "checkpoint_3" / "trail.txt"
    ).read_text()
    assert trail.split() == ["checkpoint_1", "checkpoint_2", "checkpoint_3"]


@pytest.mark.parametrize("leaves", ["nothing", "a link"])
@pytest.mark.slow
def test_an_agent_that_removes_its_workspace_leaves_an_empty_snapshot(tmp_path, leaves):
    """On `none` the agent can remove its own working directory, or put a link to a host
    directory in its place: the step is still recorded, its snapshot is empty (the link is not
    followed into the host), and the next checkpoint starts from that."""
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    outside = tmp_path / "host-dir"
    outside.mkdir()
    (outside / "host-secret.txt").write_text("not the agent's\n")
    replace = f'ln -s {outside} "$w"' if leaves == "a link" else "true"
    command = (
        "sh -c 'if [ {checkpoint_number} = 1 ]; then echo forty-two > answer.txt; w=$(pwd); cd ..; "
        f'rm -rf "$w"; {replace}; echo gone; else ls -a > seen.txt; fi\''
    )
    layout = RunLayout(tmp_path / "run")
    first, second = solve(agent(command), problem, layout, environment("none"))
    assert first.step.excerpt == "gone" and first.step.exit_code == 0
    assert snapshot_files(layout, first.step) == {}
    assert any("removed its workspace" in note for note in first.step.notes)
    assert first.result.summary == "Core 0/1"
    assert StepRecord.load(layout.step_dir("a", "answer", "checkpoint_1")) == first.step
    assert second.step.started_from == "checkpoint_1"
    assert snapshot_files(layout, second.step)["seen.txt"].split() == [".", "..", "seen.txt"]
    assert (outside / "host-secret.txt").read_text() == "not the agent's\n"


def test_a_row_whose_steps_are_done_does_not_wait_for_a_later_step(tmp_path):
    """While one row runs checkpoint 3's step (holding the chain's lock, possibly for the agent's
    whole time limit), a row of checkpoint 1, whose step is done, answers at once: it must not
    wait, nor run out of its own time, behind a step it does not need."""
    from runners.agents.chain import LOCK_FILE, chain_lock

    problem = answer_problem(tmp_path / "problems", checkpoints=3)
    layout = RunLayout(tmp_path / "run")
    spec, env = agent("sh -c 'echo {checkpoint} > trail.txt'"), environment("none")
    sandbox = agent_sandbox(spec, env)
    done = ensure_steps(spec, problem, problem.checkpoints["checkpoint_2"], layout, env, sandbox)
    with chain_lock(
        layout.chain_dir("a", "answer") / LOCK_FILE, None
    ):  # checkpoint 3's row, running
        started = time.monotonic()
        again = ensure_steps(
            spec,
            problem,
            problem.checkpoints["checkpoint_1"],
            layout,
            env,
            sandbox,
            deadline=time.monotonic() + 2,
        )
        assert time.monotonic() - started < 1
    assert again == done[:1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_agent_program_that_is_not_there_says_so_and_nothing_is_graded(tmp_path, backend):
    """A CLI not installed where the agent runs (not on the host's /usr, not in the image) is
    said plainly, the same on every backend: not as the launcher's words ("bwrap: execvp ...",
    "timeout: failed to run command ...", which reads like a time-out). It never ran: an error of
    the agent's configuration (bad input), with no snapshot and no grade, and no later step."""
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout = RunLayout(tmp_path / "run")
    with pytest.raises(AgentNotStarted) as info:
        solve(agent("no-such-agent-cli -p {prompt}"), problem, layout, environment(backend))
    step = info.value.record
    assert step.failure == (
        "the agent could not be started: its program 'no-such-agent-cli' was not found where it "
        "runs (its PATH: /usr/local/bin:/usr/bin:/bin; install it there, mount it, or give its "
        "absolute path)"
    ), step.failure
    assert step.not_started and not step.timed_out and "timeout" not in step.failure
    assert isinstance(info.value, UserInputError) and "nothing was graded" in str(info.value)
    assert (
        step.checkpoint == "checkpoint_1"
        and not layout.snapshot("a", "answer", "checkpoint_1").exists()
    )
    assert not layout.step_dir("a", "answer", "checkpoint_2").exists()  # the chain stopped
    assert not (layout.root / "grades").exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_agent_that_fails_before_doing_anything_is_not_graded(tmp_path, backend):
    """A bad option or a missing key: it exits non-zero at once, changes nothing and reports no
    model use. Not a grade of the empty workspace (which used to earn the Error tests' credit)."""
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    layout = RunLayout(tmp_path / "run")
    with pytest.raises(AgentNotStarted) as info:
        solve(
            agent("sh -c 'echo error: unknown option --frobnicate >&2; exit 2'"),
            problem,
            layout,
            environment(backend),
        )
    assert info.value.record.not_started
    assert "failed before doing anything" in str(
        info.value
    ) and "unknown option --frobnicate" in str(info.value)
    # One that worked a little (it wrote a file) and then failed is graded, as before.
    worked = solve(
        agent("sh -c 'echo wrong > answer.txt; exit 1'", name="b"),
        problem,
        layout,
        environment(backend),
    )
    assert worked[0].step.failed and not worked[0].step.not_started and worked[0].result.graded


@pytest.mark.slow
def test_a_resumed_run_reruns_steps_of_other_settings_or_a_harness_failure(tmp_path):
    """Resuming (`solve`/`batch --agents` with the same output): steps done with the same agent
    settings are kept; a step run with other settings (the command was fixed, the timeout raised)
    or one that failed for the harness (not the agent) runs again, and every step after it,
    since each starts from the one before."""
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    layout, env = RunLayout(tmp_path / "run"), environment("none")
    first = agent("sh -c 'echo wrong > answer.txt; echo first > who.txt'")
    done = [s.step for s in solve(first, problem, layout, env)]
    assert [s.step for s in solve(first, problem, layout, env)] == done  # same settings: kept
    fixed = agent(
        "sh -c 'echo forty-two > answer.txt; tr a-z A-Z < answer.txt > upper.txt; "
        "echo fixed > who.txt'"
    )
    redone = solve(fixed, problem, layout, env)
    assert [s.step.command for s in redone] == [fixed.argv, fixed.argv]
    assert [snapshot_files(layout, s.step)["who.txt"] for s in redone] == ["fixed\n", "fixed\n"]
    assert all(s.passed(PassPolicy.ALL_CASES) for s in redone)
    # The harness failed at checkpoint 2 (say docker was down): the next call runs it again.
    record = redone[1].step.model_copy(
        update={"failure": "infrastructure failure: engine down", "infrastructure": True}
    )
    record.save(layout.step_dir("a", "answer", "checkpoint_2"))
    again = ensure_steps(
        fixed, problem, problem.checkpoints["checkpoint_2"], layout, env, agent_sandbox(fixed, env)
    )
    assert (
        again[0] == redone[0].step
        and again[1].failure is None
        and again[1].started_at > record.started_at
    )
    # Checkpoint 1 ran again on its own (a row of checkpoint 1 alone): checkpoint 2 started from
    # the snapshot before, so it is run again too.
    record = again[0].model_copy(
        update={"failure": "infrastructure failure: engine down", "infrastructure": True}
    )
    record.save(layout.step_dir("a", "answer", "checkpoint_1"))
    [first_again] = ensure_steps(
        fixed, problem, problem.checkpoints["checkpoint_1"], layout, env, agent_sandbox(fixed, env)
    )
    last = ensure_steps(
        fixed, problem, problem.checkpoints["checkpoint_2"], layout, env, agent_sandbox(fixed, env)
    )
    assert (
        last[0] == first_again and last[1].started_at > first_again.started_at > again[1].started_at
    )
