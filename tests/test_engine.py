"""The engine's trust checks, in milliseconds: the real engine and pytest runner, a fake sandbox.

Each test scripts what the sandboxed pytest run would leave behind (tests/fake_sandbox.py) and
checks the grade the engine makes of it. The same behaviour on real pytest runs under real
backends is in test_pytest_runner.py and the hostile suite (`make test`).
"""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from fake_sandbox import Case, FakeSandbox, Step, ctrf_report, json_report, pytest_run
from support import make_problem, make_submission

from runners import EnvironmentSpec, UserInputError, load_problem
from runners import GroupType as G
from runners.engine.protocol import execute
from runners.frameworks.pytest_runner import CTRF_REPORT, JSON_REPORT, PytestRunner
from runners.model.policy import PassPolicy
from runners.plugins.runners_report_signature import (
    KEY_FILE_ENV,
    KEY_FILE_NAME,
    LOAD_ERRORS_FIELD,
    SIGNATURE_FIELD,
    sign,
)
from runners.sandbox.base import SandboxResult

CP1 = "tests/test_checkpoint_1.py::"
CP2 = "tests/test_checkpoint_2.py::"


@pytest.fixture
def problem(tmp_path):
    return load_problem(
        make_problem(
            tmp_path,
            {
                "test_checkpoint_1.py": "def test_a(): pass\n",
                "test_checkpoint_2.py": "def test_b(): pass\n",
            },
            checkpoints=2,
            markers={"bulk": {"description": "bulk imports", "group": "Functionality"}},
            env={"PROBLEM_VAR": "1"},
        )
    )


@pytest.fixture
def submission(tmp_path):
    return make_submission(tmp_path, {"main.py": "print('hi')\n"})


def run(
    problem,
    submission,
    tmp_path,
    sandbox,
    checkpoint="checkpoint_1",
    select=(),
    output_dir=None,
    limits=None,
):
    env = EnvironmentSpec(sandbox="none", cache_dir=tmp_path / "cache")
    if limits:
        env.limits = env.limits.model_copy(update=limits)
    runner = PytestRunner(problem=problem, checkpoint=checkpoint, environment=env)
    return execute(
        runner,
        submission,
        extra_args=[],
        select=list(select),
        output_dir=output_dir,
        sandbox=sandbox,
    )


def test_a_signed_consistent_report_is_graded_and_grouped(problem, submission, tmp_path):
    cases = [
        Case(CP1 + "test_old"),
        Case(CP2 + "test_core"),
        Case(CP2 + "test_bulk", markers=["bulk"]),
        Case(
            CP2 + "test_err", outcome="failed", markers=["error"], message="AssertionError: exit 2"
        ),
        Case(CP2 + "test_skip", outcome="skipped"),
    ]
    sandbox = FakeSandbox(pytest_run(cases, stdout="5 collected"))
    result = run(problem, submission, tmp_path, sandbox, checkpoint="checkpoint_2")
    assert not result.infrastructure_failure, result.infrastructure_reason
    groups = {t.id: t.group_type for t in result.tests}
    assert groups == {
        CP1 + "test_old": G.REGRESSION,
        CP2 + "test_core": G.CORE,
        CP2 + "test_bulk": G.FUNCTIONALITY,
        CP2 + "test_err": G.ERROR,
        CP2 + "test_skip": G.CORE,
    }
    assert result.pass_counts == {G.CORE: 1, G.FUNCTIONALITY: 1, G.ERROR: 0, G.REGRESSION: 1}
    assert result.total_counts == {G.CORE: 2, G.FUNCTIONALITY: 1, G.ERROR: 1, G.REGRESSION: 1}
    assert result.exit_code == 1 and result.collected == 5 and result.sandbox == "fake"
    assert {t.id: t.failure_message for t in result.failing_tests}[
        CP2 + "test_err"
    ] == "AssertionError: exit 2"
    assert PassPolicy("all-non-error-cases").check(result) is False  # the skipped Core test counts
    assert result.stdout == "5 collected" and "unsandboxed" not in result.flags


