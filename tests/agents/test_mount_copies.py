"""No directory handed to an agent (a mount, its home template) may carry the problem's hidden
tests or their data, wherever it sits: its contents are compared with the problem's files, not
only its path with the problem's (a second checkout of the problems showed an agent its hidden
tests)."""

from __future__ import annotations

import shutil

import pytest
import yaml
from agent_support import agent, answer_problem
from support import run_agents_batch, runners_cli, write_files

from runners.agents import exposure
from runners.agents.exposure import refuse_copies
from runners.agents.layout import RunLayout
from runners.agents.solve import guard
from runners.model.environment import EnvironmentSpec
from runners.model.errors import UserInputError


def test_solve_refuses_a_mount_that_is_another_copy_of_the_problem(tmp_path):
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    copy = tmp_path / "elsewhere" / "answer-copy"
    shutil.copytree(problem.path, copy)
    out = runners_cli(
        "solve",
        str(problem.path),
        "--agent",
        "cat {mounts[notes]}/tests/test_checkpoint_2.py",
        "--mount",
        f"notes={copy}",
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "run"),
    )
    assert out.returncode == 2, out.stdout + out.stderr
    message = " ".join(out.stderr.split())
    assert "field `mounts.notes`:" in message and f"is a copy of {problem.path}/" in message, (
        message
    )
    assert "which the agent must never see" in message and "Traceback" not in out.stderr
    assert not (tmp_path / "run" / "agent-steps").exists()


def test_batch_refuses_an_agent_whose_home_holds_a_renamed_hidden_test(tmp_path):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    home = tmp_path / "home"
    write_files(
        home, {"notes/ideas.txt": (problem.path / "tests" / "test_checkpoint_1.py").read_text()}
    )
    (tmp_path / "agents.yaml").write_text(
        yaml.safe_dump({"agents": {"a": {"command": "true", "home": str(home)}}})
    )
    out = run_agents_batch(tmp_path)
    assert out.returncode == 2, out.stdout + out.stderr
    message = " ".join(out.stderr.split())
    assert (
        f"field `home`: {home / 'notes' / 'ideas.txt'} is a copy of "
        f"{problem.path / 'tests' / 'test_checkpoint_1.py'}"
    ) in message, message


def test_a_case_based_problem_s_expected_outputs_are_guarded_too(tmp_path):
    problem_dir = tmp_path / "problems" / "cases"
    config = {
        "name": "cases",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "main",
        "adapter": {"type": "cli"},
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": {"core": {"type": "Core"}}}},
    }
    case = "case: {args: [add, '2', '3']}\nexpected: {status_code: 0, output: \"5\\n\"}\n"
    write_files(
        problem_dir,
        {
            "config.yaml": yaml.safe_dump(config),
            "checkpoint_1/spec.md": "# Add\n\nAdd two numbers.\n",
            "checkpoint_1/core/add.yaml": case,
        },
    )
    from runners.model.problem_loader import load_problem

    problem = load_problem(problem_dir)
    write_files(tmp_path / "mount", {"cases/add.yaml": case})
    with pytest.raises(UserInputError, match="add.yaml is a copy of .*checkpoint_1/core/add.yaml"):
        refuse_copies({"mounts.m": str(tmp_path / "mount")}, problem, "agent 'a'")


def test_the_starter_unrelated_files_and_tiny_files_are_fine(tmp_path):
    problem = answer_problem(tmp_path / "problems", checkpoints=2)
    write_files(
        problem.path,
        {
            "starter/README.md": "Start here: write answer.txt with the answer in words.\n",
            "tests/__init__.py": "",
        },
    )
    mount = tmp_path / "tools"
    write_files(
        mount,
        {
            "README.md": "Start here: write answer.txt with the answer in words.\n",
            "empty/__init__.py": "",
            "agent.py": "print('a real tool of the agent, nothing hidden')\n",
        },
    )
    spec = agent("true", mounts={"tools": str(mount)})
    guard(spec, problem, RunLayout(tmp_path / "run"), EnvironmentSpec(sandbox="none"), "agent 'a'")


def test_a_directory_too_large_to_check_is_refused_not_trusted(tmp_path, monkeypatch):
    problem = answer_problem(tmp_path / "problems", checkpoints=1)
    write_files(tmp_path / "big", {f"f{n}.txt": f"file {n}" for n in range(12)})
    monkeypatch.setattr(exposure, "MAX_ENTRIES", 10)
    with pytest.raises(UserInputError, match="holds over 10 entries, too many to check"):
        refuse_copies({"mounts.big": str(tmp_path / "big")}, problem, "agent 'a'")
