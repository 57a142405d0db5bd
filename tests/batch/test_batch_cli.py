"""`runners batch` on the command line: bad input exits 2 with a clear message, unknown problems
are reported and skipped, and the summary is printed and written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import make_problem, write_files

PASSING = {"test_checkpoint_1.py": "def test_ok(entrypoint_argv):\n    assert entrypoint_argv\n"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runners", "batch", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "200"}, check=False)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    problems = tmp_path / "problems"
    make_problem(problems, PASSING, name="demo")
    subs = tmp_path / "subs"
    write_files(subs / "alpha" / "demo" / "checkpoint_1", {"main.py": "print('hi')\n"})
    write_files(subs / "alpha" / "elsewhere" / "checkpoint_1", {"main.py": "print('hi')\n"})
    return problems, subs


@pytest.mark.parametrize(("args", "message"), [
    (["--executor", "slurm"], "option --executor: 'slurm' is not one of local, ray"),
    (["--address", "host:6379"], "option --address: only with --executor ray"),
    (["--sandbox", "vm"], "option --sandbox: 'vm'"),
    (["--agent", "nobody"], "option --agent: unknown 'nobody' (known: alpha)"),
    (["--problem", "elsewhere"], "option --problem: unknown 'elsewhere' (known: demo)"),
    (["-j", "0"], "-j"),
])
def test_bad_options_exit_2_without_traceback(tree, tmp_path, args, message):
    problems, subs = tree
    out = cli("--problems", str(problems), "--submissions", str(subs), "--output",
              str(tmp_path / "out"), *args)
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "out").exists()


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
    assert invalid.returncode == 2 and "config.yaml" in invalid.stderr and "version" in invalid.stderr


def test_unknown_problems_are_reported_not_fatal(tree, tmp_path):
    problems, subs = tree
    out = cli("--problems", str(problems), "--submissions", str(subs), "--sandbox", "none",
              "--output", str(tmp_path / "out"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "note: unknown problem 'elsewhere'" in out.stdout
    assert "1 cells (1 agents × 1 problems): 1 to run (1 new)" in out.stdout
    assert "✔ alpha/demo/checkpoint_1" in out.stdout
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| alpha | 100% · 100% · 100% | **100% · 100% · 100%** |" in summary
    assert "unknown problem 'elsewhere'" in summary