def test_the_test_step_is_offline_limited_and_sees_only_allowed_paths(
    problem, submission, tmp_path, monkeypatch
):
    monkeypatch.setenv("HARNESS_SECRET", "s3cret")
    sandbox = FakeSandbox(pytest_run([Case(CP1 + "test_a")]))
    run(problem, submission, tmp_path, sandbox, limits={"wall_timeout": 42})
    request = sandbox.test_request
    # The wall clock started before the submission was copied: the copy counts against it.
    assert request.network is False and 41 < request.timeout <= 42 and request.cwd == "/workspace"
    assert "s3cret" not in json.dumps(request.env) and request.env["PROBLEM_VAR"] == "1"
    # no variable names the report key (readable from /proc/1/environ, bwrap's command line): the
    # plugin finds it beside its report
    assert (
        KEY_FILE_ENV not in request.env
        and f"/harness/reports/{KEY_FILE_NAME}" not in json.dumps(request.env)
    )
    writable = {m.target for m in request.mounts if m.writable}
    assert writable == {"/workspace", "/harness/reports"}
    assert {"/harness/tests", "/harness/config"} <= {
        m.target for m in request.mounts if not m.writable
    }
    # Every install step ran with the network, and before the test step.
    assert [r.purpose for r in sandbox.requests][-1] == "test"
    assert all(r.network for r in sandbox.requests if r.purpose == "prepare")


def test_a_report_without_the_runs_signature_is_an_infrastructure_failure(
    problem, submission, tmp_path
):
    def forged(step: Step) -> SandboxResult:
        step.pytest_reports([Case(CP1 + "test_a")], 0, signed=False)
        return SandboxResult(exit_code=0)

    result = run(problem, submission, tmp_path, FakeSandbox(forged))
    assert result.infrastructure_failure and not PassPolicy("all-cases").check(result)
    assert "does not carry the run's signature" in result.infrastructure_reason
    assert result.tests == []


def test_a_signed_report_changed_afterwards_is_an_infrastructure_failure(
    problem, submission, tmp_path
):
    def tampered(step: Step) -> SandboxResult:
        step.pytest_reports([Case(CP1 + "test_a", outcome="failed")], 1)
        report = json.loads((step.reports / JSON_REPORT).read_text())
        report["tests"][0]["outcome"] = "passed"  # keeps the signature of the failing report
        step.write(JSON_REPORT, report)
        return SandboxResult(exit_code=1)

    result = run(problem, submission, tmp_path, FakeSandbox(tampered))
    assert result.infrastructure_failure and "signature" in result.infrastructure_reason


def test_a_report_signed_with_a_guessed_key_is_refused(problem, submission, tmp_path):
    def guessed(step: Step) -> SandboxResult:
        from runners.plugins.runners_report_signature import SIGNATURE_FIELD, sign

        step.take_key()
        report = json_report([Case(CP1 + "test_a")], 0)
        report[SIGNATURE_FIELD] = sign(report, b"\0" * 32)
        step.write(JSON_REPORT, report)
        return SandboxResult(exit_code=0)

    result = run(problem, submission, tmp_path, FakeSandbox(guessed))
    assert result.infrastructure_failure and "signature" in result.infrastructure_reason


@pytest.mark.parametrize(
    "setup, reason",
    [
        ("missing", "pytest-report.json was not written"),
        ("empty", "pytest-report.json is empty"),
        ("stale", "written before the run started"),
        ("symlink", "cannot be opened safely"),
        ("not-json", "not valid JSON"),
    ],
)
def test_an_unreadable_report_is_an_infrastructure_failure(
    problem, submission, tmp_path, setup, reason
):
    def script(step: Step) -> SandboxResult:
        path = step.reports / JSON_REPORT
        if setup == "empty":
            path.write_bytes(b"")
        elif setup == "stale":
            step.pytest_reports([Case(CP1 + "test_a")], 0)
            os.utime(path, (time.time() - 3600, time.time() - 3600))
        elif setup == "symlink":
            (step.reports / "elsewhere.json").write_text("{}")
            path.symlink_to(step.reports / "elsewhere.json")
        elif setup == "not-json":
            path.write_bytes(b"{not json")
        return SandboxResult(exit_code=0)

    result = run(problem, submission, tmp_path, FakeSandbox(script))
    assert result.infrastructure_failure and reason in result.infrastructure_reason
    assert "pytest exit code 0" in result.infrastructure_reason


