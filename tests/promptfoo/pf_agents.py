"""The agent world of the promptfoo tests: two problems with specifications, and two scripted agents
(examples/agents/scripted_agent.py) whose knowledge is written here.

- `mini` (pf_support): echo words; checkpoint 2 adds `--upper`.
- `tally`: count words; checkpoint 2 adds `--chars`.
- agent `good` knows both right, and reports in Claude Code's JSON shape (cost and tokens);
- agent `partial` knows mini only partly and tally only up to checkpoint 1: at tally's checkpoint 2
  it says it does not know how and exits 1 (a failed agent step), leaving checkpoint 1's work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pf_support import GOOD, PARTIAL, PROVIDERS, ROOT, project_default_test
from pf_support import TESTS as MINI_TESTS
from support import make_problem, write_files

AGENTS = ("good", "partial")
PROBLEMS = ("mini", "tally")
TALLY_TESTS = {
    "test_checkpoint_1.py": """
        import subprocess, pytest

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_counts_words(entrypoint_argv):
            assert run(entrypoint_argv, "a", "bb", "c").stdout == "3\\n"

        @pytest.mark.error
        def test_nothing_to_count_fails(entrypoint_argv):
            assert run(entrypoint_argv).returncode != 0
    """,
    "test_checkpoint_2.py": """
        import subprocess

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_counts_characters(entrypoint_argv):
            assert run(entrypoint_argv, "--chars", "abc", "de").stdout == "5\\n"
    """,
}
SPECS = {
    "mini": {
        "checkpoint_1.md": (
            "# Echo — checkpoint 1\n\n"
            "Print the words given, joined by one space; no words is an error.\n"
        ),
        "checkpoint_2.md": (
            "# Echo — checkpoint 2\n\nWith `--upper`, print the words upper-cased.\n"
        ),
    },
    "tally": {
        "checkpoint_1.md": (
            "# Tally — checkpoint 1\n\nPrint how many words were given; none is an error.\n"
        ),
        "checkpoint_2.md": (
            "# Tally — checkpoint 2\n\nWith `--chars`, print how many characters the words have.\n"
        ),
    },
}
TALLY_1 = """
import sys
words = sys.argv[1:]
if not words:
    sys.exit("usage: main.py WORD...")
print(len(words))
"""
TALLY_2 = """
import sys
args = sys.argv[1:]
chars = bool(args) and args[0] == "--chars"
words = args[1:] if chars else args
if not words:
    sys.exit("usage: main.py [--chars] WORD...")
print(sum(map(len, words)) if chars else len(words))
"""
KNOWLEDGE = {
    "good": {
        "mini": {"checkpoint_1": GOOD, "checkpoint_2": GOOD},
        "tally": {"checkpoint_1": TALLY_1, "checkpoint_2": TALLY_2},
    },
    "partial": {
        "mini": {"checkpoint_1": PARTIAL, "checkpoint_2": PARTIAL},
        "tally": {"checkpoint_1": TALLY_1},
    },
}
SCRIPTED = (
    "{python} {mounts[agent]}/scripted_agent.py --knowledge {mounts[knowledge]} "
    "--problem {problem} "
    "--checkpoint {checkpoint} --prompt {prompt_file}"
)


def build_agent_world(root: Path) -> dict[str, Path]:
    problems = root / "problems"
    for name, tests in (("mini", MINI_TESTS), ("tally", TALLY_TESTS)):
        make_problem(problems, tests, name=name, checkpoints=2, timeout=20)
        write_files(problems / name, SPECS[name])
    world = {"problems": problems, "runs": root / "runs"}
    for agent, known in KNOWLEDGE.items():
        for problem, checkpoints in known.items():
            for checkpoint, main in checkpoints.items():
                write_files(root / "knowledge" / agent / problem / checkpoint, {"main.py": main})
        world[agent] = root / "knowledge" / agent
    return world


def agent_entry(agent: str, knowledge: Path, common: dict[str, Any]) -> dict[str, Any]:
    command = SCRIPTED + (" --format claude-json" if agent == "good" else "")
    return {
        "id": f"file://{PROVIDERS / 'agent_runner.py'}",
        "label": f"agent-{agent}",
        "config": {
            **common,
            "agent": {
                "name": agent,
                "command": command,
                "timeout": 60,
                "mounts": {"agent": str(ROOT / "examples" / "agents"), "knowledge": str(knowledge)},
            },
        },
    }


def write_agent_config(root: Path, world: dict[str, Path], sandbox: str, **extra: Any) -> Path:
    """Two scripted agents over mini and tally, run in `sandbox`, then graded (absolute paths)."""
    common = {
        "problems": str(world["problems"]),
        "sandbox": sandbox,
        "pass_policy": "all-cases",
        "wall_timeout": 120,
        "timeout": 600000,
        "output": str(world["runs"]),
        **extra,
    }
    config = {
        "description": "runners agents test",
        "sharing": False,
        "prompts": [{"label": "spec", "raw": "Implement the checkpoint's specification"}],
        "providers": [agent_entry(agent, world[agent], common) for agent in AGENTS],
        "tests": [
            {
                "path": f"file://{PROVIDERS / 'tests_from_problems.py'}:generate_tests",
                "config": {"problems": str(world["problems"])},
            }
        ],
        "defaultTest": project_default_test(
            yaml.safe_load((ROOT / "promptfooconfig.agents.yaml").read_text(encoding="utf-8"))
        ),
    }
    path = root / "promptfooconfig.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
