"""A cell whose submission is over its limits is marked with the reason (bad input, naming the
limit), quickly: hashing a 64 GiB sparse file skips its holes."""

from __future__ import annotations

import os
import time

import pytest
from rich.console import Console
from support import make_problem, write_files

from runners.batch import BatchOptions, BatchStore, run_batch
from runners.batch.cells import discover

TESTS = {"test_checkpoint_1.py": "def test_ok(entrypoint_argv):\n    assert entrypoint_argv\n"}


@pytest.mark.slow
def test_a_submission_over_its_limits_is_a_cell_marked_bad_input(tmp_path):
    problems, submissions = tmp_path / "problems", tmp_path / "submissions"
    make_problem(problems, TESTS, name="demo")
    for agent in ("fine", "huge"):
        write_files(submissions / agent / "demo" / "checkpoint_1", {"main.py": "print('hi')\n"})
    with open(submissions / "huge" / "demo" / "checkpoint_1" / "big.bin", "wb") as handle:
        handle.truncate(64 << 30)
    started = time.monotonic()
    with open(os.devnull, "w") as sink:
        outcome = run_batch(
            BatchOptions(
                problems=problems, submissions=submissions, output=tmp_path / "out", sandbox="none"
            ),
            Console(file=sink),
        )
    assert time.monotonic() - started < 120
    store = BatchStore(tmp_path / "out")
    cells = {c.agent: c for c in discover(problems, submissions).cells}
    huge, fine = store.record(cells["huge"]), store.record(cells["fine"])
    assert fine.status == "ok"
    assert (
        huge.reason.startswith("bad input: ")
        and "submission_mb" in huge.reason
        and "big.bin" in huge.reason
    )
    result = store.result(cells["huge"])
    assert result.infrastructure_failure and result.infrastructure_reason.startswith("bad input: ")
    assert "harness crash" not in result.infrastructure_reason
    assert outcome.exit_code == 3  # a cell without a result


def test_a_ray_cell_over_its_limits_is_refused_before_it_is_packed(tmp_path):
    from runners.batch.jobs import CellJob
    from runners.batch.ray_executor import _submit
    from runners.engine.submission import SubmissionTooLarge

    problems, submissions = tmp_path / "problems", tmp_path / "submissions"
    make_problem(problems, TESTS, name="demo")
    write_files(submissions / "huge" / "demo" / "checkpoint_1", {"main.py": "print('hi')\n"})
    with open(submissions / "huge" / "demo" / "checkpoint_1" / "big.bin", "wb") as handle:
        handle.truncate(64 << 30)
    cell = discover(problems, submissions).cells[0]
    started = time.monotonic()
    with pytest.raises(SubmissionTooLarge, match="submission_mb"):
        _submit(
            None, CellJob(cell=cell, output_dir=tmp_path / "out", environment={}), None
        )  # never reaches Ray
    assert time.monotonic() - started < 10