@pytest.mark.parametrize(
    "cases, exit_code, report_exit, reason",
    [
        (
            [Case(CP1 + "test_a", outcome="failed")],
            0,
            0,
            "pytest exited 0 but the report lists 1 failing test",
        ),
        ([Case(CP1 + "test_a")], 1, 1, "pytest exited 1 but the report lists no failing test"),
        ([Case(CP1 + "test_a")], 0, 1, "the report says exit code 1 but pytest exited 0"),
        ([Case(CP1 + "test_a")], 2, 2, "pytest exited 2 (interrupted)"),
        ([Case(CP1 + "test_a")], 3, 3, "pytest exited 3 (internal error)"),
        ([Case(CP1 + "test_a")], -9, -9, "pytest ended abnormally (exit code -9)"),
        ([], 0, 0, "no tests were collected"),
        ([], 5, 5, "pytest exited 5 (no tests collected)"),
    ],
)
def test_exit_code_and_report_must_agree(
    problem, submission, tmp_path, cases, exit_code, report_exit, reason
):
    def script(step: Step) -> SandboxResult:
        step.pytest_reports(cases, report_exit)
        return SandboxResult(exit_code=exit_code)

    result = run(problem, submission, tmp_path, FakeSandbox(script))
    assert result.infrastructure_failure and reason in result.infrastructure_reason
    assert not PassPolicy("any-case").check(result) and PassPolicy("any").check(result)


def test_the_ctrf_cross_check_must_agree(problem, submission, tmp_path):
    def script(step: Step) -> SandboxResult:
        step.pytest_reports(
            [Case(CP1 + "test_a", outcome="failed")], 1, ctrf=[Case(CP1 + "test_a")]
        )
        return SandboxResult(exit_code=1)

    result = run(problem, submission, tmp_path, FakeSandbox(script))
    assert (
        result.infrastructure_failure
        and "CTRF and pytest-json-report disagree" in result.infrastructure_reason
    )


def test_a_missing_ctrf_report_is_an_infrastructure_failure(problem, submission, tmp_path):
    def script(step: Step) -> SandboxResult:
        step.pytest_reports([Case(CP1 + "test_a")], 0)
        (step.reports / "ctrf-report.json").unlink()
        return SandboxResult(exit_code=0)

    result = run(problem, submission, tmp_path, FakeSandbox(script))
    assert (
        result.infrastructure_failure and "CTRF cross-check failed" in result.infrastructure_reason
    )


COUNTED = {  # 3 + 4 (a literal list) + 2 x 3 (a class parametrized over a module-level list) = 13
    "test_checkpoint_1.py": """
        import pytest
        SIZES = [1, 2, 3]
        def test_a(): pass
        def test_b(): pass
        async def test_c(): pass
        def helper(): pass
        @pytest.mark.parametrize("lang", ["python", "javascript", "cpp", "rust"])
        def test_lang(lang): pass
        @pytest.mark.parametrize("size", SIZES)
        class TestSizes:
            def test_small(self, size): pass
            def test_big(self, size): pass
    """,
    "test_checkpoint_2.py": "def test_d(): pass\n",
}


def test_the_default_wall_clock_gives_every_test_its_per_test_timeout(submission, tmp_path):
    """SCBench has no whole-run limit: a reference solution that needs its tests' time is never
    cut off. 900 s plus the problem's per-test timeout (60 s) for each of the 14 tests that run."""
    problem = load_problem(make_problem(tmp_path / "p", COUNTED, checkpoints=2, timeout=60))
    sandbox = FakeSandbox(pytest_run([Case(CP2 + "test_d")]))
    run(problem, submission, tmp_path, sandbox, checkpoint="checkpoint_2")
    assert 900 + 14 * 60 - 1 < sandbox.test_request.timeout <= 900 + 14 * 60

    for where in ("user", "problem"):  # an explicit limit wins, the user's or the problem's
        limited = load_problem(
            make_problem(
                tmp_path / where,
                COUNTED,
                timeout=60,
                **({"limits": {"wall_timeout": 50}} if where == "problem" else {}),
            )
        )
        sandbox = FakeSandbox(pytest_run([Case(CP1 + "test_a")]))
        run(
            limited,
            submission,
            tmp_path,
            sandbox,
            limits={"wall_timeout": 50} if where == "user" else None,
        )
        assert 49 < sandbox.test_request.timeout <= 50, where


