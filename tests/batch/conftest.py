"""Fixtures of the batch tests: a snapshot of the example problems and submissions (so edits
made to the repository while the suite runs cannot change the expectations half-way), the
reference results of `runners run` on every cell, and helpers to run `runners batch`.

Everything here is real: real `python -m runners` processes, real sandboxes (`none` by default,
to keep the suite fast), a real Ray cluster for test_ray.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from support import need

from runners.batch.cells import discover

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PROBLEMS = ("inventory_cli", "calc_cli", "text_layout")  # pytest, jest, vitest
JS_PROBLEMS = ("calc_cli", "text_layout")
# Same length as `runners-batch-XXXXXXXX`, the batch's temporary root: workspaces of the reference
# runs then have paths as long as the batch's, so nothing a test prints wraps differently.
REF_TMP_NAME = "reference-tmp-xxxxxxxx"


def runners_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 900,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runners", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


@pytest.fixture(scope="session")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{"problems": dir, "submissions": dir, "tmp": private TMPDIR root} copied from the repo."""
    need(shutil.which("node") is not None, "node is needed for the JavaScript example problems")
    root = tmp_path_factory.mktemp("examples")
    ignore = shutil.ignore_patterns("node_modules", "__pycache__", ".pytest_cache")
    for name in EXAMPLE_PROBLEMS:
        source = REPO / "problems" / name
        need((source / "config.yaml").is_file(), f"example problem {name} is missing")
        shutil.copytree(source, root / "problems" / name, ignore=ignore)
    shutil.copytree(REPO / "examples" / "submissions", root / "submissions", ignore=ignore)
    tmp = root / "tmp"
    tmp.mkdir()
    return {"problems": root / "problems", "submissions": root / "submissions", "tmp": tmp}


@pytest.fixture(scope="session")
def example_cells(examples: dict[str, Path]) -> list[Any]:
    found = discover(examples["problems"], examples["submissions"])
    assert not found.notes, found.notes
    return found.cells


@pytest.fixture(scope="session")
def reference(examples: dict[str, Path], example_cells: list[Any],
              tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """{cell id: result JSON} from `python -m runners run ... --sandbox none --json` per cell."""
    out = tmp_path_factory.mktemp("reference")
    tmp = examples["tmp"] / REF_TMP_NAME
    tmp.mkdir(exist_ok=True)

    def one(cell: Any) -> tuple[str, dict[str, Any]]:
        target = out / cell.agent / cell.problem / cell.checkpoint
        proc = runners_cli("run", str(cell.problem_dir), "-c", cell.checkpoint, "-s",
                           str(cell.submission_dir), "--sandbox", "none", "--json",
                           str(target / "result.json"), "--output", str(target / "artifacts"),
                           env={"TMPDIR": str(tmp)})
        assert proc.returncode in (0, 1), f"{cell.id}: exit {proc.returncode}\n{proc.stderr}"
        return cell.id, json.loads((target / "result.json").read_text())

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, example_cells))


_WORKSPACE = re.compile(r"(?:/[^/\s'\"\\]+)*/runners-[a-z0-9_]{8}(?![A-Za-z0-9_])")
_ADDRESS = re.compile(r"0x[0-9a-f]{6,16}")
# Prepared environments in the cache are named by a hash of what they hold (and of the harness
# code that builds them): the same cell can use a newer one when that code changed in between.
_CACHE_KEY = re.compile(r"(?<=/)([a-z]+)-[0-9a-f]{20}(?=/)")
_VOLATILE = {"started_at", "duration", "artifacts_dir", "stdout", "stderr"}


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    """A result without what differs between two runs of the same cell: times, durations, the
    output tails, the temporary workspace's path, object addresses in tracebacks, and the order
    of the lines of a message (pytest lists set differences in hash order; the harness pins
    PYTHONHASHSEED, but a problem's own tests may start processes that do not)."""

    def clean(value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            value = _WORKSPACE.sub("<workspace>", value)
            value = _CACHE_KEY.sub(r"\1-<key>", _ADDRESS.sub("0x?", value))
            if key in ("failure_message", "traceback"):
                return sorted(value.splitlines())
            return value
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v, k) for k, v in value.items() if k != "duration_ms"}
        return value

    return clean({k: v for k, v in result.items() if k not in _VOLATILE})


def assert_same_results(batch_dir: Path, cells: list[Any], reference: dict[str, dict[str, Any]]) -> None:
    mismatched = []
    for cell in cells:
        got = json.loads((batch_dir / "cells" / cell.agent / cell.problem / cell.checkpoint /
                          "result.json").read_text())
        want = reference[cell.id]
        if comparable(got) != comparable(want):
            diff = _first_difference(comparable(want), comparable(got))
            mismatched.append(f"{cell.id}: {diff}")
    assert not mismatched, "\n".join(mismatched)


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: runners run {str(a)[:300]!r} != batch {str(b)[:300]!r}"
