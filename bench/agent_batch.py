"""11. Agents with repeats at scale: `runners batch --agents` with 3 agents × every example problem
× 3 repeats, at `-j 2` and on Ray, then the same command again (every run stored: nothing to do).

The agents are the scripted example agents (`examples/agents/scripted_agent.py`) with the three
example submissions as their knowledge (alpha, beta, gamma), `repeat: 3` each; the problems are the
example problems that have a specification per checkpoint (the agent step needs one). One round
per variant (a round is minutes of work): a fresh output directory, `--sandbox bubblewrap`, the
agent steps (`-j 2` chains at a time) then the grading of every snapshot (`-j 2` workers, or Ray
tasks on a private local Ray started by the batch). Smoke: one agent, one problem, 2 repeats,
`-j 2` only.
"""

from __future__ import annotations

import json
import os

import yaml

from bench.common import PYTHON, ROOT, Row, Section, Settings, Unavailable, run_timed
from runners.batch.store import rmtree_forcibly

NAME = "agent_batch"
TITLE = "11. Agents with repeats: 3 agents × every example problem × 3 repeats, -j 2 and Ray"
SANDBOX = "bubblewrap"
AGENT = ROOT / "examples" / "agents"
KNOWLEDGE = ROOT / "examples" / "submissions"
COMMAND = (
    "{python} {mounts[agent]}/scripted_agent.py --knowledge {mounts[knowledge]} --problem "
    "{problem} --checkpoint {checkpoint} --prompt {prompt_file} --format claude-json"
)


def _problems() -> list[str]:
    from runners.agents.step import spec_file
    from runners.model.errors import ConfigError
    from runners.model.problem_loader import load_problem

    found = []
    for path in sorted((ROOT / "problems").iterdir()):
        if not (path / "config.yaml").is_file():
            continue
        problem = load_problem(path)
        try:
            for checkpoint in problem.ordered_checkpoints():
                spec_file(problem, checkpoint)
        except ConfigError:
            continue
        found.append(path.name)
    return found


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    from runners.sandbox.registry import sandbox_class

    if sandbox_class(SANDBOX).probe() is not None:
        raise Unavailable(f"{SANDBOX} is not usable here")
    problems = _problems()
    knowledge, repeats = ("alpha", "beta", "gamma"), 3
    if settings.smoke:
        problems, knowledge, repeats = problems[-1:], ("alpha",), 2
    elif settings.quick:
        problems = [p for p in problems if p in ("inventory_cli", "unit_conv")] or problems[:2]
    scratch = settings.tmp("agent-batch")
    agents_file = scratch / "agents.yaml"
    agents_file.write_text(
        yaml.safe_dump(
            {
                "agents": {
                    f"scripted-{k}": {
                        "command": COMMAND,
                        "repeat": repeats,
                        "timeout": 300,
                        "mounts": {"agent": str(AGENT), "knowledge": str(KNOWLEDGE / k)},
                    }
                    for k in knowledge
                }
            }
        )
    )
    variants = [("-j 2", []), ("Ray (private local Ray, -j 2 in flight)", ["--executor", "ray"])]
    if settings.smoke:  # starting Ray alone takes most of a smoke run's minute
        variants = variants[:1]
    try:
        for label, extra in variants:
            if extra and not _ray_installed():
                section.notes.append(
                    f"{label}: not measured, ray is not installed (uv sync --extra ray)"
                )
                continue
            out = scratch / f"out-{len(extra)}"
            argv = [
                PYTHON,
                "-m",
                "runners",
                "batch",
                "--problems",
                str(ROOT / "problems"),
                "--agents",
                str(agents_file),
                "--sandbox",
                SANDBOX,
                "-j",
                "2",
                "--output",
                str(out),
                "--pass-policy",
                "any",
                *extra,
                *settings.cache_args(),
            ]
            for problem in problems:
                argv += ["--problem", problem]
            settings.log(f"  agent_batch: {label}")
            proc = run_timed(argv, cwd=ROOT, timeout=7200)
            proc.check((0,), f"runners batch --agents ({label})")
            steps = [json.loads(p.read_text()) for p in (out / "agent-steps").rglob("step.json")]
            cells = list((out / "cells").rglob("cell.json"))
            failed = [s for s in steps if s.get("failure")]
            agent_seconds = sum(s.get("duration", 0.0) for s in steps)
            wall = proc.sample.wall
            section.add(
                Row(
                    f"{label}: cells graded per second",
                    [len(cells) / wall],
                    unit="cells/s",
                    note=f"{len(steps)} agent steps and {len(cells)} graded cells in {wall:.1f} s "
                    f"({len(steps) / wall:.3f} steps/s; the agents' own time adds up to "
                    f"{agent_seconds:.1f} s; {len(failed)} failed steps)",
                )
            )
            again = run_timed(argv, cwd=ROOT, timeout=7200)
            again.check((0,), f"runners batch --agents again ({label})")
            rerun = [json.loads(p.read_text()) for p in (out / "agent-steps").rglob("step.json")]
            if rerun != steps:
                raise RuntimeError(f"{label}: the second batch ran agent steps again")
            section.add(
                Row(
                    f"{label}: the same batch again (every run stored)",
                    [again.sample.wall],
                    note=f"no agent step run, {len(cells)} cells kept: hashing and the tables",
                )
            )
            rmtree_forcibly(out)
    finally:
        rmtree_forcibly(scratch)
    section.notes.append(
        f"{len(knowledge)} scripted agents × {len(problems)} problems ({', '.join(problems)}) × "
        f"{repeats} repeats, `--sandbox {SANDBOX}`, one round per variant on a fresh output "
        f"directory, on {os.cpu_count()} cores. The agent steps run first (chains -j 2 at a time, "
        "in the driver), then the grading (the local pool's 2 workers, or Ray tasks); Ray's row "
        "includes starting a private Ray (~10 s)."
    )
    return section


def _ray_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None
