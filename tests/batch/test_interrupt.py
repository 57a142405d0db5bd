"""Ctrl-C on a running batch: finished cells are kept, running ones are cancelled, and nothing is
left behind: no worker or sandboxed process, no container, no temporary directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from batch_support import running_with
from support import need_sandbox

from runners.batch.store import CellRecord
from runners.util.processes import process_tree, start_time

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap", "docker"])
def test_sigint_keeps_finished_cells_and_leaves_nothing_running(sandbox, examples, tmp_path):
    need_sandbox(sandbox)
    out = tmp_path / "out"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(examples["problems"]),
            "--submissions",
            str(examples["submissions"]),
            "--problem",
            "inventory_cli",
            "--sandbox",
            sandbox,
            "-j",
            "2",
            "--output",
            str(out),
        ],
        env={**os.environ, "TMPDIR": str(tmp), "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not list(out.glob("cells/*/*/*/cell.json")):
            assert proc.poll() is None, (
                f"the batch ended before a cell finished:\n{proc.stdout.read()}"
            )
            assert time.monotonic() < deadline, "no cell finished within 300 s"
            time.sleep(0.1)
        # Cells are running now (9 cells, 2 workers): take the process tree, then press Ctrl-C.
        time.sleep(1.0)
        tree = process_tree(proc.pid)
        assert len(tree) >= 2, "the worker processes were not running"
        os.kill(proc.pid, signal.SIGINT)  # the parent only, as the test has its own session
        stdout, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stdout[-4000:]
    assert "interrupted" in stdout
    # Finished cells are kept, whole; the batch says which did not run.
    finished = sorted(out.glob("cells/*/*/*/cell.json"))
    assert finished
    for path in finished:
        record = CellRecord.model_validate_json(path.read_text())
        assert record.status == "ok", record
        assert (path.parent / "result.json").is_file()
    info = json.loads((out / "batch.json").read_text())
    assert info["status"] == "interrupted"
    assert info["cancelled"] and len(info["ran"]) == len(finished)
    assert len(info["ran"]) + len(info["cancelled"]) == 9
    assert (out / "summary.md").is_file() and (out / "results.parquet").is_file()
    # Nothing left: processes of the tree, processes using the TMPDIR, temporary directories.
    time.sleep(0.5)
    alive = [pid for pid, start in tree.items() if start is not None and start_time(pid) == start]
    assert not alive, [Path(f"/proc/{p}/cmdline").read_bytes() for p in alive]
    assert not running_with(str(tmp))
    assert list(tmp.iterdir()) == []
    if sandbox == "docker":
        import docker

        client = docker.from_env()
        owners = {f"{os.uname().nodename}:{pid}" for pid in [proc.pid, *tree]}
        left = [
            c.name
            for c in client.containers.list(all=True, filters={"label": "runners.managed=1"})
            if (c.labels.get("runners.owner", "").rsplit(":", 1)[0]) in owners
        ]
        assert not left
    if sandbox != "none":
        return
    # A rerun resumes: only the cells that did not finish run (one agent's, to keep it short).
    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "batch",
            "--problems",
            str(examples["problems"]),
            "--submissions",
            str(examples["submissions"]),
            "--problem",
            "inventory_cli",
            "--sandbox",
            sandbox,
            "-j",
            "2",
            "--output",
            str(out),
            "--agent",
            "alpha",
        ],
        env={**os.environ, "TMPDIR": str(tmp), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    kept_alpha = [p for p in finished if p.parts[-4] == "alpha"]
    assert (
        f"{3 - len(kept_alpha)} to run" in resumed.stdout
        and f"{len(kept_alpha)} kept" in resumed.stdout
    )
