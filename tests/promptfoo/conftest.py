"""One real `promptfoo eval` per session, shared by the eval and viewer tests."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pf_support import ROOT, build_world, need_promptfoo, promptfoo_env, write_eval_config

AGENTS = ["good", "partial", "broken"]


@dataclass
class EvalRun:
    root: Path
    world: dict[str, Path]
    config: Path
    config_dir: Path
    results: dict[str, Any]
    proc: subprocess.CompletedProcess[str]
    seconds: float
    agents: list[str]


@pytest.fixture(scope="session")
def promptfoo_eval(tmp_path_factory) -> EvalRun:
    """`scripts/compare.sh -c <generated config>`: good, partial and broken agents on `mini`."""
    need_promptfoo()
    root = tmp_path_factory.mktemp("pf-eval")
    world = build_world(root)
    config = write_eval_config(root, world, AGENTS)
    config_dir = root / "promptfoo"
    started = time.monotonic()
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "compare.sh"), "-c", str(config), "--no-table"],
                          cwd=ROOT, env=promptfoo_env(config_dir), capture_output=True, text=True,
                          timeout=420)
    seconds = time.monotonic() - started
    results_file = config_dir / "results.json"
    if proc.returncode != 0 or not results_file.is_file():
        pytest.fail(f"compare.sh exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n"
                    f"--- stderr\n{proc.stderr[-4000:]}")
    results = json.loads(results_file.read_text(encoding="utf-8"))
    return EvalRun(root=root, world=world, config=config, config_dir=config_dir, results=results,
                   proc=proc, seconds=seconds, agents=AGENTS)
