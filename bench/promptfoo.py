"""6. A Promptfoo row against the same `runners run`.

Each round: one `promptfoo eval` of a config with one provider (the example agent) and one test
(the same cell), `--repeat K -j 1` (K rows, one after the other, run from the project root so that
promptfoo reads the project's settings from .env, with its own promptfoo directory), then `python -m
runners run` of that cell with the same sandbox. Reported: the row's latencyMs (what the provider
measured around `run_checkpoint`), the eval's wall time per row, the whole eval, and the CLI run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import yaml

from bench.common import (
    ROOT,
    BenchError,
    Row,
    Section,
    Settings,
    Unavailable,
    median,
    run_timed,
)
from bench.overhead import check_result, cli_argv
from bench.world import world
from runners.batch.store import rmtree_forcibly

NAME = "promptfoo"
TITLE = "6. A Promptfoo row vs the same `runners run`"
NODE_BIN = ROOT / "node_modules" / ".bin"
SANDBOX = "bubblewrap"


def promptfoo_env(config_dir: Path) -> dict[str, str]:
    """The environment for promptfoo run from the project root: its settings come from the
    project's .env (read by promptfoo itself), except the data directory, `config_dir` (an
    exported variable wins over .env). Node 22 from node_modules/.bin first on PATH, as npx does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTFOO_")}
    env["PROMPTFOO_CONFIG_DIR"] = str(config_dir)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    return {**env, "NO_COLOR": "1"}


