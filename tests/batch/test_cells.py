"""Discovery, content hashes, archives, the resume decision, the tables and the matrix (no runs)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from support import make_problem, write_files

from runners import ExecutionResult, TestResult
from runners import GroupType as G
from runners.batch.cells import (
    discover,
    pack_submission,
    problem_hash,
    submission_hash,
    unpack_tree,
)
from runners.batch.executors import ray_resources
from runners.batch.report import build_matrix, matrix_markdown
from runners.batch.store import COLUMNS, BatchStore, CellRecord
from runners.model.errors import ConfigError, UserInputError
from runners.model.policy import PassPolicy
from runners.model.problem_loader import load_problem

TESTS = {
    "test_checkpoint_1.py": "def test_a():\n    pass\n",
    "test_checkpoint_2.py": "def test_b():\n    pass\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    problems = tmp_path / "problems"
    make_problem(problems, TESTS, name="p1", checkpoints=2)
    make_problem(problems, TESTS, name="p2", checkpoints=2)
    subs = tmp_path / "subs"
    for agent, problem, checkpoint in [
        ("a", "p1", "checkpoint_1"),
        ("a", "p1", "checkpoint_2"),
        ("a", "p2", "checkpoint_1"),
        ("b", "p1", "checkpoint_2"),
        ("b", "zz", "checkpoint_1"),
        ("b", "p1", "checkpoint_9"),
    ]:
        write_files(subs / agent / problem / checkpoint, {"main.py": f"print('{agent}')\n"})
    (subs / ".hidden").mkdir()
    return problems, subs


def test_discovery_finds_cells_and_reports_unknown_problems_and_checkpoints(tree):
    problems, subs = tree
    found = discover(problems, subs)
    assert [c.id for c in found.cells] == [
        "a/p1/checkpoint_1",
        "a/p1/checkpoint_2",
        "a/p2/checkpoint_1",
        "b/p1/checkpoint_2",
    ]
    assert found.agents == ["a", "b"] and sorted(found.problems) == ["p1", "p2"]
    assert any("unknown problem 'zz'" in n and "for b" in n for n in found.notes)
    assert any(
        "b/p1/checkpoint_9" in n and "no checkpoint 'checkpoint_9'" in n for n in found.notes
    )
    assert found.missing == {("a", "p2"): ["checkpoint_2"], ("b", "p1"): ["checkpoint_1"]}
    only = discover(problems, subs, agents=["b"], problems=["p1"])
    assert [c.id for c in only.cells] == ["b/p1/checkpoint_2"]


def test_discovery_bad_input(tree, tmp_path):
    problems, subs = tree
    with pytest.raises(UserInputError, match="--agent: unknown 'nobody'"):
        discover(problems, subs, agents=["nobody"])
    with pytest.raises(UserInputError, match="--problems"):
        discover(tmp_path / "missing", subs)
    with pytest.raises(UserInputError, match="--submissions"):
        discover(problems, tmp_path / "missing")
    (problems / "p2" / "config.yaml").write_text("name: p2\nversion: one\n")
    with pytest.raises(ConfigError, match="config.yaml"):
        discover(problems, subs)


def test_submission_hash_follows_what_the_workspace_copies(tmp_path):
    sub = tmp_path / "sub"
    write_files(sub, {"main.py": "print(1)\n", "lib/util.py": "X = 1\n"})
    first = submission_hash(sub)
    write_files(
        sub,
        {
            "__pycache__/main.cpython-311.pyc": "junk",
            "node_modules/x/index.js": "junk",
            ".git/HEAD": "ref",
        },
    )
    assert submission_hash(sub) == first, "ignored like the workspace copy ignores them"
    (sub / "main.py").chmod(0o755)
    assert submission_hash(sub) != first, "the executable bit is part of the identity"
    (sub / "main.py").chmod(0o644)
    assert submission_hash(sub) == first
    (sub / "lib" / "util.py").write_text("X = 2\n")
    assert submission_hash(sub) != first
    os.symlink("lib/util.py", sub / "link.py")
    second = submission_hash(sub)
    (sub / "link.py").unlink()
    os.symlink("main.py", sub / "link.py")
    assert submission_hash(sub) != second, "a link's target is part of the identity"


def test_problem_hash_changes_with_config_and_tests(tree):
    problems, _ = tree
    p1 = problems / "p1"
    first = problem_hash(p1)
    write_files(p1 / "tests", {"__pycache__/x.pyc": "junk"})
    assert problem_hash(p1) == first
    (p1 / "tests" / "test_checkpoint_2.py").write_text("def test_b():\n    assert 1\n")
    second = problem_hash(p1)
    assert second != first
    (p1 / "config.yaml").write_text(
        (p1 / "config.yaml").read_text().replace("timeout: 30", "timeout: 31")
    )
    assert problem_hash(p1) != second


def test_pack_and_unpack_keep_files_modes_and_links(tmp_path):
    sub = tmp_path / "sub"
    write_files(
        sub, {"main.py": "print(1)\n", "pkg/mod.py": "X = 1\n", "__pycache__/c.pyc": "junk"}
    )
    (sub / "main.py").chmod(0o755)
    os.symlink("pkg/mod.py", sub / "alias.py")
    os.symlink("/etc/passwd", sub / "outside")  # kept as a link, never followed
    target = unpack_tree(pack_submission(sub), tmp_path / "copy")
    assert (target / "pkg" / "mod.py").read_text() == "X = 1\n"
    assert os.access(target / "main.py", os.X_OK)
    assert os.readlink(target / "alias.py") == "pkg/mod.py"
    assert os.readlink(target / "outside") == "/etc/passwd"
    assert not (target / "__pycache__").exists()
    assert submission_hash(target) == submission_hash(sub)


def test_ray_resources_come_from_the_problem_limits(tmp_path):
    plain = load_problem(make_problem(tmp_path, TESTS, name="plain"))
    assert ray_resources(plain) == {"num_cpus": 1.0}
    limited = load_problem(
        make_problem(tmp_path, TESTS, name="limited", limits={"cpus": 1.5, "memory_mb": 512})
    )
    assert ray_resources(limited) == {"num_cpus": 1.5, "memory": 512 * 1024 * 1024}


def _result(
    problem: str, checkpoint: str, statuses: dict[str, str], infra: bool = False
) -> ExecutionResult:
    groups = {"core": G.CORE, "err": G.ERROR, "reg": G.REGRESSION}
    tests = [
        TestResult(
            id=f"t::{name}",
            name=name,
            checkpoint=checkpoint,
            group_type=groups[name.split("_")[0]],
            status=status,
            duration_ms=1.0,
            failure_message=None if status == "passed" else "boom",
        )
        for name, status in statuses.items()
    ]
    return ExecutionResult(
        problem_name=problem,
        checkpoint_name=checkpoint,
        tests=[] if infra else tests,
        infrastructure_failure=infra,
        infrastructure_reason="broken" if infra else None,
    )


def test_plan_says_why_a_cell_runs_again(tree, tmp_path):
    problems, subs = tree
    cell = discover(problems, subs).cells[0]
    store = BatchStore(tmp_path / "out")
    hashes = {"problem": "p", "submission": "s"}
    settings = {"sandbox": "none", "wall_timeout": None}
    assert store.plan(cell, hashes, settings) == "new"
    record = CellRecord(
        agent=cell.agent,
        problem=cell.problem,
        checkpoint=cell.checkpoint,
        status="ok",
        problem_hash="p",
        submission_hash="s",
        settings=settings,
    )
    store.clear(cell)
    store.finish(cell, record, _result("p1", "checkpoint_1", {"core_a": "passed"}))
    assert store.plan(cell, hashes, settings) is None
    assert store.plan(cell, hashes, settings, overwrite=True) == "--overwrite"
    assert store.plan(cell, {**hashes, "problem": "p'"}, settings) == "problem changed"
    assert store.plan(cell, {**hashes, "submission": "s'"}, settings) == "submission changed"
    assert (
        store.plan(cell, hashes, {**settings, "sandbox": "docker"})
        == "settings changed: sandbox 'none' -> 'docker'"
    )
    store.finish(
        cell,
        record.model_copy(update={"status": "infra"}),
        _result("p1", "checkpoint_1", {}, infra=True),
    )
    assert store.plan(cell, hashes, settings) is None
    assert store.plan(cell, hashes, settings, retry_failed=True).startswith("--retry-failed")
    store.finish(
        cell,
        record.model_copy(update={"status": "crashed", "reason": "worker died"}),
        _result("p1", "checkpoint_1", {}, infra=True),
    )
    assert store.plan(cell, hashes, settings) == "the last run crashed: worker died"
    (store.cell_dir(cell) / "result.json").unlink()
    store.finish(cell, record, _result("p1", "checkpoint_1", {"core_a": "passed"}))
    (store.cell_dir(cell) / "result.json").write_text("{not json")
    assert store.plan(cell, hashes, settings) == "result.json missing or unreadable"


def test_tables_have_one_row_per_test_and_one_for_a_cell_without_tests(tree, tmp_path):
    problems, subs = tree
    cells = discover(problems, subs).cells
    store = BatchStore(tmp_path / "out")
    results = {
        cells[0].id: _result("p1", "checkpoint_1", {"core_a": "passed", "err_b": "failed"}),
        cells[1].id: _result("p1", "checkpoint_2", {"core_a": "passed", "reg_c": "passed"}),
        cells[2].id: _result("p2", "checkpoint_1", {}, infra=True),
    }
    finished = []
    for cell in cells[:3]:
        result = results[cell.id]
        record = CellRecord(
            agent=cell.agent,
            problem=cell.problem,
            checkpoint=cell.checkpoint,
            status="infra" if result.infrastructure_failure else "ok",
            problem_hash="p",
            submission_hash="s",
        )
        finished.append((cell, record, result))
    jsonl, parquet = store.write_tables(finished, PassPolicy.ALL_CASES)
    table = pq.read_table(parquet)
    assert table.num_rows == 5 and table.column_names == list(COLUMNS)
    rows = table.to_pylist()
    assert [r["test_id"] for r in rows] == ["t::core_a", "t::err_b", "t::core_a", "t::reg_c", None]
    assert (
        rows[1]["message"] == "boom" and rows[1]["group"] == "Error" and rows[1]["passed"] is False
    )
    assert (
        rows[4]["infrastructure_failure"] is True and rows[4]["infrastructure_reason"] == "broken"
    )
    assert [r["policy_met"] for r in rows] == [False, False, True, True, False]
    assert [json.loads(line)["test_id"] for line in jsonl.read_text().splitlines()] == [
        r["test_id"] for r in rows
    ]
    empty_jsonl, empty_parquet = BatchStore(tmp_path / "empty").write_tables([], PassPolicy.ANY)
    assert pq.read_table(empty_parquet).num_rows == 0 and empty_jsonl.read_text() == ""


def test_matrix_counts_missing_and_infra_checkpoints_as_not_solved(tree):
    problems, subs = tree
    found = discover(problems, subs)
    c = {cell.id: cell for cell in found.cells}
    results = {
        "a/p1/checkpoint_1": _result("p1", "checkpoint_1", {"core_a": "passed", "err_b": "passed"}),
        "a/p1/checkpoint_2": _result("p1", "checkpoint_2", {"core_a": "passed", "reg_c": "failed"}),
        "a/p2/checkpoint_1": _result("p2", "checkpoint_1", {}, infra=True),
    }
    matrix = build_matrix(found.cells, results, found.problems, PassPolicy.ALL_CASES, found.missing)
    a1 = matrix.entry("a", "p1")
    assert (a1.strict, a1.isolated, a1.core, a1.policy_met, a1.checkpoints) == (1, 2, 2, 1, 2)
    assert a1.group_rate(G.REGRESSION) == (0, 1) and a1.group_rate(None) == (3, 4)
    a2 = matrix.entry("a", "p2")
    assert (a2.strict, a2.infra, a2.missing) == (0, 1, ["checkpoint_2"])
    b1 = matrix.entry("b", "p1")
    assert b1.not_run == ["checkpoint_2"] and b1.missing == ["checkpoint_1"]
    total = matrix.agent_total("a")
    assert (total.checkpoints, total.strict, total.isolated) == (4, 1, 2)
    markdown = matrix_markdown(matrix, meta={"sandbox": "none"})
    assert (
        "| a | 50% · 100% · 100% | 0% · 0% · 0% (1 infra) | **25% · 50% · 50% (1 infra)** |"
        in markdown
    )
    assert (
        "| a | p1 | 2/2 | 1/2 | 2/2 | 2/2 | 1/2 | 2/2 (100%) | - "
        "| 1/1 (100%) | 0/1 (0%) | 3/4 (75%) |"
    ) in markdown
    assert c  # every cell id is known
