"""Snapshot tests shipped with a problem, on real jest 30 and vitest 4.1 runs.

jest and vitest write a test file's `.snap` back after running it, even in CI mode: an obsolete
entry, or a hinted snapshot (`toMatchSnapshot(hint)`) of a test that failed first, is enough. The
tests are read-only in a sandbox, so that write used to fail and turn the whole file into one
file-level error (`EROFS ... __snapshots__/...snap`): the real failure and the passing tests
vanished. The harness now gives them a private copy to read and write. Here: a passing, a failing
and an obsolete snapshot give exact counts (a failing snapshot is one failed test, an obsolete one
is no error), on every backend, and the problem's files are never changed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import make_problem, make_submission, need, need_sandbox, tree_digest

from runners import EnvironmentSpec, run_checkpoint
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult
from runners.sandbox.docker.client import default_image

ROOT = Path(__file__).resolve().parent.parent

# checkpoint_1: a plain and a hinted snapshot that match, a hinted one that does not, and a test
# that throws before its hinted snapshot (the case jest <= 30.4 rewrote the file for). The same
# tests for jest and vitest.
CP1_TESTS = """
test("adds small numbers", () => {
  expect(add(1, 2)).toMatchSnapshot();
});

describe("hinted", () => {
  test("adds with a hint", () => {
    expect(add(2, 3)).toMatchSnapshot("two and three");
  });
  test("mismatches its snapshot", () => {
    expect(add(2, 2)).toMatchSnapshot("two and two");
  });
  test("throws before its snapshot", () => {
    expect(describeValue(7)).toMatchSnapshot("seven");
  });
});
"""
# A failing snapshot is one failed test; nothing is lost around it.
CP1_STATUSES = {
    "adds small numbers": "passed",
    "hinted > adds with a hint": "passed",
    "hinted > mismatches its snapshot": "failed",
    "hinted > throws before its snapshot": "failed",
}
JEST_CP1 = (
    """
const { add, describeValue } = require(process.env.RUNNERS_ENTRY_FILE);
"""
    + CP1_TESTS
    + """
test("no snapshot at all", () => {
  expect(add(0, 0)).toBe(0);
});
"""
)
JEST_CP1_SNAP = """// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing

exports[`a test that no longer exists 1`] = `"gone"`;

exports[`adds small numbers 1`] = `3`;

exports[`hinted adds with a hint: two and three 1`] = `5`;

exports[`hinted mismatches its snapshot: two and two 1`] = `5`;

exports[`hinted throws before its snapshot: seven 1`] = `"seven"`;
"""
# checkpoint_2 (its own tests only): every snapshot matches, one entry is obsolete, and
# checkpoint_1's snapshot file belongs to a test file that does not run.
JEST_CP2 = """
const { add } = require(process.env.RUNNERS_ENTRY_FILE);

test("adds larger numbers", () => {
  expect(add(20, 22)).toMatchSnapshot("forty-two");
});

test("adds negatives", () => {
  expect(add(-1, -2)).toBe(-3);
});
"""
JEST_CP2_SNAP = """// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing

exports[`adds larger numbers: forty-two 1`] = `42`;

