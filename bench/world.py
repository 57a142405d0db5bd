"""What the measurements run on: the example Python problem, or (smoke) a tiny generated one."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from bench.common import EXAMPLE_PROBLEM, EXAMPLE_SUBMISSIONS, Settings


@dataclass(frozen=True)
class Cell:
    problem: Path
    checkpoint: str
    submission: Path
    agent: str

    @property
    def problem_name(self) -> str:
        return self.problem.name

    def describe(self) -> str:
        return f"{self.problem.name} {self.checkpoint} (agent {self.agent})"


@dataclass(frozen=True)
class World:
    problems: Path
    submissions: Path  # <agent>/<problem>/<checkpoint>/
    cell: Cell


def world(settings: Settings) -> World:
    if settings.smoke:
        return tiny_world(settings.data_dir / "smoke-world")
    cell = Cell(
        EXAMPLE_PROBLEM,
        "checkpoint_3",
        EXAMPLE_SUBMISSIONS / "alpha" / EXAMPLE_PROBLEM.name / "checkpoint_3",
        "alpha",
    )
    return World(EXAMPLE_PROBLEM.parent, EXAMPLE_SUBMISSIONS, cell)


CONFTEST = """
import shlex
import pytest


def pytest_addoption(parser):
    parser.addoption("--entrypoint", action="store", required=True)
    parser.addoption("--checkpoint", action="store", required=True)


@pytest.fixture(scope="session")
def entrypoint_argv(request):
    return shlex.split(request.config.getoption("--entrypoint"))
"""

TESTS = {
    "test_checkpoint_1.py": """
        import subprocess, pytest

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_echo(entrypoint_argv):
            assert run(entrypoint_argv, "a").stdout == "a\\n"

        @pytest.mark.functionality
        def test_words(entrypoint_argv):
            assert run(entrypoint_argv, "a", "b").stdout == "a b\\n"

        @pytest.mark.error
        def test_no_args(entrypoint_argv):
            assert run(entrypoint_argv).returncode != 0
    """,
    "test_checkpoint_2.py": """
        import subprocess

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_upper(entrypoint_argv):
            assert run(entrypoint_argv, "--upper", "a").stdout == "A\\n"
    """,
}

MAIN = """
import sys
args = sys.argv[1:]
upper = bool(args) and args[0] == "--upper"
words = args[1:] if upper else args
if not words:
    sys.exit("usage: main.py [--upper] WORD...")
print(" ".join(words).upper() if upper else " ".join(words))
"""

CONFIG = """
name: tiny
version: 1
description: a tiny problem for `python -m bench --smoke`
tags: [bench]
entry_file: main
framework: pytest
timeout: 20
test_dependencies: []
checkpoints:
  checkpoint_1: {version: 1}
  checkpoint_2: {version: 1}
"""


def tiny_world(root: Path) -> World:
    """problems/tiny (2 checkpoints, 4 tests) and two agents with the same good submission."""
    problem = root / "problems" / "tiny"
    files = {problem / "config.yaml": CONFIG, problem / "tests" / "conftest.py": CONFTEST}
    for name, text in TESTS.items():
        files[problem / "tests" / name] = text
    for agent in ("a1", "a2"):
        for checkpoint in ("checkpoint_1", "checkpoint_2"):
            files[root / "submissions" / agent / "tiny" / checkpoint / "main.py"] = MAIN
    for path, text in files.items():
        text = textwrap.dedent(text).lstrip("\n")
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    cell = Cell(
        problem, "checkpoint_2", root / "submissions" / "a1" / "tiny" / "checkpoint_2", "a1"
    )
    return World(root / "problems", root / "submissions", cell)
