"""`node --test` (runners/frameworks/node_test.py): the framework written the way
docs/developer/write-a-framework.md says a new one is, run for real on every backend, and its
report held to the run's signature without any toolchain."""

from __future__ import annotations

import hashlib
import hmac
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import make_problem, make_submission, need_sandbox

from runners import EnvironmentSpec, run_checkpoint
from runners.frameworks.node_test import REPORT, SIGNATURE, NodeTestRunner
from runners.model.errors import UserInputError
from runners.model.results import GroupType as G

RUN = (
    'const run = (...args) => execFileSync("sh", '
    '["-c", `${process.env.RUNNERS_ENTRYPOINT} "$@"`, "sh", ...args],'
    ' { encoding: "utf-8" }).trim();\n'
)
HEAD = (
    'import { test, describe } from "node:test";\nimport assert from "node:assert/strict";\n'
    'import { execFileSync } from "node:child_process";\n' + RUN
)
TESTS = {
    "checkpoint_1.test.mjs": HEAD
    + """
describe("greet", () => {
  test("says hello", () => assert.equal(run("Ada"), "hello Ada"));
  test("@error refuses no name", () => assert.throws(() => run()));
});
""",
    "checkpoint_2.test.mjs": HEAD
    + 'test("shouts", () => assert.equal(run("--loud", "Ada"), "HELLO ADA"));\n',
}
MAIN = """
const args = process.argv.slice(2);
if (!args.length) { console.error("no name"); process.exit(2); }
console.log(`hello ${args.at(-1)}`);
"""


def _problem(tmp_path: Path) -> Path:
    return make_problem(
        tmp_path, TESTS, name="greet", conftest=None, checkpoints=2, framework="node-test"
    )


@pytest.mark.node
@pytest.mark.parametrize(
    "sandbox",
    [
        "none",
        pytest.param("bubblewrap", marks=pytest.mark.bubblewrap),
        pytest.param("docker", marks=pytest.mark.docker),
    ],
)
def test_node_test_problems_are_graded_with_groups_and_regressions(tmp_path, sandbox):
    need_sandbox(sandbox)
    problem, submission = _problem(tmp_path), make_submission(tmp_path, {"main.js": MAIN})
    result = run_checkpoint(problem, "checkpoint_2", submission, EnvironmentSpec(sandbox=sandbox))
    assert not result.infrastructure_failure, result.infrastructure_reason
    groups = {t.id: (t.group_type, t.status) for t in result.tests}
    assert groups == {
        "tests/checkpoint_1.test.mjs::greet > says hello": (G.REGRESSION, "passed"),
        "tests/checkpoint_1.test.mjs::greet > @error refuses no name": (G.REGRESSION, "passed"),
        "tests/checkpoint_2.test.mjs::shouts": (G.CORE, "failed"),
    }
    [failing] = result.failing_tests
    assert "HELLO ADA" in (failing.failure_message or "")


def test_select_is_refused_by_a_runner_that_cannot_select(tmp_path):
    runner = NodeTestRunner(problem=_problem(tmp_path), checkpoint="checkpoint_1")
    with pytest.raises(UserInputError, match="the node-test runner cannot run single tests"):
        runner.check_select(SimpleNamespace(select=["tests/checkpoint_1.test.mjs::x"]))  # type: ignore[arg-type]


JUNIT = (
    b'<?xml version="1.0"?><testsuites name="node --test">'
    b'<testsuite name="t"><testcase classname="" '
    b'name="ok" file="/harness/tests/checkpoint_1.test.mjs" time="0.01"/></testsuite></testsuites>'
)


@pytest.mark.parametrize(
    ("signature", "trusted"), [("right", True), ("wrong", False), (None, False)]
)
def test_only_a_report_signed_with_the_run_s_key_is_read(tmp_path, signature, trusted):
    """The unit test a new framework needs no toolchain for: `collect` on a report laid by hand."""
    key = b"k" * 32
    reports = tmp_path / "reports"
    reports.mkdir()
    ctx = SimpleNamespace(
        workspace=SimpleNamespace(reports=reports),
        report_key=key,
        started_at=time.time() - 5,
        layout=SimpleNamespace(root="/harness"),
    )
    (reports / REPORT).write_bytes(JUNIT)
    if signature is not None:
        digest = hmac.new(
            key if signature == "right" else b"x" * 32, JUNIT, hashlib.sha256
        ).hexdigest()
        (reports / SIGNATURE).write_text(digest)
    runner = NodeTestRunner.__new__(NodeTestRunner)
    verdict = runner.collect(ctx, SimpleNamespace(exit_code=0))  # type: ignore[arg-type]
    if trusted:
        assert verdict.infrastructure_reason is None and [
            r.status for r in verdict.report.records
        ] == ["passed"]
    else:
        assert "does not carry the run's signature" in (verdict.infrastructure_reason or "")
