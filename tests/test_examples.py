"""The example Python problem, end to end through the CLI, for every example agent; and the same
result under every sandbox backend."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need_sandbox

from runners import EnvironmentSpec, ExecutionResult, run_checkpoint

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text())
PROBLEM = "inventory_cli"
CELLS = [
    (agent, checkpoint)
    for agent, checkpoints in EXPECTED[PROBLEM].items()
    for checkpoint in checkpoints
]


def _counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts[g], total] for g, total in result.total_counts.items()}


@pytest.mark.parametrize(("agent", "checkpoint"), CELLS)
def test_every_agent_gets_its_expected_counts_through_the_cli(tmp_path, agent, checkpoint):
    need_sandbox("bubblewrap")
    submission = ROOT / "examples" / "submissions" / agent / PROBLEM / checkpoint
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(ROOT / "problems" / PROBLEM),
            "-c",
            checkpoint,
            "-s",
            str(submission),
            "--sandbox",
            "bubblewrap",
            "--json",
            str(tmp_path / "r.json"),
            "--output",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    result = ExecutionResult.model_validate_json((tmp_path / "r.json").read_text())
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert _counts(result) == EXPECTED[PROBLEM][agent][checkpoint]
    all_passed = all(p == t for p, t in EXPECTED[PROBLEM][agent][checkpoint].values())
    assert out.returncode == (0 if all_passed else 1), out.stdout + out.stderr
    assert result.flags == []  # sandboxed, dependencies installed, nothing suspicious


def _shape(result: ExecutionResult) -> list[tuple]:
    return sorted(
        (t.id, t.status, t.raw_status, t.group_type.value, t.checkpoint, tuple(t.markers))
        for t in result.tests
    )


def test_same_result_under_none_bubblewrap_and_docker():
    for backend in ("bubblewrap", "docker"):
        need_sandbox(backend)
    problem = ROOT / "problems" / PROBLEM
    submission = ROOT / "examples" / "submissions" / "beta" / PROBLEM / "checkpoint_2"
    results = {
        backend: run_checkpoint(
            problem, "checkpoint_2", submission, EnvironmentSpec(sandbox=backend)
        )
        for backend in ("none", "bubblewrap", "docker")
    }
    reference = results["none"]
    assert (
        not reference.infrastructure_failure
        and _counts(reference) == EXPECTED[PROBLEM]["beta"]["checkpoint_2"]
    )
    for backend, result in results.items():
        assert result.sandbox == backend
        assert _shape(result) == _shape(reference), backend
        assert (
            result.pass_counts == reference.pass_counts and result.exit_code == reference.exit_code
        )
