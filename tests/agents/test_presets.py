"""Presets as a user writes them (agents file, `runners solve`), what each fills in, the price
table, and each preset's reading of its CLI's output. No CLI runs here
(tests/agents/test_real_agents.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runners.agents.layout import StepRecord
from runners.agents.presets import DRY_RUN_KEY, PRESETS
from runners.agents.presets.aider import AIDER
from runners.agents.presets.codex import CODEX
from runners.agents.presets.mini_swe_agent import MINI_SWE_AGENT
from runners.agents.prices import PriceTable, estimate_cost, price_table
from runners.agents.report import AgentReport
from runners.agents.rows import cost_text, step_line
from runners.agents.spec import load_agents_file, parse_agent
from runners.model.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_a_preset_fills_the_command_the_key_and_the_network(tmp_path):
    spec = parse_agent(
        {
            "name": "claude",
            "preset": "claude-code",
            "model": "sonnet",
            "args": ["--max-turns", "5"],
        },
        "agents.yaml",
    )
    assert spec.argv[:3] == ["claude", "-p", "{prompt}"]
    assert spec.argv[-4:] == ["--model", "sonnet", "--max-turns", "5"]
    assert spec.pass_env == ["ANTHROPIC_API_KEY"] and spec.network is True
    assert spec.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    # Validating it again (a resumed run compares settings) adds nothing
    assert parse_agent(spec.model_dump(), "again").argv == spec.argv
    # The user's own command, env and key name win
    own = parse_agent(
        {
            "name": "c",
            "preset": "codex",
            "command": "codex exec --json {prompt}",
            "key_env": "MY_KEY",
            "env": {"X": "1"},
        },
        "agents.yaml",
    )
    assert own.argv == ["codex", "exec", "--json", "{prompt}"] and own.pass_env == ["MY_KEY"]
    assert own.env == {"X": "1"}


def test_a_dry_run_never_passes_the_real_key_and_keeps_the_network_off(tmp_path):
    spec = parse_agent(
        {
            "name": "m",
            "preset": "mini-swe-agent",
            "model": "anthropic/claude-sonnet-4-5",
            "dry_run": "script.yaml",
        },
        "agents.yaml",
    )
    assert spec.pass_env == [] and spec.network is False
    assert (
        spec.env["ANTHROPIC_API_KEY"] == DRY_RUN_KEY
    )  # LiteLLM picks the key by the model's provider
    assert "--model" in spec.argv and "anthropic/claude-sonnet-4-5" in spec.argv


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"preset": "claude"},
            "field `preset`: unknown preset 'claude' (known: claude-code, codex, gemini-cli",
        ),
        ({"command": "x", "model": "gpt-5"}, "field `model`: only with `preset`"),
        ({"command": "x", "args": ["-v"]}, "field `args`: only with `preset`"),
        ({"preset": "codex", "args": "-v"}, "field `args`: expected a list of flags"),
    ],
)
def test_a_preset_mistake_names_the_field(data, message):
    with pytest.raises(ConfigError) as info:
        parse_agent({"name": "a", **data}, "agents.yaml")
    assert message in str(info.value) and "agents.yaml" in str(info.value)


def test_an_agents_file_takes_presets_with_the_script_relative_to_it(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "s.yaml").write_text("default: [{say: hi}]\n")
    (tmp_path / "agents.yaml").write_text(
        "agents:\n  claude: {preset: claude-code, model: sonnet, dry_run: scripts/s.yaml}\n"
        "  codex: {preset: codex, model: gpt-5-codex}\n"
    )
    claude, codex = load_agents_file(tmp_path / "agents.yaml")
    assert claude.dry_run == str(tmp_path / "scripts" / "s.yaml")
    before = claude.key
    (tmp_path / "scripts" / "s.yaml").write_text("default: [{say: bye}]\n")
    assert claude.key != before  # an edited script runs the steps again
    assert codex.pass_env == ["CODEX_API_KEY"] and codex.dry_run is None


@pytest.mark.slow
def test_solve_refuses_a_preset_mistake_naming_the_option(tmp_path):
    for args, message in (
        (["--preset", "nope"], "option --preset: unknown preset 'nope'"),
        (["--agent", "echo", "--model", "x"], "option --model: only with `preset`"),
        ([], "option --agent: give the agent's command, or a --preset"),
    ):
        out = subprocess.run(
            [sys.executable, "-m", "runners", "solve", "problems/rangeset_lib", *args],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 2 and message in out.stdout + out.stderr, out.stdout + out.stderr
    script = tmp_path / "s.yaml"
    script.write_text("checkpoints: {checkpoint_1: [{say: hi}]}\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "solve",
            "problems/rangeset_lib",
            "--preset",
            "codex",
            "--dry-run",
            str(script),
            "-o",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "no turns for checkpoint_2" in out.stdout + out.stderr
    assert not (tmp_path / "run" / "agent-steps").exists()  # refused before any step


def test_every_preset_is_pinned_and_the_price_table_is_dated():
    for preset in PRESETS.values():
        assert preset.version[0].isdigit() and preset.requirement.endswith(preset.version)
    table = price_table()
    assert table.date and table.source and "gpt-5-codex" in table.models


def test_a_cost_the_cli_did_not_report_is_estimated_from_the_price_table_and_says_so():
    codex_jsonl = "\n".join(
        json.dumps(e)
        for e in [
            {"type": "thread.started", "thread_id": "t"},
            {
                "type": "turn.completed",
                "usage": {
                    "input_tokens": 1_000_000,
                    "cached_input_tokens": 400_000,
                    "output_tokens": 100_000,
                },
            },
            {"type": "item.completed", "item": {"type": "agent_message", "text": "done"}},
        ]
    )
    report = CODEX.report(codex_jsonl, "", {}, "openai/gpt-5-codex")
    # 600k fresh at $1.25, 400k cached at $0.125, 100k out at $10 per million
    assert report.cost_usd == pytest.approx(0.75 + 0.05 + 1.0) and report.cost_estimated
    assert "gpt-5-codex" in report.cost_note and price_table().date in report.cost_note
    unknown = CODEX.report(codex_jsonl, "", {}, "some-local-model")
    assert unknown.cost_usd is None and not unknown.cost_estimated  # unknown, never 0
    step = StepRecord(
        agent="a",
        problem="p",
        checkpoint="c",
        number=1,
        command=["x"],
        sandbox="none",
        started_from="empty",
        report=report,
    )
    assert cost_text(step) == "$1.8000 (estimated)" and "$1.8000 (estimated)" in step_line(step)[0]
    dated = PriceTable(
        date="d", source="s", models={"claude-sonnet-4-5": {"input": 3, "output": 15}}
    )
    assert (
        estimate_cost("claude-sonnet-4-5-20250929", AgentReport(prompt_tokens=10**6), dated)
        is not None
    )


def test_an_unknown_cost_is_left_out_of_the_promptfoo_row(tmp_path):
    from support import make_problem

    from runners.agents.rows import response
    from runners.agents.solve import SolvedCheckpoint
    from runners.model.problem_loader import load_problem
    from runners.model.results import failure_result

    problem = load_problem(
        make_problem(tmp_path, {"test_checkpoint_1.py": "def test_x():\n    pass\n"})
    )
    checkpoint = problem.ordered_checkpoints()[0]
    step = StepRecord(
        agent="a",
        problem=problem.path.name,
        checkpoint=checkpoint.name,
        number=1,
        command=["x"],
        sandbox="none",
        started_from="empty",
        transcript=["transcript/t.jsonl"],
        report=AgentReport(prompt_tokens=10, completion_tokens=2),
    )
    row = response(
        SolvedCheckpoint(step, failure_result(problem, checkpoint, "pytest", "none", "x")),
        "a",
        "all-cases",
        tmp_path / "run",
    )
    assert "cost" not in row and row["tokenUsage"]["total"] == 12
    assert (
        row["metadata"]["transcript"]
        == (
            tmp_path
            / "run"
            / "agent-steps"
            / "a"
            / problem.path.name
            / checkpoint.name
            / "transcript"
            / "t.jsonl"
        ).as_uri()
    )


def test_mini_swe_agent_is_read_from_its_trajectory():
    trajectory = {
        "info": {"exit_status": "Submitted", "model_stats": {"instance_cost": 0, "api_calls": 2}},
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "extra": {
                    "response": {
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 10,
                            "prompt_tokens_details": {"cached_tokens": 40},
                        }
                    }
                },
            },
            {
                "role": "assistant",
                "content": "All done.",
                "extra": {"response": {"usage": {"prompt_tokens": 150, "completion_tokens": 5}}},
            },
        ],
    }
    report = MINI_SWE_AGENT.parse("human output", "", {"trajectory.json": json.dumps(trajectory)})
    assert (report.prompt_tokens, report.completion_tokens, report.cached_tokens) == (250, 15, 40)
    assert report.final_text == "All done." and report.turns == 2 and not report.is_error
    assert report.cost_usd is None  # LiteLLM's 0 for a model it cannot price is not a cost
    stopped = MINI_SWE_AGENT.parse(
        "",
        "",
        {"trajectory.json": json.dumps({**trajectory, "info": {"exit_status": "LimitsExceeded"}})},
    )
    assert stopped.is_error and "LimitsExceeded" in stopped.error
    assert MINI_SWE_AGENT.parse("boom", "", {}).error == "it wrote no trajectory (trajectory.json)"


def test_aider_without_a_model_answer_is_an_error_though_it_exits_0():
    failed = AIDER.parse("litellm.APIConnectionError: cannot connect\n", "", {})
    assert failed.is_error and "never answered" in failed.error
    ok = AIDER.parse(
        "Tokens: 1.2k sent, 80 received. Cost: $0.01 message, $0.01 session.\n", "", {}
    )
    assert not ok.is_error and (ok.prompt_tokens, ok.completion_tokens, ok.cost_usd) == (
        1200,
        80,
        0.01,
    )
