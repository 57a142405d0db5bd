"""Fixtures of the batch tests: a snapshot of the example problems and submissions (so edits
made to the repository while the suite runs cannot change the expectations half-way), the
reference results of `runners run` on every cell (the helpers the tests import are in
batch_support.py).

Everything here is real: real `python -m runners` processes, real sandboxes (`none` by default,
to keep the suite fast), a real Ray cluster for test_ray.py.
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from batch_support import runners_cli
from support import need

from runners.batch.cells import discover

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PROBLEMS = ("inventory_cli", "calc_cli", "text_layout")  # pytest, jest, vitest
JS_PROBLEMS = ("calc_cli", "text_layout")
# Same length as `runners-batch-XXXXXXXX`, the batch's temporary root: workspaces of the reference
# runs then have paths as long as the batch's, so nothing a test prints wraps differently.
REF_TMP_NAME = "reference-tmp-xxxxxxxx"


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
    for agent in sorted(
        (REPO / "examples" / "submissions").iterdir()
    ):  # only these problems' cells
        for name in EXAMPLE_PROBLEMS:
            if (agent / name).is_dir():
                shutil.copytree(
                    agent / name, root / "submissions" / agent.name / name, ignore=ignore
                )
    tmp = root / "tmp"
    tmp.mkdir()
    return {"problems": root / "problems", "submissions": root / "submissions", "tmp": tmp}


@pytest.fixture(scope="session")
def example_cells(examples: dict[str, Path]) -> list[Any]:
    found = discover(examples["problems"], examples["submissions"])
    assert not found.notes, found.notes
    return found.cells


@pytest.fixture(scope="session")
def reference(
    examples: dict[str, Path], example_cells: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """{cell id: result JSON} from `python -m runners run ... --sandbox none --json` per cell."""
    out = tmp_path_factory.mktemp("reference")
    tmp = examples["tmp"] / REF_TMP_NAME
    tmp.mkdir(exist_ok=True)

    def one(cell: Any) -> tuple[str, dict[str, Any]]:
        target = out / cell.agent / cell.problem / cell.checkpoint
        proc = runners_cli(
            "run",
            str(cell.problem_dir),
            "-c",
            cell.checkpoint,
            "-s",
            str(cell.submission_dir),
            "--sandbox",
            "none",
            "--json",
            str(target / "result.json"),
            "--output",
            str(target / "artifacts"),
            env={"TMPDIR": str(tmp)},
        )
        assert proc.returncode in (0, 1), f"{cell.id}: exit {proc.returncode}\n{proc.stderr}"
        return cell.id, json.loads((target / "result.json").read_text())

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, example_cells))
