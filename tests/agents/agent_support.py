"""Small problems with specifications, and helpers to run agent steps on them (real sandboxes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import make_problem, need_sandbox, write_files

from runners.agents.layout import RunLayout, StepRecord
from runners.agents.spec import AgentSpec, parse_agent
from runners.model.config import ProblemConfig
from runners.model.environment import EnvironmentSpec
from runners.model.limits import ResourceLimits
from runners.model.problem_loader import load_problem

BACKENDS = [
    pytest.param("none", id="none"),
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
]
LIMITS = ResourceLimits(memory_mb=512, pids=128, cpus=1.0, tmp_size_mb=64, output_bytes=256 * 1024)

# A problem whose tests check two files the agent is asked to write: `answer.txt` (checkpoint 1)
# and `upper.txt` (checkpoint 2: the upper-cased answer, so the agent needs its earlier file).
TESTS = {
    "test_checkpoint_1.py": """
        from pathlib import Path

        def test_answer():
            assert Path("answer.txt").read_text().strip() == "forty-two"
    """,
    "test_checkpoint_2.py": """
        from pathlib import Path

        def test_upper():
            assert Path("upper.txt").read_text().strip() == "FORTY-TWO"
    """,
    "test_checkpoint_3.py": """
        from pathlib import Path

        def test_done():
            assert Path("done.txt").exists()
    """,
}
SPECS = {
    "checkpoint_1.md": "# Answer\n\nWrite `answer.txt` holding forty-two.\n",
    "checkpoint_2.md": "# Shout\n\nWrite `upper.txt`: the text of `answer.txt`, upper-cased.\n",
    "checkpoint_3.md": "# Finish\n\nCreate `done.txt`.\n",
}


def answer_problem(
    root: Path, name: str = "answer", checkpoints: int = 3, **config: Any
) -> ProblemConfig:
    tests = {k: v for k, v in TESTS.items() if int(k.split("_")[2][0]) <= checkpoints}
    problem = make_problem(root, tests, name=name, checkpoints=checkpoints, **config)
    write_files(problem, {k: v for k, v in SPECS.items() if int(k.split("_")[1][0]) <= checkpoints})
    return load_problem(problem)


def agent(command: str | list[str], name: str = "a", **fields: Any) -> AgentSpec:
    return parse_agent(
        {
            "name": name,
            "command": command,
            "timeout": 60,
            "limits": LIMITS.model_dump(exclude_none=True),
            **fields,
        },
        "test agent",
    ).resolved(Path.cwd(), "test agent")


def environment(backend: str, cache: Path | None = None) -> EnvironmentSpec:
    need_sandbox(backend) if backend != "none" else None
    spec = EnvironmentSpec(sandbox=backend, limits=LIMITS.model_copy(update={"wall_timeout": 120}))
    if cache is not None:
        spec.cache_dir = cache
    return spec


def snapshot_files(layout: RunLayout, record: StepRecord) -> dict[str, str]:
    root = layout.snapshot(record.agent, record.problem, record.checkpoint)
    return {
        p.relative_to(root).as_posix(): p.read_text(errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
