"""The generic runners: any command that writes JUnit XML or CTRF, graded like pytest."""

from __future__ import annotations

import os

import pytest
from support import make_problem, make_submission

from runners import EnvironmentSpec, run_checkpoint
from runners import GroupType as G

TESTS = {
    "test_checkpoint_1.py": """
        import subprocess
        def test_echo(entrypoint_argv):
            assert subprocess.run(
                entrypoint_argv + ["a"], capture_output=True, text=True
            ).stdout == "a\\n"
    """,
    "test_checkpoint_2.py": """
        import subprocess, pytest
        def test_upper(entrypoint_argv):
            assert subprocess.run(
                entrypoint_argv + ["--upper", "a"], capture_output=True, text=True
            ).stdout == "A\\n"
        @pytest.mark.error
        def test_no_args(entrypoint_argv):
            assert subprocess.run(entrypoint_argv).returncode != 0
    """,
}
MAIN = "import sys\nprint(' '.join(sys.argv[1:]))\n"
PYTEST = [
    "{python}",
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "{tests}",
    "--entrypoint={entrypoint}",
    "--checkpoint={checkpoint}",
]

# A hand-written "any command": a script that checks the submission and writes JUnit itself,
# with nested suites, a skipped case and a property carrying a marker.
WRITER = """
import subprocess, sys, os
report, entry = sys.argv[1], os.environ["RUNNERS_ENTRYPOINT"]
out = subprocess.run(entry.split() + ["hi"], capture_output=True, text=True).stdout
ok = out == "hi\\n"
case = '<testcase classname="checks.checkpoint_1" name="echo" time="0.01">%s</testcase>' % (
    "" if ok else '<failure message="wrong echo">got %r</failure>' % out)
xml = ('<testsuites><testsuite name="outer"><testsuite name="inner">' + case +
       '<testcase classname="checks.checkpoint_1" name="later"><skipped message="todo"/></testcase>'
       '<testcase classname="checks.checkpoint_1" name="bad input"><properties>'
       '<property name="markers" value="error"/></properties></testcase>'
       '</testsuite></testsuite></testsuites>')
open(report, "w").write(xml)
sys.exit(0 if ok else 1)
"""


@pytest.fixture
def env():
    return EnvironmentSpec(sandbox="none")


def test_junit_from_pytest_gives_grouped_results(tmp_path, env):
    problem = make_problem(
        tmp_path,
        TESTS,
        checkpoints=2,
        framework="junit",
        test_command=[*PYTEST, "--junitxml={report}"],
    )
    result = run_checkpoint(
        problem, "checkpoint_2", make_submission(tmp_path, {"main.py": MAIN}), env
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.framework == "junit"
    statuses = {t.name: (t.status, t.group_type) for t in result.tests}
    assert statuses["test_echo"] == ("passed", G.REGRESSION)  # from checkpoint_1's module
    assert statuses["test_upper"] == ("failed", G.CORE)
    assert result.total_counts[G.REGRESSION] == 1


def test_ctrf_from_pytest(tmp_path, env):
    problem = make_problem(
        tmp_path, TESTS, checkpoints=2, framework="ctrf", test_command=[*PYTEST, "--ctrf={report}"]
    )
    result = run_checkpoint(
        problem, "checkpoint_2", make_submission(tmp_path, {"main.py": MAIN}), env
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    groups = {t.name: t.group_type for t in result.tests}
    assert groups == {"test_echo": G.REGRESSION, "test_upper": G.CORE, "test_no_args": G.ERROR}
    assert result.pass_counts == {G.CORE: 0, G.ERROR: 0, G.REGRESSION: 1}


def test_any_command_writing_junit(tmp_path, env):
    problem = make_problem(
        tmp_path,
        {"checks_checkpoint_1.py": WRITER},
        conftest=None,
        framework="junit",
        test_command=["{python}", "{tests}/checks_checkpoint_1.py", "{report}"],
    )
    good = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": MAIN}, "good"), env
    )
    assert not good.infrastructure_failure, good.infrastructure_reason
    assert {t.name: t.status for t in good.tests} == {
        "echo": "passed",
        "later": "skipped",
        "bad input": "passed",
    }
    assert {t.name: t.group_type for t in good.tests}["bad input"] is G.ERROR
    bad = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": "print('no')"}, "bad"), env
    )
    assert {t.name: t.status for t in bad.tests}["echo"] == "failed"
    assert "wrong echo" in {t.name: t for t in bad.tests}["echo"].failure_message


def test_missing_report_is_an_infrastructure_failure(tmp_path, env):
    problem = make_problem(
        tmp_path, TESTS, framework="junit", test_command=["{python}", "-c", "pass"]
    )
    result = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": MAIN}), env
    )
    assert result.infrastructure_failure and "was not written" in result.infrastructure_reason


def test_a_command_that_crashes_names_its_exception(tmp_path, env):
    problem = make_problem(
        tmp_path,
        TESTS,
        framework="junit",
        test_command=["{python}", "-c", "import runners_no_such_module"],
    )
    result = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": MAIN}), env
    )
    head, *cause = result.infrastructure_reason.splitlines()
    assert "was not written" in head and "(command exit code 1)" in head
    assert [line.strip() for line in cause] == [
        "ModuleNotFoundError: No module named 'runners_no_such_module'"
    ]


def test_report_shipped_with_the_submission_is_never_graded(tmp_path, env):
    fake = '<testsuite><testcase classname="x.checkpoint_1" name="t"/></testsuite>'
    problem = make_problem(
        tmp_path,
        TESTS,
        framework="junit",
        report_path="out/junit.xml",
        test_command=["{python}", "-c", "pass"],
    )
    sub = make_submission(tmp_path, {"main.py": MAIN, "out/junit.xml": fake})
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert result.infrastructure_failure and "was not written" in result.infrastructure_reason
    assert any("shipped with the submission" in e for e in result.errors)
    assert (sub / "out" / "junit.xml").read_text() == fake  # the user's copy is untouched


def test_report_path_through_a_symlink_is_refused(tmp_path, env):
    problem = make_problem(
        tmp_path,
        TESTS,
        framework="junit",
        report_path="out/junit.xml",
        test_command=["{python}", "-c", "pass"],
    )
    sub = make_submission(tmp_path, {"main.py": MAIN})
    target = tmp_path / "host-secrets"
    target.mkdir()
    (target / "junit.xml").write_text('<testsuite><testcase name="forged"/></testsuite>')
    os.symlink(target, sub / "out")
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert result.infrastructure_failure and "symlink" in result.infrastructure_reason
    assert (target / "junit.xml").exists()


def test_failing_exit_with_an_all_passing_report_is_not_trusted(tmp_path, env):
    writer = (
        "import sys; open(sys.argv[1], 'w').write("
        '\'<testsuite><testcase classname="c.checkpoint_1" '
        'name="t"/></testsuite>\'); sys.exit(3)'
    )
    problem = make_problem(
        tmp_path, TESTS, framework="junit", test_command=["{python}", "-c", writer, "{report}"]
    )
    result = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": MAIN}), env
    )
    assert result.infrastructure_failure and "not trusted" in result.infrastructure_reason


def test_command_is_required(tmp_path, env):
    from runners import ConfigError

    problem = make_problem(tmp_path, TESTS, framework="ctrf")
    with pytest.raises(ConfigError, match="field `test_command`"):
        run_checkpoint(problem, "checkpoint_1", make_submission(tmp_path, {"main.py": MAIN}), env)
