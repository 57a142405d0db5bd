"""11. A real coding-agent CLI's step: what the harness adds over the same CLI run bare against the
same scripted model server.

Per preset (Claude Code, Codex CLI: the pinned versions, installed beforehand) and backend, one
agent step (`runners.agents.step.run_step` on a dry run: the workspace copied from checkpoint 1's
snapshot, the CLI's home files, the scripted model server started on the step's socket, the bridge
in the sandbox, the transcript and the session log kept, the report read, the snapshot kept) of
problems/rangeset_lib checkpoint 2, following examples/agents/scripts/rangeset_lib.yaml; against the
same CLI, with the same command, variables and script, run bare on the host in a copy of that
workspace against a server already listening on 127.0.0.1. Both rows include the CLI's own start-up
and its three model turns, so the difference is the harness's cost per step. Rounds interleaved.
Target: ≤ 1 s added per step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench.common import (
    ROOT,
    BenchError,
    Sample,
    Section,
    Settings,
    interleave,
    timed_call,
    timing_row,
    usable_sandboxes,
)
from runners.batch.store import rmtree_forcibly

if TYPE_CHECKING:
    from runners.agents.spec import AgentSpec
    from runners.model.config import CheckpointConfig, ProblemConfig
    from runners.model.environment import EnvironmentSpec

NAME = "real_agents"
TITLE = (
    "11. A real agent CLI's step (dry run) vs the same CLI run bare against the scripted model "
    "server"
)
ADDED_TARGET = 1.0
PROBLEM = ROOT / "problems" / "rangeset_lib"
SCRIPT = ROOT / "examples" / "agents" / "scripts" / "rangeset_lib.yaml"
START = ROOT / "examples" / "submissions" / "alpha" / "rangeset_lib" / "checkpoint_1"
MODELS = {"claude-code": "claude-sonnet-4-5", "codex": "gpt-5-codex"}
SANDBOXES = ("bubblewrap", "docker")


def run(settings: Settings) -> Section:
    from runners.agents.presets import PRESETS
    from runners.agents.presets.install import install
    from runners.agents.solve import agent_sandbox
    from runners.agents.spec import parse_agent
    from runners.model.problem_loader import load_problem

    section = Section(NAME, TITLE)
    problem = load_problem(PROBLEM)
    checkpoint = problem.checkpoints["checkpoint_2"]
    scratch = settings.tmp("real-agents")
    sandboxes = [s for s in usable_sandboxes(settings, section) if s in SANDBOXES]
    if not sandboxes:
        raise BenchError("neither bubblewrap nor docker is usable here")
    presets = list(MODELS)[:1] if settings.smoke else list(MODELS)
    sandboxes = sandboxes[:1] if settings.smoke else sandboxes
    variants = []
    try:
        for name in presets:
            spec = parse_agent(
                {
                    "name": name,
                    "preset": name,
                    "model": MODELS[name],
                    "dry_run": str(SCRIPT),
                    "timeout": 600,
                },
                "bench",
            )
            bwrap_env = settings.environment("bubblewrap")
            # The bare CLI: the one the bubblewrap toolchain installed, run on the host.
            program_dir = install(PRESETS[name], agent_sandbox(spec, bwrap_env), bwrap_env).path[0]
            variants.append((f"{name} · bare CLI", _bare(spec, program_dir, scratch)))
            for sandbox in sandboxes:
                variants.append(
                    (
                        f"{name} · {sandbox} · agent step",
                        _step(spec, problem, checkpoint, settings.environment(sandbox), scratch),
                    )
                )
        load_before = os.getloadavg()[0]
        samples = interleave(settings, variants, settings.repeat, title=NAME)
        section.notes.append(
            f"Load average (1 min) on this shared machine: {load_before:.1f} before the rounds, "
            f"{os.getloadavg()[0]:.1f} after; a CLI's start-up time follows it closely."
        )
        for name in presets:
            base = f"{name} · bare CLI"
            section.add(timing_row(base, samples[base]))
            for sandbox in sandboxes:
                label = f"{name} · {sandbox} · agent step"
                row = section.add(
                    timing_row(
                        label,
                        samples[label],
                        samples[base],
                        base,
                        target=f"≤ {ADDED_TARGET:g} s added",
                    )
                )
                row.met = row.added is not None and row.added <= ADDED_TARGET
    finally:
        rmtree_forcibly(scratch)
    section.notes.append(
        "Each row is one checkpoint of a real CLI (its own start-up, three scripted model turns: "
        "a listing, a file written, a command run): the bare row is the CLI alone; the step adds "
        "the workspace copy, the sandbox (a container for docker), the model server's start and "
        "stop on the step's socket, the bridge, the transcript and session log kept, the report "
        "read and the snapshot kept. The CLIs are installed before the first round (not timed)."
    )
    return section


def _step(
    spec: AgentSpec,
    problem: ProblemConfig,
    checkpoint: CheckpointConfig,
    environment: EnvironmentSpec,
    scratch: Path,
) -> Callable[[], Sample]:
    from runners.agents.layout import RunLayout
    from runners.agents.solve import agent_sandbox
    from runners.agents.step import run_step

    sandbox = agent_sandbox(spec, environment)

    def once() -> Sample:
        layout = RunLayout(scratch / f"run-{spec.name}-{sandbox.name}")
        try:
            sample, record = timed_call(
                lambda: run_step(
                    spec,
                    problem,
                    checkpoint,
                    2,
                    START,
                    "checkpoint_1",
                    layout,
                    environment,
                    sandbox,
                )
            )
            if record.failed:
                raise BenchError(
                    f"{spec.name} in {sandbox.name}: the agent step failed: {record.failure}"
                )
            return sample
        finally:
            rmtree_forcibly(layout.root)

    return once


def _bare(spec: AgentSpec, program_dir: str, scratch: Path) -> Callable[[], Sample]:
    from runners.agents.command import expand
    from runners.agents.model_route import wiring
    from runners.agents.presets import get_preset
    from runners.modelserver.script import Script
    from runners.modelserver.server import ModelServer
    from runners.sandbox.base import base_env

    preset = get_preset(spec.preset)
    script = Script.load(SCRIPT)
    prompt = (PROBLEM / "checkpoint_2.md").read_text(encoding="utf-8")

    def once() -> Sample:
        workspace, home = scratch / "bare-workspace", scratch / "bare-home"
        shutil.copytree(START, workspace)
        home.mkdir()
        for relative, text in preset.home_files.items():
            (home / relative).parent.mkdir(parents=True, exist_ok=True)
            (home / relative).write_text(text, encoding="utf-8")
        server = ModelServer(script, "checkpoint_2", str(workspace)).start()
        try:
            env_extra, args = wiring(preset, f"{server.url}/{preset.name}")
            values = {
                "prompt": prompt,
                "prompt_file": str(PROBLEM / "checkpoint_2.md"),
                "workspace": str(workspace),
                "home": str(home),
                "checkpoint": "checkpoint_2",
                "checkpoint_number": "2",
                "problem": "rangeset_lib",
                "python": "",
            }
            argv = expand(spec.argv, values, {}) + args + preset.dry_run_args()
            env = {**base_env(), "HOME": str(home), **spec.env, **env_extra}
            env["PATH"] = f"{program_dir}:{env['PATH']}"
            sample, proc = timed_call(
                lambda: subprocess.run(
                    argv,
                    cwd=workspace,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=600,
                    check=False,
                )
            )
            if proc.returncode != 0 or server.served().errors:
                raise BenchError(
                    f"the bare {preset.title} failed ({proc.returncode}): "
                    f"{proc.stderr.decode(errors='replace')[-800:]} {server.served().errors}"
                )
            return sample
        finally:
            server.stop()
            rmtree_forcibly(workspace)
            rmtree_forcibly(home)

    return once