def test_a_wall_clock_timeout_is_never_graded_even_with_a_good_report(
    problem, submission, tmp_path
):
    script = pytest_run([Case(CP1 + "test_a")], timed_out=True, exit_code=None)
    result = run(problem, submission, tmp_path, FakeSandbox(script), limits={"wall_timeout": 4})
    assert result.infrastructure_failure and result.timed_out
    assert "exceeded its wall-clock limit of 4 s" in result.infrastructure_reason
    assert result.tests == []


def test_an_oom_kill_without_a_report_says_so(problem, submission, tmp_path):
    result = run(
        problem,
        submission,
        tmp_path,
        FakeSandbox(lambda step: SandboxResult(exit_code=-9, oom_killed=True)),
    )
    assert result.infrastructure_reason == "the test run was killed for exceeding its memory limit"


@pytest.mark.parametrize(
    ("test_id", "message"),
    [
        (CP1 + "nope", "tests/test_checkpoint_1.py defines no test or class named 'nope'"),
        (
            "tests/test_checkpoint_9.py::test_a",
            (
                "tests/test_checkpoint_9.py is not a test file of this checkpoint "
                r"\(files: tests/test_checkpoint_1.py\)"
            ),
        ),
        ("test_checkpoint_1.py::test_a", "expected a test id under tests/"),
    ],
)
def test_a_select_id_that_names_no_test_is_refused_before_any_sandbox_starts(
    problem, submission, tmp_path, test_id, message
):
    sandbox = FakeSandbox(pytest_run([Case(CP1 + "test_a")]))
    with pytest.raises(UserInputError, match=f"option --select: '{test_id}': {message}"):
        run(problem, submission, tmp_path, sandbox, select=[test_id])
    assert sandbox.requests == []  # no toolchain prepared, no test run


def test_a_select_id_pytest_finds_nothing_for_is_refused_and_the_run_kept(
    problem, submission, tmp_path
):
    """`test_a[zzz]`: test_a exists, its parameter does not; only pytest can tell."""

    def script(step: Step) -> SandboxResult:
        step.pytest_reports([], 4)
        return SandboxResult(
            exit_code=4, stderr="ERROR: not found: /harness/tests/test_checkpoint_1.py::test_a[zzz]"
        )

    out = tmp_path / "out"
    with pytest.raises(
        UserInputError, match=r"option --select: no such test among .*test_a\[zzz\]"
    ):
        run(
            problem,
            submission,
            tmp_path,
            FakeSandbox(script),
            select=[CP1 + "test_a[zzz]"],
            output_dir=out,
        )
    saved = json.loads((out / "result.json").read_text())
    assert saved["infrastructure_reason"].startswith("refused: option --select: no such test")
    assert "not found" in (out / "stderr.txt").read_text()


def test_selected_ids_reach_pytest_as_paths_under_the_root(problem, submission, tmp_path):
    sandbox = FakeSandbox(pytest_run([Case(CP1 + "test_a")]))
    run(problem, submission, tmp_path, sandbox, select=[CP1 + "test_a"])
    argv = sandbox.test_request.argv
    assert argv[-1] == "/harness/" + CP1 + "test_a" and "/harness/tests" not in argv


def test_unsandboxed_and_truncated_output_are_flagged(problem, submission, tmp_path):
    script = pytest_run([Case(CP1 + "test_a", stdout="x" * 100_000)], stdout_truncated=True)
    result = run(problem, submission, tmp_path, FakeSandbox(script, isolated=False))
    assert not result.infrastructure_failure
    assert {"unsandboxed", "output-truncated", "test-output-truncated"} <= set(result.flags)
    assert len(result.tests[0].stdout) < 70_000 and "characters truncated" in result.tests[0].stdout


