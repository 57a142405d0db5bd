"""Each preset's real CLI, installed at its pinned version, solves problems/rangeset_lib checkpoint
by checkpoint by following a script the scripted model server serves (no API key, no internet), in
bubblewrap and in docker, through `runners solve` as a user runs it; every checkpoint is graded.

What the CLI reported (its JSON, events, trajectory or `Tokens:` lines) must equal what the server
served, its session log is kept beside the step, and checkpoint 2 starts from what checkpoint 1
left. A CLI that cannot be installed fails the step, hence the test: nothing here is skipped for a
missing CLI (only for a missing sandbox, and not under CI=true).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import need_sandbox

from runners.agents.layout import RunLayout, StepRecord
from runners.agents.presets import PRESETS
from runners.sandbox.base import network_env

pytestmark = [pytest.mark.real_agent, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "agents" / "scripts" / "rangeset_lib.yaml"
ALPHA = ROOT / "examples" / "submissions" / "alpha" / "rangeset_lib"
#: A model each CLI knows, so that what the price table or the CLI prices shows up too.
MODELS = {
    "claude-code": "claude-sonnet-4-5",
    "codex": "gpt-5-codex",
    "gemini-cli": "gemini-2.5-pro",
    "aider": "gpt-4o",
    "mini-swe-agent": "openai/gpt-5",
}
SANDBOXES = [
    pytest.param("bubblewrap", marks=pytest.mark.bubblewrap, id="bubblewrap"),
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
]


def aider_rounding(served: int, answers: int) -> int:
    """Aider prints `1.2k` for 1,234 tokens (10k and up: `12k`): what each line may be off by."""
    return answers * (500 if served >= 10_000 else 50)


def check_tokens(step: StepRecord) -> None:
    served, report = step.model_server, step.report
    assert served is not None and served.errors == [] and served.requests > 0
    if step.preset == "aider":  # only its rounded `Tokens:` lines
        assert abs(report.prompt_tokens - served.input_tokens) <= aider_rounding(
            served.input_tokens, report.turns
        )
        assert abs(report.completion_tokens - served.output_tokens) <= aider_rounding(
            served.output_tokens, report.turns
        )
        return
    assert report.prompt_tokens == served.input_tokens, (report, served)
    assert report.completion_tokens == served.output_tokens, (report, served)
    assert report.cached_tokens == served.cache_read_tokens, (report, served)
    if step.preset == "claude-code":  # the only API with a cache-write count
        assert report.cache_write_tokens == served.cache_write_tokens


def runners_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=3000,
        # The user's CA/proxy settings: a cold toolchain cache installs the tests' dependencies
        # (a stripped environment could not reach the index).
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(Path.home()),
            "COLUMNS": "200",
            **network_env(),
        },
    )


def solve(
    run: Path, preset: str, script: Path, sandbox: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    return runners_cli(
        "solve",
        "problems/rangeset_lib",
        "--name",
        preset,
        "--preset",
        preset,
        "--model",
        MODELS[preset],
        "--dry-run",
        str(script),
        "--sandbox",
        sandbox,
        "--agent-timeout",
        "600",
        "-o",
        str(run),
        *extra,
    )


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_real_cli_follows_the_script_and_is_graded(tmp_path, preset, sandbox):
    need_sandbox(sandbox)
    run = tmp_path / "run"
    out = solve(run, preset, SCRIPT, sandbox, "--json", str(tmp_path / "all.json"))
    done = (
        json.loads((tmp_path / "all.json").read_text()) if (tmp_path / "all.json").is_file() else []
    )
    failures = [d["step"]["failure"] for d in done if d["step"]["failure"]]
    assert out.returncode == 0, f"{failures}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert [d["step"]["checkpoint"] for d in done] == ["checkpoint_1", "checkpoint_2"]
    layout = RunLayout(run)
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        step = StepRecord.load(layout.step_dir(preset, "rangeset_lib", checkpoint))
        assert (
            step is not None and step.preset == preset and not step.network
        )  # the bridge, no network
        check_tokens(step)
        assert step.transcript, "its session log was not kept"
        for relative in step.transcript:
            assert (
                layout.step_dir(preset, "rangeset_lib", checkpoint) / relative
            ).stat().st_size > 0
    # What the script wrote is there byte for byte, checkpoint 1's files carried into checkpoint 2
    snapshot = layout.snapshot(preset, "rangeset_lib", "checkpoint_2")
    for file in (ALPHA / "checkpoint_2").rglob("*"):
        if file.is_file():
            assert (
                snapshot / file.relative_to(ALPHA / "checkpoint_2")
            ).read_bytes() == file.read_bytes(), file
    last = StepRecord.load(layout.step_dir(preset, "rangeset_lib", "checkpoint_2"))
    assert last.report.final_text and "rangeset.ops" in last.report.final_text


@pytest.mark.bubblewrap
def test_a_recorded_claude_code_session_replays_to_codex(tmp_path):
    """What Claude Code did, read back from its session logs, is served to Codex CLI: the same
    files, the same grades, no model."""
    need_sandbox("bubblewrap")
    first = solve(tmp_path / "claude", "claude-code", SCRIPT, "bubblewrap")
    assert first.returncode == 0, first.stdout[-3000:]
    made = runners_cli(
        "replay-script",
        str(tmp_path / "claude"),
        "--agent",
        "claude-code",
        "--problem",
        "rangeset_lib",
        "-o",
        str(tmp_path / "replay.yaml"),
    )
    assert made.returncode == 0 and "checkpoint_2:" in made.stdout, made.stdout + made.stderr
    second = solve(tmp_path / "codex", "codex", tmp_path / "replay.yaml", "bubblewrap")
    assert second.returncode == 0, second.stdout[-3000:]
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        left = [
            RunLayout(tmp_path / name).snapshot(preset, "rangeset_lib", checkpoint)
            for name, preset in (("claude", "claude-code"), ("codex", "codex"))
        ]
        # (the bytecode Python cached while the scripted commands ran carries their time)
        files = [
            {
                p.relative_to(root): p.read_bytes()
                for p in root.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts
            }
            for root in left
        ]
        assert files[0] == files[1] and files[0]
