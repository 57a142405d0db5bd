"""A script can tell a poor grade from rows that are no grade: `scripts/compare.sh` exits 0 when
every row is a grade (passed or failed), 2 when some row is bad input (a problem's config, the
generator's own config), 4 when some row is a problem error, 3 for an infrastructure failure;
promptfoo alone exits 100 for all of them. One broken problem among good ones no longer stops
the eval: it is an ERROR row naming its file and field, and the others are graded.

Real `bash scripts/compare.sh -c CONFIG` runs from the project root (the .env's settings); the
rules on promptfoo's result rows are checked directly in test_verdict.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from pf_support import ROOT, build_world, need_promptfoo, plain_env, write_eval_config
from support import make_problem

from runners.model.environment import EnvironmentSpec

pytestmark = [pytest.mark.node, pytest.mark.slow]


def _config(root: Path, world: dict[str, Path], agents: list[str]) -> Path:
    # The prepared toolchains of the developer's cache (a provider setting, not a variable).
    return write_eval_config(root, world, agents, cache_dir=str(EnvironmentSpec().cache_dir))


def _compare(root: Path, config: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    need_promptfoo()
    home = root / "home"
    home.mkdir(exist_ok=True)
    out = root / "results.json"
    proc = subprocess.run(
        ["bash", "scripts/compare.sh", "-c", str(config), "--no-table", "-o", str(out)],
        cwd=ROOT,
        env=plain_env(home),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    results = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    if results.get("evalId"):
        subprocess.run(
            ["npx", "promptfoo", "delete", "eval", results["evalId"]],
            cwd=ROOT,
            env=plain_env(home),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return proc, results


def _rows(results: dict) -> dict[tuple[str, str, str], dict]:
    return {
        (
            r["provider"]["label"],
            r["testCase"]["metadata"]["problem"],
            r["testCase"]["metadata"]["checkpoint"],
        ): r
        for r in results["results"]["results"]
    }


def test_a_broken_config_and_a_broken_problem_among_good_ones(tmp_path):
    world = build_world(tmp_path)
    problems = world["problems"]
    make_problem(
        problems, {"test_checkpoint_1.py": "def test_one(:\n    pass\n"}, name="brokentests"
    )
    bad = make_problem(
        problems, {"test_checkpoint_1.py": "def test_one():\n    pass\n"}, name="badcfg"
    )
    (bad / "config.yaml").write_text(
        (bad / "config.yaml").read_text().replace("timeout: 30", "timeout: soon")
    )
    for name in ("brokentests", "badcfg"):
        (world["partial"] / name / "checkpoint_1").mkdir(parents=True)
        (world["partial"] / name / "checkpoint_1" / "main.py").write_text("print(1)\n")
    proc, results = _compare(tmp_path, _config(tmp_path, world, ["partial"]))
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = _rows(results)
    config_row = rows[("agent-partial", "badcfg", "config.yaml")]
    assert config_row["failureReason"] == 2
    assert (
        f"{bad / 'config.yaml'}: invalid configuration" in config_row["error"]
        and "field `timeout`" in config_row["error"]
    )
    problem_row = rows[("agent-partial", "brokentests", "checkpoint_1")]
    assert problem_row["failureReason"] == 2 and "PROBLEM ERROR" in problem_row["error"], (
        json.dumps(problem_row)[:3000]
    )
    assert "tests/test_checkpoint_1.py, line 1: SyntaxError" in problem_row["error"]
    # The good problem is graded (the partial agent fails some of it: a grade, not an error).
    assert [
        rows[("agent-partial", "mini", c)]["failureReason"]
        for c in ("checkpoint_1", "checkpoint_2")
    ] == [1, 1]
    assert "1 row(s) are no grade: bad input" in proc.stdout and "a problem error" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr

    # Without the broken config: the problem error decides (4). (Only grades, some failed: 0,
    # where promptfoo alone says 100: test_rows_that_are_no_grade_decide_the_exit_code.)
    (bad / "config.yaml").unlink()
    proc, results = _compare(tmp_path, _config(tmp_path, world, ["partial"]))
    assert proc.returncode == 4, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_a_missing_problems_directory_is_one_error_row_not_a_traceback(tmp_path):
    world = build_world(tmp_path)
    config = _config(tmp_path, world, ["good"])
    # The generator's `problems` (the last one in the file), not the provider's.
    head, _, tail = config.read_text().rpartition(f"problems: {world['problems']}\n")
    config.write_text(f"{head}problems: {tmp_path / 'no-such-problems'}\n{tail}")
    proc, results = _compare(tmp_path, config)
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr[-3000:]
    [row] = results["results"]["results"]
    assert row["failureReason"] == 2 and "Traceback" not in proc.stdout + proc.stderr
    assert f"config `problems`: {tmp_path / 'no-such-problems'} is not a directory" in row["error"]
