"""`runners batch` on the command line: bad input exits 2 with a clear message, unknown problems
are reported and skipped, and the summary is printed and written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import make_problem, write_files

PASSING = {"test_checkpoint_1.py": "def test_ok(entrypoint_argv):\n    assert entrypoint_argv\n"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", "batch", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    problems = tmp_path / "problems"
    make_problem(problems, PASSING, name="demo")
    subs = tmp_path / "subs"
    write_files(subs / "alpha" / "demo" / "checkpoint_1", {"main.py": "print('hi')\n"})
    write_files(subs / "alpha" / "elsewhere" / "checkpoint_1", {"main.py": "print('hi')\n"})
    return problems, subs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--executor", "slurm"], "option --executor: 'slurm' is not one of local, ray"),
        (["--address", "host:6379"], "option --address: only with --executor ray"),
        (["--sandbox", "vm"], "option --sandbox: 'vm'"),
        (["--agent", "nobody"], "option --agent: unknown 'nobody' (known: alpha)"),
        (["--problem", "elsewhere"], "option --problem: unknown 'elsewhere' (known: demo)"),
        (["-j", "0"], "-j"),
    ],
)
def test_bad_options_exit_2_without_traceback(tree, tmp_path, args, message):
    problems, subs = tree
    out = cli(
        "--problems",
        str(problems),
        "--submissions",
        str(subs),
        "--output",
        str(tmp_path / "out"),
        *args,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_bad_paths_and_no_cells_exit_2(tree, tmp_path):
    problems, subs = tree
    missing = cli("--problems", str(tmp_path / "nope"), "--submissions", str(subs))
    assert missing.returncode == 2 and "option --problems" in missing.stderr
    empty = tmp_path / "empty"
    (empty / "alpha" / "unknown_problem" / "checkpoint_1").mkdir(parents=True)
    none_found = cli("--problems", str(problems), "--submissions", str(empty))
    assert none_found.returncode == 2 and "no <agent>/<problem>/<checkpoint>/" in none_found.stderr
    (problems / "demo" / "config.yaml").write_text("name: demo\nversion: x\n")
    invalid = cli("--problems", str(problems), "--submissions", str(subs))
    assert (
        invalid.returncode == 2 and "config.yaml" in invalid.stderr and "version" in invalid.stderr
    )


def test_unknown_problems_are_reported_not_fatal(tree, tmp_path):
    problems, subs = tree
    out = cli(
        "--problems",
        str(problems),
        "--submissions",
        str(subs),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "out"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "note: unknown problem 'elsewhere'" in out.stdout
    assert "1 cells (1 agents × 1 problems): 1 to run (1 new)" in out.stdout
    assert "✔ alpha/demo/checkpoint_1" in out.stdout
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| alpha | 100% · 100% · 100% | **100% · 100% · 100%** |" in summary
    assert "unknown problem 'elsewhere'" in summary


def test_a_broken_problem_is_a_problem_error_cell_and_exit_4_and_evaluate_says_so_too(
    tree, tmp_path
):
    """The good problem's cell is graded; the broken one's is no grade (status `problem`), named
    with its file and line; the batch exits 4, not 0 (its cells did not all get a grade)."""
    problems, subs = tree
    make_problem(problems, {"test_checkpoint_1.py": "def test_broken(:\n    pass\n"}, name="broken")
    write_files(subs / "alpha" / "broken" / "checkpoint_1", {"main.py": "print('hi')\n"})
    out = cli(
        "--problems",
        str(problems),
        "--submissions",
        str(subs),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "out"),
    )
    assert out.returncode == 4, out.stdout + out.stderr
    text = " ".join(out.stdout.split())
    assert (
        "problem error: alpha/broken/checkpoint_1: tests/test_checkpoint_1.py, line 1: SyntaxError"
        in text
    )
    assert "✔ alpha/demo/checkpoint_1" in out.stdout
    cell = json.loads(
        (tmp_path / "out" / "cells" / "alpha" / "broken" / "checkpoint_1" / "cell.json").read_text()
    )
    assert cell["status"] == "problem"
    rows = [
        json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    ]
    assert [r["problem_error"] for r in rows if r["problem"] == "broken"] == [True]
    assert "problem error (no grade)" in (tmp_path / "out" / "summary.md").read_text()
    evaluate = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "evaluate",
            str(problems / "broken"),
            "-s",
            str(subs / "alpha" / "broken"),
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "eval"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert evaluate.returncode == 4, evaluate.stdout + evaluate.stderr
    assert "PROBLEM ERROR: tests/test_checkpoint_1.py, line 1: SyntaxError" in evaluate.stdout