def test_grader_touching_submission_code_is_flagged_on_the_result(problem, tmp_path):
    sub = make_submission(tmp_path, {"main.py": "print(1)\n", "calc.py": "import _pytest\n"})
    result = run(problem, sub, tmp_path, FakeSandbox(pytest_run([Case(CP1 + "test_a")])))
    assert any("calc.py:1 imports _pytest" in flag for flag in result.flags)
    assert result.pass_counts == {G.CORE: 1}  # a flag warns; it does not change the grade


def test_artifacts_keep_the_result_reports_and_command(problem, submission, tmp_path):
    out = tmp_path / "artifacts"
    result = run(
        problem,
        submission,
        tmp_path,
        FakeSandbox(pytest_run([Case(CP1 + "test_a")], stdout="ok")),
        output_dir=out,
    )
    assert result.artifacts_dir == str(out)
    assert json.loads((out / "result.json").read_text())["summary"] == "Core 1/1"
    assert len(json.loads((out / "reports" / JSON_REPORT).read_text())["tests"]) == 1
    assert (out / "stdout.txt").read_text() == "ok"
    assert "markers =" in (out / "config" / "pytest.ini").read_text()
    assert json.loads((out / "command.json").read_text())["argv"][1:5] == [
        "-s",
        "-P",
        "-m",
        "pytest",
    ]


def test_a_failed_install_is_an_infrastructure_failure_with_the_reason(
    problem, submission, tmp_path
):
    class BrokenIndex(FakeSandbox):
        def _install(self, request):
            return SandboxResult(exit_code=2, stderr="error: no route to the package index")

    result = run(problem, submission, tmp_path, BrokenIndex(pytest_run([])))
    assert (
        result.infrastructure_failure
        and "no route to the package index" in result.infrastructure_reason
    )
    assert "preparing the test toolchain failed (exit code 2)" in result.infrastructure_reason


def test_the_workspace_is_removed_and_inputs_untouched(problem, submission, tmp_path):
    seen = {}

    def script(step: Step) -> SandboxResult:
        seen["reports"] = step.reports
        step.pytest_reports([Case(CP1 + "test_a")], 0)
        return SandboxResult(exit_code=0)

    before = sorted(p.name for p in submission.rglob("*"))
    run(problem, submission, tmp_path, FakeSandbox(script))
    assert not seen["reports"].exists()
    assert sorted(p.name for p in submission.rglob("*")) == before


@pytest.mark.parametrize("where", ["inside", "missing"])
def test_a_bad_submission_path_is_a_user_error(problem, tmp_path, where):
    sub = problem.path / "tests" if where == "inside" else tmp_path / "nope"
    with pytest.raises(UserInputError, match="option --submission"):
        run(problem, sub, tmp_path, FakeSandbox(pytest_run([])))


def test_ctrf_report_helper_matches_the_parser():
    """The fake's CTRF report reads back with the ids the cross-check compares."""
    from runners.parsers.ctrf import ctrf_outcomes

    outcomes = ctrf_outcomes(
        ctrf_report([Case(CP1 + "test_a"), Case(CP1 + "test_b", outcome="failed")])
    )
    assert {k: v.passed for k, v in outcomes.items()} == {
        CP1 + "test_a": True,
        CP1 + "test_b": False,
    }


def test_a_cell_the_harness_could_not_run_is_named_whether_or_not_its_config_loads(
    problem, submission, tmp_path
):
    from runners.batch.cells import Cell
    from runners.batch.executors import failure_result

    loaded = failure_result(
        Cell.of(problem.path, "checkpoint_1", submission), "worker died", sandbox="docker"
    )
    assert (loaded.problem_name, loaded.checkpoint_name, loaded.framework) == (
        problem.name,
        "checkpoint_1",
        "pytest",
    )
    assert loaded.infrastructure_failure and loaded.infrastructure_reason == "worker died"
    broken = tmp_path / "broken"
    broken.mkdir()
    unnamed = failure_result(Cell.of(broken, "checkpoint_1", submission), "no config")
    assert (unnamed.problem_name, unnamed.framework, unnamed.sandbox) == (
        "broken",
        "unknown",
        "none",
    )


