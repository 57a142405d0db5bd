"""Shared pieces of the promptfoo tests: a tiny two-checkpoint problem, agents, the environment."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from support import make_problem, make_submission, need

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = ROOT / "providers"
NODE_BIN = ROOT / "node_modules" / ".bin"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / ".runners" / "artifacts"
#: Where plain `npx promptfoo ...` keeps its data when run from the project root (the .env).
PROMPTFOO_DIR = ROOT / ".runners" / "promptfoo"

# checkpoint_1: echo the words; checkpoint_2: --upper upper-cases them. Groups: Core, Functionality
# (marker), Error (marker); checkpoint_2 reruns checkpoint_1's tests as Regression.
TESTS = {
    "test_checkpoint_1.py": """
        import subprocess, pytest

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_echo(entrypoint_argv):
            assert run(entrypoint_argv, "a").stdout == "a\\n"

        @pytest.mark.functionality
        def test_echo_words(entrypoint_argv):
            assert run(entrypoint_argv, "a", "b").stdout == "a b\\n", "words are joined by one space"

        @pytest.mark.error
        def test_no_args_fails(entrypoint_argv):
            # The message quotes the command, as real suites do: harness paths the viewer must not show.
            assert run(entrypoint_argv).returncode != 0, f"no arguments must be an error: {entrypoint_argv}"
    """,  # noqa: E501
    "test_checkpoint_2.py": """
        import subprocess, pytest

        def run(argv, *args):
            return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)

        def test_upper(entrypoint_argv):
            assert run(entrypoint_argv, "--upper", "a").stdout == "A\\n"

        def test_upper_words(entrypoint_argv):
            assert run(entrypoint_argv, "--upper", "a", "b").stdout == "A B\\n", "every word upper-cased"

        @pytest.mark.error
        def test_upper_alone_fails(entrypoint_argv):
            assert run(entrypoint_argv, "--upper").returncode != 0
    """,  # noqa: E501
}

GOOD = """
import sys
args = sys.argv[1:]
upper = bool(args) and args[0] == "--upper"
words = args[1:] if upper else args
if not words:
    sys.exit("usage: main.py [--upper] WORD...")
text = " ".join(words)
print(text.upper() if upper else text)
"""

# Passes Core, misses the error case of checkpoint 1 and upper-cases only the first word.
PARTIAL = """
import sys
args = sys.argv[1:]
if args and args[0] == "--upper":
    words = args[1:]
    if not words:
        sys.exit(2)
    print(" ".join([words[0].upper()] + words[1:]))
else:
    print(" ".join(args))
"""

AGENTS = {"good": GOOD, "partial": PARTIAL}
PROBLEM = "mini"
CHECKPOINTS = ("checkpoint_1", "checkpoint_2")


def build_world(root: Path) -> dict[str, Path]:
    """problems/mini and submissions/<agent>/mini/checkpoint_N for the good and partial agents."""
    problems = root / "problems"
    make_problem(problems, TESTS, name=PROBLEM, checkpoints=2, timeout=20)
    paths = {"problems": problems}
    for agent, main in AGENTS.items():
        agent_root = root / "submissions" / agent
        for checkpoint in CHECKPOINTS:
            make_submission(agent_root / PROBLEM, {"main.py": main}, checkpoint)
        paths[agent] = agent_root
    # A typo in the YAML: the agent's submission root does not exist, so every row of its column
    # must be an error row naming the path.
    paths["broken"] = root / "submissions" / "brokn"
    return paths


def load_provider_module(name: str) -> ModuleType:
    """providers/<name>.py imported by path, as promptfoo does (providers/ is not a package)."""
    path = PROVIDERS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"pf_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ---- the Node side ------------------------------------------------------------------------------


def need_promptfoo() -> None:
    need(
        (NODE_BIN / "promptfoo").exists() and (NODE_BIN / "node").exists(),
        "promptfoo is not installed in node_modules (run: bash scripts/setup-node.sh)",
    )
    need(shutil.which("npx") is not None, "npx is missing (install Node >= 20 with npm)")


def need_chromium() -> None:
    need(CHROMIUM.exists(), f"{CHROMIUM} is missing (run as root: apt-get install chromium)")
    need(
        (ROOT / "node_modules" / "playwright-core" / "package.json").is_file(),
        "playwright-core is not installed in node_modules (run: bash scripts/setup-node.sh)",
    )


def plain_env(home: Path) -> dict[str, str]:
    """What a user's shell gives `npx promptfoo ...`: PATH and HOME, nothing of the project's."""
    return {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": str(home)}


def write_eval_config(
    root: Path, world: dict[str, Path], agents: list[str], **provider: Any
) -> Path:
    """A promptfoo config like the project's, for `agents` on the mini problem (absolute paths)."""
    common = {
        "problems": str(world["problems"]),
        "sandbox": "none",
        "pass_policy": "all-cases",
        "wall_timeout": 120,
        "timeout": 300000,
        "output": str(root / "runs"),
        **provider,
    }
    project = yaml.safe_load((ROOT / "promptfooconfig.yaml").read_text(encoding="utf-8"))
    config = {
        "description": "runners promptfoo test",
        "sharing": False,
        "prompts": project["prompts"],
        "providers": [
            {
                "id": f"file://{PROVIDERS / 'test_runner.py'}",
                "label": f"agent-{agent}",
                "config": {**common, "agent": agent, "submissions": str(world[agent])},
            }
            for agent in agents
        ],
        "tests": [
            {
                "path": f"file://{PROVIDERS / 'tests_from_problems.py'}:generate_tests",
                "config": {"problems": str(world["problems"])},
            }
        ],
        "defaultTest": project_default_test(project),
    }
    path = root / "promptfooconfig.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def project_default_test(project: dict[str, Any]) -> dict[str, Any]:
    """The project config's `defaultTest` (its assertion, as the README's eval grades), with the
    assertion's path made absolute."""
    asserts = [
        {**a, "value": a["value"].replace("file://providers/", f"file://{PROVIDERS}/")}
        for a in project["defaultTest"]["assert"]
    ]
    assert all(a["value"].startswith(f"file://{PROVIDERS}/") for a in asserts), asserts
    return {**project["defaultTest"], "assert": asserts}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
