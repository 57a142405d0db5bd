"""8. The agent step: what running an agent in its sandbox adds over running its command bare.

Per backend, one agent step (`runners.agents.step.run_step`: the workspace copied from the previous
snapshot, the spec alone in its prompt directory, the sandbox, the transcript, the snapshot kept)
of the scripted example agent (`examples/agents/scripted_agent.py`, knowledge `alpha`) at
`inventory_cli` checkpoint 2, from checkpoint 1's workspace; against the same agent command run
bare in a copy of that workspace (a host subprocess, nothing kept). Rounds interleaved. Target:
≤ 1 s added per step (an agent's own work takes seconds to minutes).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

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

NAME = "agents"
TITLE = "8. The agent step: a scripted agent's checkpoint in its sandbox, against its bare command"
ADDED_TARGET = 1.0
AGENT = ROOT / "examples" / "agents" / "scripted_agent.py"
KNOWLEDGE = ROOT / "examples" / "submissions" / "alpha"
PROBLEM = ROOT / "problems" / "inventory_cli"


def run(settings: Settings) -> Section:
    from runners.agents.layout import RunLayout
    from runners.agents.solve import agent_sandbox
    from runners.agents.spec import parse_agent
    from runners.agents.step import run_step
    from runners.model.problem_loader import load_problem

    section = Section(NAME, TITLE)
    problem = load_problem(PROBLEM)
    checkpoint = problem.checkpoints["checkpoint_2"]
    start = KNOWLEDGE / "inventory_cli" / "checkpoint_1"
    spec = parse_agent(
        {
            "name": "scripted-alpha",
            "timeout": 120,
            "command": "{python} {mounts[agent]}/scripted_agent.py --knowledge {mounts[knowledge]} "
            "--problem {problem} --checkpoint {checkpoint} --prompt {prompt_file}",
            "mounts": {"agent": str(AGENT.parent), "knowledge": str(KNOWLEDGE)},
        },
        "bench agent",
    )
    scratch = settings.tmp("agents")

    def bare() -> Sample:
        workspace = scratch / "bare"
        shutil.copytree(start, workspace)
        try:
            sample, proc = timed_call(
                lambda: subprocess.run(
                    [
                        sys.executable,
                        str(AGENT),
                        "--knowledge",
                        str(KNOWLEDGE),
                        "--problem",
                        "inventory_cli",
                        "--checkpoint",
                        "checkpoint_2",
                        "--prompt",
                        str(PROBLEM / "checkpoint_2.md"),
                    ],
                    cwd=workspace,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=120,
                    check=False,
                )
            )
            if proc.returncode != 0:
                raise BenchError(
                    f"the bare agent failed: {proc.stderr.decode(errors='replace')[-500:]}"
                )
            return sample
        finally:
            rmtree_forcibly(workspace)

    def stepped(sandbox: str):
        environment = settings.environment(sandbox)
        chosen = agent_sandbox(spec, environment)

        def once() -> Sample:
            layout = RunLayout(scratch / f"run-{sandbox}")
            try:
                sample, record = timed_call(
                    lambda: run_step(
                        spec,
                        problem,
                        checkpoint,
                        2,
                        start,
                        "checkpoint_1",
                        layout,
                        environment,
                        chosen,
                    )
                )
                if record.failed:
                    raise BenchError(f"{sandbox}: the agent step failed: {record.failure}")
                return sample
            finally:
                rmtree_forcibly(layout.root)

        return once

    try:
        base = "bare command (host subprocess)"
        variants = [(base, bare)]
        for sandbox in usable_sandboxes(settings, section):
            variants.append((f"{sandbox} · agent step", stepped(sandbox)))
        samples = interleave(settings, variants, settings.repeat, title=NAME)
        section.add(timing_row(base, samples[base]))
        for label, _ in variants[1:]:
            row = section.add(
                timing_row(
                    label, samples[label], samples[base], base, target=f"≤ {ADDED_TARGET:g} s added"
                )
            )
            row.met = row.added is not None and row.added <= ADDED_TARGET
    finally:
        rmtree_forcibly(scratch)
    section.notes.append(
        "The step includes copying the previous snapshot into a fresh workspace, starting the "
        "sandbox (a container for docker), reading the agent's report and keeping the snapshot "
        "and transcript; the agent itself (a Python script writing three files) takes the bare "
        "row's time."
    )
    return section