def test_one_runner_object_serves_two_runs_at_once(problem, tmp_path):
    """Per-run state (toolchains, the report key) lives on the run, not on the runner: two runs
    overlapping in threads each get their own key and their own grade."""
    barrier = threading.Barrier(2, timeout=10)

    def overlapping(cases: list[Case]):
        inner = pytest_run(cases)

        def script(step: Step) -> SandboxResult:
            barrier.wait()  # both runs have written their config and prepared before either reports
            return inner(step)

        return script

    env = EnvironmentSpec(sandbox="none", cache_dir=tmp_path / "cache")
    runner = PytestRunner(problem=problem, checkpoint="checkpoint_1", environment=env)
    subs = [
        make_submission(tmp_path / name, {"main.py": f"print('{name}')\n"}) for name in ("x", "y")
    ]
    sandboxes = [
        FakeSandbox(overlapping([Case(CP1 + "test_a")])),
        FakeSandbox(overlapping([Case(CP1 + "test_a", outcome="failed")])),
    ]
    results: list = [None, None]

    def one(index: int) -> None:
        results[index] = execute(
            runner, subs[index], extra_args=[], select=[], output_dir=None, sandbox=sandboxes[index]
        )

    threads = [threading.Thread(target=one, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.infrastructure_reason for r in results] == [None, None]
    assert [r.tests[0].status for r in results] == ["passed", "failed"]


def _collection_error(frames: list[list[object]], files: list[list[object]], error: str):
    """A pytest run where checkpoint 1's test passed and checkpoint 2's file failed to load, with
    the facts our plugin records about it (signed with the report)."""

    def script(step: Step) -> SandboxResult:
        report = json_report([Case(CP1 + "test_a")], 1)
        report["collectors"] = [
            {
                "nodeid": "tests/test_checkpoint_2.py",
                "outcome": "failed",
                "result": [],
                "longrepr": f"E   {error}",
            }
        ]
        report[LOAD_ERRORS_FIELD] = [
            {
                "nodeid": "tests/test_checkpoint_2.py",
                "error": error,
                "frames": frames,
                "files": files,
                "missing_module": None,
                "submission_on_path": False,
            }
        ]
        report[SIGNATURE_FIELD] = sign(report, step.take_key() or b"")
        step.write(JSON_REPORT, report)
        step.write(CTRF_REPORT, ctrf_report([Case(CP1 + "test_a")]))
        return SandboxResult(exit_code=1, duration=0.01)

    return script


def test_a_problem_file_that_fails_to_load_is_a_problem_error_not_a_grade(
    problem, submission, tmp_path
):
    script = _collection_error(
        [["/harness/tests/test_checkpoint_2.py", 3]],
        [["/harness/tests/test_checkpoint_2.py", 3]],
        "SyntaxError: invalid syntax",
    )
    result = run(problem, submission, tmp_path, FakeSandbox(script), checkpoint="checkpoint_2")
    assert result.status == "problem_error" and not result.infrastructure_failure
    assert (
        result.problem_error_reason
        == "tests/test_checkpoint_2.py, line 3: SyntaxError: invalid syntax"
    )
    assert result.tests == [] and not PassPolicy("all-cases").check(
        result
    )  # checkpoint 1's test is no grade either


def test_a_file_that_fails_to_load_through_the_submission_is_its_graded_failure(
    problem, submission, tmp_path
):
    script = _collection_error(
        [["/harness/tests/test_checkpoint_2.py", 1], ["/workspace/calc.py", 2]],
        [],
        "ZeroDivisionError: division by zero",
    )
    result = run(problem, submission, tmp_path, FakeSandbox(script), checkpoint="checkpoint_2")
    assert result.status == "graded" and not result.problem_error
    assert {t.id: t.status for t in result.tests} == {
        CP1 + "test_a": "passed",
        "tests/test_checkpoint_2.py": "error",
    }
