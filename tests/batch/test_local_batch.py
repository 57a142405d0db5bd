"""A real batch over the example agents and problems with the local executor (`-j 2`, sandbox
`none`): every cell finishes, each cell's result equals `runners run` on that cell, a rerun
skips everything, a changed submission re-runs only its cell, and the tables read back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from batch_support import assert_same_results, comparable, runners_cli

from runners.batch.store import COLUMNS, CellRecord

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def batch_j2(examples: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("batch-j2") / "out"
    proc = runners_cli(
        "batch",
        "--problems",
        str(examples["problems"]),
        "--submissions",
        str(examples["submissions"]),
        "--sandbox",
        "none",
        "-j",
        "2",
        "--output",
        str(out),
        env={"TMPDIR": str(examples["tmp"])},
    )
    return {"out": out, "proc": proc}


def _records(out: Path) -> dict[str, CellRecord]:
    records = {}
    for path in sorted(out.glob("cells/*/*/*/cell.json")):
        record = CellRecord.model_validate_json(path.read_text())
        records[f"{record.agent}/{record.problem}/{record.checkpoint}"] = record
    return records


def test_j2_finishes_every_cell_and_prints_the_matrix(batch_j2, examples, example_cells):
    proc, out = batch_j2["proc"], batch_j2["out"]
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    records = _records(out)
    assert sorted(records) == sorted(c.id for c in example_cells)
    assert {r.status for r in records.values()} == {"ok"}
    assert len({r.worker for r in records.values()}) == 2, "two worker processes shared the cells"
    for text in (
        "Solve rates",
        "alpha",
        "beta",
        "gamma",
        "inventory_cli",
        "calc_cli",
        "text_layout",
    ):
        assert text in proc.stdout
    summary = (out / "summary.md").read_text()
    assert "| Agent | calc_cli | inventory_cli | text_layout | All problems |" in summary
    assert "| alpha | inventory_cli | 3/3 |" in summary
    info = json.loads((out / "batch.json").read_text())
    assert info["status"] == "complete" and len(info["ran"]) == len(example_cells)
    # No workspace or batch temporary directory is left behind.
    assert not [p for p in examples["tmp"].iterdir() if p.name.startswith("runners-")]


def test_each_cell_equals_runners_run(batch_j2, example_cells, reference):
    assert batch_j2["proc"].returncode == 0
    assert_same_results(batch_j2["out"], example_cells, reference)
    # Raw reports and logs are kept per cell, next to its result.
    cell = example_cells[0]
    cell_dir = batch_j2["out"] / "cells" / cell.agent / cell.problem / cell.checkpoint
    assert (cell_dir / "reports").is_dir() and any((cell_dir / "reports").iterdir())
    assert (cell_dir / "stdout.txt").is_file()
    assert json.loads((cell_dir / "result.json").read_text())["artifacts_dir"] == str(cell_dir)


def test_tables_read_back_with_one_row_per_test(batch_j2, example_cells, reference):
    out = batch_j2["out"]
    table = pq.read_table(out / "results.parquet")
    expected_rows = sum(max(1, len(reference[c.id]["tests"])) for c in example_cells)
    assert table.num_rows == expected_rows == sum(len(r["tests"]) for r in reference.values())
    assert table.column_names == list(COLUMNS)
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == expected_rows
    rows = table.to_pylist()
    # Per cell and group, the rows add up to the result's counts.
    for cell in example_cells:
        want = reference[cell.id]
        mine = [
            r
            for r in rows
            if (r["agent"], r["problem"], r["checkpoint"])
            == (cell.agent, cell.problem, cell.checkpoint)
        ]
        for group, total in want["total_counts"].items():
            in_group = [r for r in mine if r["group"] == group]
            assert len(in_group) == total, (cell.id, group)
            assert sum(r["passed"] for r in in_group) == want["pass_counts"][group]
        assert {r["sandbox"] for r in mine} == {"none"}
        assert {r["infrastructure_failure"] for r in mine} == {False}
    assert json.loads(lines[0])["test_id"] == rows[0]["test_id"]


def test_rerun_skips_every_cell(batch_j2, examples, example_cells):
    out = batch_j2["out"]
    before = {cid: r.finished_at for cid, r in _records(out).items()}
    parquet_before = pq.read_table(out / "results.parquet").num_rows
    (out / "results.parquet").unlink()  # regenerated from the cells' results
    proc = runners_cli(
        "batch",
        "--problems",
        str(examples["problems"]),
        "--submissions",
        str(examples["submissions"]),
        "--sandbox",
        "none",
        "-j",
        "2",
        "--output",
        str(out),
        env={"TMPDIR": str(examples["tmp"])},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert f"{len(example_cells)} cells" in proc.stdout and "0 to run" in proc.stdout
    assert {cid: r.finished_at for cid, r in _records(out).items()} == before
    assert pq.read_table(out / "results.parquet").num_rows == parquet_before
    assert "Solve rates" in proc.stdout


def test_changed_submission_reruns_only_its_cells(batch_j2, examples, tmp_path):
    # Work on copies: the module's batch stays as it was for the other tests.
    out = tmp_path / "out"
    shutil.copytree(batch_j2["out"], out, symlinks=True)
    submissions = tmp_path / "submissions"
    shutil.copytree(examples["submissions"], submissions, symlinks=True)
    changed = submissions / "beta" / "text_layout" / "checkpoint_2"
    entry = changed / "textkit.mjs"  # the problem's entry_file
    entry.write_text(
        entry.read_text() + "\n// edited: a comment changes the hash, not the result\n"
    )
    before = _records(out)
    proc = runners_cli(
        "batch",
        "--problems",
        str(examples["problems"]),
        "--submissions",
        str(submissions),
        "--sandbox",
        "none",
        "-j",
        "2",
        "--output",
        str(out),
        env={"TMPDIR": str(examples["tmp"])},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 to run (1 submission changed)" in proc.stdout
    after = _records(out)
    rerun = sorted(cid for cid in after if after[cid].finished_at != before[cid].finished_at)
    assert rerun == ["beta/text_layout/checkpoint_2"]
    cell_dir = Path("cells/beta/text_layout/checkpoint_2/result.json")
    assert comparable(json.loads((out / cell_dir).read_text())) == comparable(
        json.loads((batch_j2["out"] / cell_dir).read_text())
    )
    assert (
        after["beta/text_layout/checkpoint_2"].submission_hash
        != before["beta/text_layout/checkpoint_2"].submission_hash
    )
