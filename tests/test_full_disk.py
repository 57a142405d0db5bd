"""A full workspace file system is the machine's failure, said plainly: an infrastructure failure
(exit 3) naming the file system and what was being copied, never a Python traceback with the
exit code of a grade; and nothing of the run is left on it.

The workspaces go to a 2 MiB tmpfs this test mounts (RUNNERS_WORKSPACE_DIR); mounting needs root.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import make_problem, make_submission, need, need_sandbox

from runners import EnvironmentSpec, run_checkpoint

TEST = (
    "import subprocess\n\ndef test_ok(entrypoint_argv):\n"
    "    assert subprocess.run(entrypoint_argv).returncode == 0\n"
)


@pytest.fixture
def small_fs(tmp_path, monkeypatch):
    need(os.geteuid() == 0, "mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    need(done.returncode == 0, f"cannot mount a tmpfs here: {done.stderr.strip()}")
    monkeypatch.setenv("RUNNERS_WORKSPACE_DIR", str(mount))
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.parametrize(
    "backend", ["none", pytest.param("bubblewrap", marks=pytest.mark.bubblewrap)]
)
def test_a_submission_that_does_not_fit_is_an_infrastructure_failure(small_fs, backend, tmp_path):
    need_sandbox(backend)
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": TEST})
    sub = make_submission(tmp_path, {"main.py": "print('hi')\n"})
    (sub / "blob.bin").write_bytes(os.urandom(5 << 20))
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox=backend))
    assert result.infrastructure_failure, result.summary
    assert f"no space left on the file system of {small_fs}" in result.infrastructure_reason
    assert f"while copying {sub} (5.0 MiB)" in result.infrastructure_reason
    assert list(small_fs.iterdir()) == []  # the half-copied workspace is gone


def test_problem_files_that_do_not_fit_and_the_cli_exit_code(small_fs, tmp_path):
    """The tests' data does not fit (after the submission did): the same failure, said for the run's
    preparation; the command line exits 3 with the message, no traceback."""
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": TEST})
    (problem / "tests" / "data").mkdir()
    (problem / "tests" / "data" / "big.bin").write_bytes(os.urandom(3 << 20))
    sub = make_submission(tmp_path, {"main.py": "print('hi')\n"})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "COLUMNS": "300"},
    )
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 3, out
    assert f"no space left on the file system of {small_fs}" in out and "Traceback" not in out
    assert list(Path(small_fs).iterdir()) == []
