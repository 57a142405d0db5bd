"""Submissions that are too big are refused before anything is copied (exit 2, naming the limit and
the largest entries); within the limits they are copied faithfully, holes kept; a submission kept
inside a problem directory (SCBench's `solutions/`) runs, one that holds the tests does not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import make_problem, make_submission

from runners.engine.submission import CopyTimeout, SubmissionTooLarge, copy_inventory, inventory
from runners.engine.workspace import SUBMISSION_IGNORE
from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits

REPO = Path(__file__).resolve().parents[1]
GiB = 1 << 30
MAIN = "import sys\nprint(' '.join(sys.argv[1:]))\n"
TESTS = {
    "test_checkpoint_1.py": """
    import subprocess
    def test_echo(entrypoint_argv):
        assert subprocess.run(
            entrypoint_argv + ["a"], capture_output=True, text=True
        ).stdout == "a\\n"
"""
}


def cli(*args: str, tmpdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
        env={**os.environ, "COLUMNS": "200", "TMPDIR": str(tmpdir)},
        timeout=300,
    )


def sparse(path: Path, size: int, data_at: int | None = None) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)
        if data_at is not None:
            handle.seek(data_at)
            handle.write(b"the data in the middle")


@pytest.fixture
def scratch(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return tmp


def test_a_64_gib_sparse_file_is_refused_at_once_and_nothing_is_copied(tmp_path, scratch):
    problem = make_problem(tmp_path, TESTS)
    sub = make_submission(tmp_path, {"main.py": MAIN, "src/tiny.py": "x = 1\n"})
    sparse(sub / "big.bin", 64 * GiB)
    started = time.monotonic()
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o"),
        tmpdir=scratch,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert time.monotonic() - started < 60
    message = " ".join(out.stderr.split())
    assert "Traceback" not in out.stderr
    assert "is too large: apparent size" in message and "64.0 GiB or more" in message
    assert "over the limit of 1,024 MiB" in message and "`submission_mb`" in message
    assert "--max-submission-mb" in message
    assert "big.bin: 64.0 GiB (0 B on disk)" in message  # the largest entry, with its sizes
    assert list(scratch.iterdir()) == []  # no workspace was even made


@pytest.mark.parametrize(
    ("limits", "build", "words"),
    [
        (
            ResourceLimits(submission_files=50),
            lambda root: [(root / "many" / f"f{i}").write_text("x") for i in range(60)],
            [
                "files, directories and links 51 or more",
                "over the limit of 50",
                "--max-submission-files",
                "entries in many/",
            ],
        ),
        (
            ResourceLimits(submission_depth=10),
            lambda root: (root / Path(*["d"] * 12)).mkdir(parents=True),
            [
                "directory depth 11 or more",
                "over the limit of 10",
                "--max-submission-depth",
                "deepest: d/d/d",
            ],
        ),
        (
            ResourceLimits(submission_mb=1),
            lambda root: (root / "many" / "blob.bin").write_bytes(b"z" * (2 << 20)),
            [
                "apparent size",
                "2.0 MiB or more",
                "over the limit of 1 MiB",
                "many/blob.bin: 2.0 MiB (2.0 MiB on disk)",
            ],
        ),
        (
            ResourceLimits(submission_disk_mb=1),
            lambda root: (root / "many" / "blob.bin").write_bytes(b"z" * (2 << 20)),
            [
                "size allocated on disk",
                "over the limit of 1 MiB",
                "--max-submission-disk-mb",
                "many/blob.bin",
            ],
        ),
    ],
)
def test_each_limit_names_itself_the_value_the_option_and_the_largest_entries(
    tmp_path, limits, build, words
):
    root = tmp_path / "sub"
    (root / "many").mkdir(parents=True)
    build(root)
    with pytest.raises(SubmissionTooLarge) as caught:
        inventory(root, limits, SUBMISSION_IGNORE)
    assert isinstance(caught.value, UserInputError)  # exit 2, an error row, a refused cell
    message = " ".join(str(caught.value).split())
    for word in words:
        assert word in message, message


def test_ignored_names_do_not_count_and_are_not_copied(tmp_path):
    root = tmp_path / "sub"
    (root / ".git" / "objects").mkdir(parents=True)
    for i in range(100):
        (root / ".git" / "objects" / f"o{i}").write_text("x")
    (root / "main.py").write_text(MAIN)
    listed = inventory(root, ResourceLimits(submission_files=5), SUBMISSION_IGNORE)
    copy_inventory(listed, tmp_path / "copy")
    assert sorted(os.listdir(tmp_path / "copy")) == ["main.py"]


def test_a_sparse_file_within_the_limits_is_copied_sparse(tmp_path):
    root = tmp_path / "sub"
    root.mkdir()
    sparse(root / "big.bin", 8 * GiB, data_at=3 * GiB)
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("run.sh", root / "link")
    os.mkfifo(root / "pipe")
    listed = inventory(root, ResourceLimits(submission_mb=9 * 1024), SUBMISSION_IGNORE)
    skipped = copy_inventory(listed, tmp_path / "copy")
    copy = tmp_path / "copy"
    info = os.stat(copy / "big.bin")
    assert info.st_size == 8 * GiB
    assert info.st_blocks * 512 <= 1 << 20, f"the copy allocates {info.st_blocks * 512} bytes"
    with open(copy / "big.bin", "rb") as handle:
        handle.seek(3 * GiB)
        assert handle.read(22) == b"the data in the middle"
    assert os.readlink(copy / "link") == "run.sh" and (copy / "run.sh").stat().st_mode & 0o111
    assert skipped == ["pipe"] and not (copy / "pipe").exists()


@pytest.mark.slow
def test_many_small_files_and_a_deep_chain_are_copied_exactly(tmp_path):
    root = tmp_path / "sub"
    for i in range(2000):
        folder = root / "many" / f"d{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.txt").write_text(f"file {i}\n")
    chain = root / Path(*["d"] * 120)
    chain.mkdir(parents=True)
    (chain / "leaf.txt").write_text("leaf\n")
    with pytest.raises(SubmissionTooLarge, match="submission_depth"):
        inventory(root, ResourceLimits(), SUBMISSION_IGNORE)  # 64 by default
    listed = inventory(root, ResourceLimits(submission_depth=200), SUBMISSION_IGNORE)
    copy_inventory(listed, tmp_path / "copy")
    assert (tmp_path / "copy" / Path(*["d"] * 120) / "leaf.txt").read_text() == "leaf\n"
    assert (tmp_path / "copy" / "many" / "d7" / "f1997.txt").read_text() == "file 1997\n"
    assert sum(len(files) for _, _, files in os.walk(tmp_path / "copy")) == 2001


def test_the_copy_stops_when_the_wall_clock_runs_out(tmp_path):
    root = tmp_path / "sub"
    root.mkdir()
    (root / "main.py").write_text(MAIN)
    listed = inventory(root, ResourceLimits(), SUBMISSION_IGNORE)
    with pytest.raises(CopyTimeout, match="wall clock ran out while copying"):
        copy_inventory(listed, tmp_path / "copy", deadline=time.monotonic() - 1)


@pytest.mark.slow
def test_the_limits_come_from_the_cli_and_the_problem(tmp_path, scratch):
    problem = make_problem(tmp_path, TESTS, limits={"submission_files": 3})
    sub = make_submission(tmp_path, {"main.py": MAIN, "a.txt": "a", "b.txt": "b", "c.txt": "c"})
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o"),
        tmpdir=scratch,
    )
    assert out.returncode == 2 and "submission_files" in out.stderr, out.stderr
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o2"),
        "--max-submission-files",
        "10",
        tmpdir=scratch,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_solution_kept_inside_the_problem_runs_but_not_one_holding_the_tests(tmp_path, scratch):
    problem = tmp_path / "inventory_cli"
    shutil.copytree(REPO / "problems" / "inventory_cli", problem)
    solution = problem / "solutions" / "checkpoint_1"
    shutil.copytree(
        REPO / "examples" / "submissions" / "alpha" / "inventory_cli" / "checkpoint_1", solution
    )
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(solution),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o"),
        tmpdir=scratch,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "policy all-cases: MET" in out.stdout
    for submission, words in [
        (problem, "contains the problem directory"),
        (tmp_path, "contains the problem directory"),
        (problem / "tests", "contains the tests"),
        (problem / "tests" / "data", "sits inside the tests"),
    ]:
        submission.mkdir(exist_ok=True)
        out = cli(
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(submission),
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "o2"),
            tmpdir=scratch,
        )
        assert out.returncode == 2 and words in " ".join(out.stderr.split()), (
            submission,
            out.stderr,
        )