def write_config(
    path: Path,
    settings: Settings,
    problems: Path,
    agent_root: Path,
    agent: str,
    problem: str,
    checkpoint: str,
    sandbox: str,
    runs: Path,
) -> None:
    provider = {
        "problems": str(problems),
        "sandbox": sandbox,
        "pass_policy": "all-cases",
        "wall_timeout": 600,
        "output": str(runs),
        "timeout": 1800000,
        "agent": agent,
        "submissions": str(agent_root),
    }
    if settings.cache_dir:
        provider["cache_dir"] = str(settings.cache_dir)
    config = {
        "description": "runners bench: one cell",
        "sharing": False,
        "prompts": [{"label": "checkpoint", "raw": "{{problem}} {{checkpoint}}"}],
        "providers": [
            {
                "id": f"file://{ROOT / 'providers' / 'test_runner.py'}",
                "label": agent,
                "config": provider,
            }
        ],
        "tests": [{"vars": {"problem": problem, "checkpoint": checkpoint}}],
        "defaultTest": {
            "assert": [
                {
                    "type": "python",
                    "value": f"file://{ROOT / 'providers' / 'assertions.py'}",
                    "metric": "tests",
                }
            ]
        },
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def run(settings: Settings) -> Section:
    section = Section(NAME, TITLE)
    promptfoo = NODE_BIN / "promptfoo"
    if not promptfoo.exists() or not (NODE_BIN / "node").exists():
        raise Unavailable("promptfoo is not installed in node_modules (bash scripts/setup-node.sh)")
    from runners.sandbox.registry import sandbox_class

    sandbox = SANDBOX if sandbox_class(SANDBOX).probe() is None else "none"
    if sandbox != SANDBOX:
        section.notes.append(f"{SANDBOX} is not usable here: measured with `--sandbox none`")
    cell = world(settings).cell
    rows_per_eval = 1 if settings.smoke else 2
    home = settings.data_dir / "promptfoo"
    shutil.rmtree(home / "config", ignore_errors=True)
    (home / "config").mkdir(parents=True, exist_ok=True)
    env = promptfoo_env(home / "config")
    config = home / "promptfooconfig.yaml"
    latencies: list[float] = []
    eval_walls: list[float] = []
    cli_walls: list[float] = []

    def eval_once() -> tuple[float, list[float]]:
        scratch = settings.tmp("promptfoo")
        try:
            write_config(
                config,
                settings,
                cell.problem.parent,
                cell.submission.parent.parent,
                cell.agent,
                cell.problem_name,
                cell.checkpoint,
                sandbox,
                scratch / "runs",
            )
            out = scratch / "results.json"
            proc = run_timed(
                [
                    str(promptfoo),
                    "eval",
                    "-c",
                    str(config),
                    "--no-cache",
                    "--no-progress-bar",
                    "--no-table",
                    "--no-share",
                    "-j",
                    "1",
                    "--repeat",
                    str(rows_per_eval),
                    "-o",
                    str(out),
                ],
                env=env,
                cwd=ROOT,
                timeout=3600,
            )
            proc.check((0, 100), "promptfoo eval")
            rows = json.loads(out.read_text())["results"]["results"]
            if len(rows) != rows_per_eval:
                raise BenchError(f"promptfoo eval: {len(rows)} rows, expected {rows_per_eval}")
            for row in rows:
                if row.get("error") or (row.get("response") or {}).get("error"):
                    raise BenchError(
                        f"promptfoo row failed: {row.get('error') or row['response']['error']}"
                    )
                meta = (row.get("response") or {}).get("metadata") or {}
                if meta.get("infrastructure_failure"):
                    raise BenchError(
                        "promptfoo row: infrastructure failure: "
                        f"{meta.get('infrastructure_reason')}"
                    )
            return proc.sample.wall, [
                float((r.get("response") or {}).get("latencyMs") or r["latencyMs"]) / 1000
                for r in rows
            ]
        finally:
            rmtree_forcibly(scratch)

    def cli_once() -> float:
        scratch = settings.tmp("promptfoo-cli")
        try:
            proc = run_timed(cli_argv(settings, cell, sandbox, scratch / "run"), cwd=ROOT)
            proc.check((0, 1), "runners run")
            check_result(scratch / "run" / "result.json", "runners run")
            return proc.sample.wall
        finally:
            rmtree_forcibly(scratch)

    for index in range(settings.repeat + 1):  # round 0 warms up
        wall, rows = eval_once()
        cli = cli_once()
        settings.log(
            f"  promptfoo {'warm-up' if index == 0 else f'round {index}/{settings.repeat}'}: eval "
            f"{wall:.2f} s for {rows_per_eval} row(s), rows {', '.join(f'{r:.2f}' for r in rows)} "
            f"s; runners run {cli:.2f} s"
        )
        if index:
            eval_walls.append(wall)
            latencies.append(median(rows))
            cli_walls.append(cli)
    cli_label = "`runners run` (CLI), the same cell"
    section.add(Row(cli_label, cli_walls, note=f"{cell.describe()}, --sandbox {sandbox}"))
    per_row = [w / rows_per_eval for w in eval_walls]
    for label, values, note in (
        ("promptfoo row: latencyMs", latencies, "the provider's own timing around run_checkpoint"),
        (
            f"promptfoo eval: wall time per row ({rows_per_eval} row(s) per eval, -j 1)",
            per_row,
            "promptfoo start-up, Python worker, assertion and result storage spread over the rows",
        ),
    ):
        row = Row(label, values, vs=cli_label, note=note)
        pairs = list(zip(cli_walls, values))
        row.ratio = median([v / c for c, v in pairs])
        row.added = median([v - c for c, v in pairs])
        section.add(row)
    section.add(
        Row(
            f"promptfoo eval: the whole eval ({rows_per_eval} row(s))",
            eval_walls,
            note="fixed cost per eval ≈ "
            f"{median([w - rows_per_eval * l for w, l in zip(eval_walls, latencies)]):.1f} s "
            "beyond the rows' latencyMs",
        )
    )
    section.notes.append(
        "One provider (the example agent) and one test, `promptfoo eval --no-cache -j 1 --repeat "
        "K`, with the project's .env settings and a promptfoo directory of its own "
        "(bench/data/promptfoo); each eval is followed by the CLI run of the same cell, in the "
        "same round."
    )
    return section
