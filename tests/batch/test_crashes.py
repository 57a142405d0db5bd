"""A crashed cell is that cell's infrastructure failure, not the batch's: a worker process killed
mid-run, an exception in the harness. And a cancellation past its grace period kills what is
left, sandboxed processes included."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from batch_support import running_with
from rich.console import Console
from support import make_problem, write_files

from runners.batch import BatchOptions, BatchStore, run_batch
from runners.batch.cells import discover

pytestmark = pytest.mark.slow

PASSING = {"test_checkpoint_1.py": "def test_ok(entrypoint_argv):\n    assert entrypoint_argv\n"}
# Kills the batch worker that runs this suite: the first ancestor that is a multiprocessing child.
KILLER = {
    "test_checkpoint_1.py": """
    import os, signal, time

    def _parent(pid):
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])

    def test_kills_its_worker():
        pid = os.getppid()
        while pid > 1:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"multiprocessing" in handle.read():
                    os.kill(pid, signal.SIGKILL)
                    break
            pid = _parent(pid)
        time.sleep(60)  # the batch kills this process too
"""
}
SLOW = {"test_checkpoint_1.py": "import time\n\ndef test_slow():\n    time.sleep(120)\n"}


def _tree(root: Path, problems: dict[str, dict[str, str]], **extra: object) -> tuple[Path, Path]:
    problems_dir, submissions = root / "problems", root / "submissions"
    for name, tests in problems.items():
        make_problem(problems_dir, tests, name=name, **extra)  # type: ignore[arg-type]
        write_files(submissions / "agent" / name / "checkpoint_1", {"main.py": "print('hi')\n"})
    return problems_dir, submissions


def test_dead_worker_and_harness_error_fail_only_their_cells(tmp_path):
    problems, submissions = _tree(tmp_path, {"fine": PASSING, "killer": KILLER})
    # A checkpoint without its test file: the harness raises while preparing that cell.
    make_problem(
        problems,
        PASSING,
        name="broken",
        checkpoints={
            "checkpoint_1": {"version": 1},
            "checkpoint_2": {"version": 1, "include_prior_tests": False},
        },
    )
    write_files(submissions / "agent" / "broken" / "checkpoint_2", {"main.py": "print('hi')\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "out"
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(problems),
            "--submissions",
            str(submissions),
            "--sandbox",
            "none",
            "-j",
            "1",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(tmp), "COLUMNS": "200"},
        check=False,
    )
    assert proc.returncode == 3, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert time.monotonic() - started < 55, "the killer's orphaned test process was waited for"
    store = BatchStore(out)
    cells = {c.problem: c for c in discover(problems, submissions).cells}
    killer, broken, fine = (store.record(cells[n]) for n in ("killer", "broken", "fine"))
    assert killer.status == "crashed" and "worker process running this cell died" in killer.reason
    assert "SIGKILL" in killer.reason
    assert (
        broken.status == "crashed"
        and "bad input" in broken.reason
        and "no test file" in broken.reason
    )
    assert fine.status == "ok" and store.result(cells["fine"]).pass_counts
    result = store.result(cells["killer"])
    assert result.infrastructure_failure and "died" in result.infrastructure_reason
    assert "2 infrastructure failures" in (out / "summary.md").read_text()
    assert not running_with(str(tmp)), "a process of the killed worker is still running"
    assert list(tmp.iterdir()) == []
    # Crashed cells run again on the next batch; the finished one is kept.
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(problems),
            "--submissions",
            str(submissions),
            "--sandbox",
            "none",
            "--output",
            str(out),
            "--problem",
            "fine",
            "--problem",
            "broken",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(tmp), "COLUMNS": "200"},
        check=False,
    )
    assert again.returncode == 3
    assert "1 to run (1 the last run crashed)" in again.stdout and "1 kept" in again.stdout


def test_cancel_past_the_grace_period_kills_the_sandboxed_processes(tmp_path, monkeypatch):
    problems, submissions = _tree(tmp_path, {"slow_a": SLOW, "slow_b": SLOW}, timeout=300)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))

    def interrupt_when_tests_run() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if sum("pytest" in line for line in running_with(str(tmp))) >= 2:
                break
            time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_when_tests_run, daemon=True).start()
    started = time.monotonic()
    outcome = run_batch(
        BatchOptions(
            problems=problems,
            submissions=submissions,
            output=tmp_path / "out",
            jobs=2,
            sandbox="none",
            grace=0.0,
        ),
        Console(file=io.StringIO()),
    )
    assert outcome.interrupted and outcome.exit_code == 130
    assert sorted(outcome.cancelled) == ["agent/slow_a/checkpoint_1", "agent/slow_b/checkpoint_1"]
    assert time.monotonic() - started < 100
    time.sleep(0.5)
    assert not running_with(str(tmp))
    assert list(tmp.iterdir()) == []