exports[`removed in checkpoint 2 1`] = `"obsolete"`;
"""
SUBMISSION = """module.exports = {
  add: (a, b) => a + b,
  describeValue: () => { throw new Error("describeValue is not implemented"); },
};
"""


def _toolchain(problem: Path, source: str) -> Path:
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / "problems" / source / name, problem / name)
    return problem


def _need(sandbox: str) -> None:
    if sandbox == "docker":
        need_sandbox("docker")
        from runners.images import docker_client, image_exists

        tag = default_image("node")
        need(
            image_exists(docker_client(), tag),
            f"the image {tag} is missing: run scripts/ci-docker.sh",
        )
    elif sandbox != "none":
        need_sandbox(sandbox)


@pytest.fixture(scope="module")
def jest_snapshots(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("jest-snapshots")
    problem = make_problem(
        root,
        {
            "checkpoint_1.test.js": JEST_CP1,
            "checkpoint_2.test.js": JEST_CP2,
            "__snapshots__/checkpoint_1.test.js.snap": JEST_CP1_SNAP,
            "__snapshots__/checkpoint_2.test.js.snap": JEST_CP2_SNAP,
        },
        conftest=None,
        framework="jest",
        entry_file="main.js",
        timeout=10,
        checkpoints={
            "checkpoint_1": {"version": 1},
            "checkpoint_2": {"version": 1, "include_prior_tests": False},
        },
    )
    return _toolchain(problem, "calc_cli"), make_submission(root, {"main.js": SUBMISSION})


def _run(problem: Path, submission: Path, env: EnvironmentSpec, checkpoint: str = "checkpoint_1"):
    result = run_checkpoint(problem, checkpoint, submission, env)
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert not any(t.collection_error for t in result.tests), result.errors
    return result


def _statuses(result: ExecutionResult) -> dict[str, str]:
    return {t.name: t.status for t in result.tests}


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap", "docker"])
def test_jest_failing_snapshot_is_one_failed_test_and_obsolete_ones_no_error(
    jest_snapshots, sandbox
):
    _need(sandbox)
    problem, submission = jest_snapshots
    before = tree_digest(problem), tree_digest(submission)
    env = EnvironmentSpec(sandbox=sandbox)

    result = _run(problem, submission, env)
    assert _statuses(result) == {**CP1_STATUSES, "no snapshot at all": "passed"}
    assert (
        "toMatchSnapshot(hint)"
        in _by_name(result)["hinted > mismatches its snapshot"].failure_message
    )
    assert (
        "not implemented" in _by_name(result)["hinted > throws before its snapshot"].failure_message
    )

    # Every test passes; jest alone would exit 1 for the obsolete entry and the other file's
    # snapshots.
    clean = _run(problem, submission, env, "checkpoint_2")
    assert _statuses(clean) == {"adds larger numbers": "passed", "adds negatives": "passed"}
    assert PassPolicy("all-cases").check(clean)
    assert any("1 obsolete snapshot(s) and 1 snapshot file(s)" in note for note in clean.errors)

    assert (tree_digest(problem), tree_digest(submission)) == before


def _by_name(result: ExecutionResult) -> dict:
    return {t.name: t for t in result.tests}


VITEST_CP1 = (
    """
import { describe, expect, test } from "vitest";
const { add, describeValue } = await import(process.env.RUNNERS_ENTRY_FILE!);
"""
    + CP1_TESTS
)
VITEST_CP1_SNAP = """// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html

exports[`a test that no longer exists 1`] = `"gone"`;

exports[`adds small numbers 1`] = `3`;

exports[`hinted > adds with a hint > two and three 1`] = `5`;

exports[`hinted > mismatches its snapshot > two and two 1`] = `5`;

exports[`hinted > throws before its snapshot > seven 1`] = `"seven"`;
"""
VITEST_SUBMISSION = """export const add = (a, b) => a + b;
export const describeValue = () => { throw new Error("describeValue is not implemented"); };
"""


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap"])
def test_vitest_snapshots_count_like_jest_and_are_never_written(tmp_path, sandbox):
    _need(sandbox)
    problem = _toolchain(
        make_problem(
            tmp_path,
            {
                "checkpoint_1.test.ts": VITEST_CP1,
                "__snapshots__/checkpoint_1.test.ts.snap": VITEST_CP1_SNAP,
            },
            conftest=None,
            framework="vitest",
            entry_file="main.mjs",
            timeout=10,
        ),
        "text_layout",
    )
    submission = make_submission(tmp_path, {"main.mjs": VITEST_SUBMISSION})
    before = tree_digest(problem)
    result = _run(problem, submission, EnvironmentSpec(sandbox=sandbox))
    assert _statuses(result) == CP1_STATUSES
    assert tree_digest(problem) == before

    # All passing: the obsolete entries (vitest counts the failed test's hinted one too) are no
    # error.
    passing = make_submission(
        tmp_path,
        {
            "main.mjs": "export const add = (a, b) => a + b;\n"
            "export const describeValue = () => 'seven';\n"
        },
        "passing",
    )
    (problem / "tests" / "checkpoint_1.test.ts").write_text(
        VITEST_CP1.replace(
            'expect(add(2, 2)).toMatchSnapshot("two and two")', "expect(add(2, 2)).toBe(4)"
        )
    )
    before = tree_digest(problem)
    clean = _run(problem, passing, EnvironmentSpec(sandbox=sandbox))
    assert set(_statuses(clean).values()) == {"passed"} and len(clean.tests) == 4
    assert any("obsolete snapshot(s)" in note for note in clean.errors)
    assert tree_digest(problem) == before
