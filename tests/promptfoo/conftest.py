"""One real `npx promptfoo eval` per session, shared by the eval and viewer tests.

Run as a user runs it: from the project root, with nothing in the environment but PATH and a
HOME of its own (so nothing can come from the developer's shell or land in ~/.promptfoo). The
project's settings come from its .env, read by promptfoo itself; the eval lands in the project's
.runners/promptfoo/, where plain `npx promptfoo view` finds it, and is deleted at the end.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pf_support import (
    PROMPTFOO_DIR,
    ROOT,
    build_world,
    need_promptfoo,
    plain_env,
    write_eval_config,
)
from support import need_sandbox

from runners.model.environment import EnvironmentSpec

AGENTS = ["good", "partial", "broken"]


@dataclass
class EvalRun:
    root: Path
    world: dict[str, Path]
    config: Path
    config_dir: Path
    home: Path
    results: dict[str, Any]
    proc: subprocess.CompletedProcess[str]
    seconds: float
    agents: list[str]


def run_eval(
    root: Path, world: dict[str, Path], config: Path, home: Path, agents: list[str], *options: str
) -> Iterator[EvalRun]:
    """`npx promptfoo eval -c CONFIG -o <root>/results.json --no-table OPTIONS` from the project
    root; yields the run, then deletes the eval (the developer's viewer is left as it was)."""
    results_file = root / "results.json"
    started = time.monotonic()
    proc = subprocess.run(
        [
            "npx",
            "promptfoo",
            "eval",
            "-c",
            str(config),
            "-o",
            str(results_file),
            "--no-table",
            *options,
        ],
        cwd=ROOT,
        env=plain_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    seconds = time.monotonic() - started
    if proc.returncode not in (0, 100) or not results_file.is_file():
        pytest.fail(
            f"npx promptfoo eval exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n"
            f"--- stderr\n{proc.stderr[-4000:]}"
        )
    results = json.loads(results_file.read_text(encoding="utf-8"))
    yield EvalRun(
        root=root,
        world=world,
        config=config,
        config_dir=PROMPTFOO_DIR,
        home=home,
        results=results,
        proc=proc,
        seconds=seconds,
        agents=agents,
    )
    subprocess.run(
        ["npx", "promptfoo", "delete", "eval", results["evalId"]],
        cwd=ROOT,
        env=plain_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _home(root: Path) -> Path:
    home = root / "home"
    home.mkdir()
    return home


@pytest.fixture(scope="session")
def promptfoo_eval(tmp_path_factory):
    """`npx promptfoo eval -c <generated config> -o <tmp>/results.json`: good, partial and broken
    agents on `mini`."""
    need_promptfoo()
    root = tmp_path_factory.mktemp("pf-eval")
    world = build_world(root)
    # The prepared toolchains of the developer's cache (a provider setting, not a variable).
    config = write_eval_config(root, world, AGENTS, cache_dir=str(EnvironmentSpec().cache_dir))
    yield from run_eval(root, world, config, _home(root), AGENTS)


@pytest.fixture(scope="session")
def agent_eval(tmp_path_factory):
    """`npx promptfoo eval -j 4` of two scripted agents (run in bubblewrap, then graded) over two
    problems: the agent rows of one column run in up to four worker processes at once."""
    from pf_agents import AGENTS as SCRIPTED
    from pf_agents import build_agent_world, write_agent_config

    need_promptfoo()
    need_sandbox("bubblewrap")
    root = tmp_path_factory.mktemp("pf-agents")
    world = build_agent_world(root)
    config = write_agent_config(
        root, world, "bubblewrap", cache_dir=str(EnvironmentSpec().cache_dir)
    )
    yield from run_eval(root, world, config, _home(root), list(SCRIPTED), "-j", "4")
