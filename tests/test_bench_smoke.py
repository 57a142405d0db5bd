"""`python -m bench --smoke` runs every measurement once on tiny inputs, so the benchmark cannot
rot.

It needs what the real benchmark needs (bubblewrap, Docker, promptfoo, uv and the package index
for SCBench's `uvx`); a measurement whose tools are missing is reported as skipped by the bench
itself, which this test accepts locally and refuses under CI=true.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import IN_CI

ROOT = Path(__file__).resolve().parent.parent
MEASUREMENTS = (
    "startup",
    "overhead",
    "prepare",
    "scbench",
    "parsing",
    "batch",
    "promptfoo",
    "submission",
    "agents",
    "cases",
    "agent_batch",
    "real_agents",
    "quality",
    "fairness",
)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_smoke_runs_every_measurement(tmp_path):
    out = tmp_path / "bench.json"
    results = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "--smoke",
            "--data-dir",
            str(tmp_path / "data"),
            "--json",
            str(out),
            "--results",
            str(results),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=580,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert not results.exists(), "--smoke must not write the results table unless asked (--write)"
    data = json.loads(out.read_text())
    sections = {s["name"]: s for s in data["sections"]}
    assert tuple(sections) == MEASUREMENTS
    for name, section in sections.items():
        if section["skipped"]:
            assert not section["skipped"].startswith("failed"), f"{name}: {section['skipped']}"
            if IN_CI:
                pytest.fail(f"required under CI: bench {name} skipped: {section['skipped']}")
            continue
        assert section["rows"], f"{name} measured nothing"
        for row in section["rows"]:
            assert row["samples"] and all(v >= 0 for v in row["samples"]), (name, row["label"])
    for fact in ("date", "command", "machine", "kernel", "python", "uv"):
        assert data["facts"][fact], fact


def test_bench_lists_and_rejects_unknown_names():
    listed = subprocess.run(
        [sys.executable, "-m", "bench", "--list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    for name in MEASUREMENTS:
        assert name in listed.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "nonsense"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2 and "unknown measurement" in bad.stderr


def test_results_markdown_keeps_the_blocks_of_measurements_not_run(tmp_path):
    from bench.common import Row, Section
    from bench.report import existing_blocks, write_markdown

    facts = {"date": "2026-01-01 00:00 UTC", "command": "python -m bench", "machine": "2 cores"}
    path = tmp_path / "RESULTS.md"
    first = Section("overhead", "1. Overhead")
    first.add(
        Row(
            "bubblewrap · CLI",
            [1.0, 1.2, 1.1],
            vs="bare",
            ratio=1.1,
            added=0.2,
            target="< 0.5 s",
            met=True,
        )
    )
    write_markdown(path, [first], facts)
    second = Section("parsing", "4. Parsing")
    second.add(Row("normalize", [0.5], target="≤ 3×", met=False))
    write_markdown(path, [second], {**facts, "command": "python -m bench --only parsing"})
    text = path.read_text()
    blocks = existing_blocks(path)
    assert list(blocks) == ["overhead", "parsing"]
    assert "bubblewrap · CLI" in text and "normalize" in text
    assert (
        "overhead: bubblewrap · CLI" in text and "❌ missed" in text
    )  # the targets summary has both
