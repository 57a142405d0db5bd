"""The pytest runner end to end, on real pytest runs of small generated problems."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest
from support import SCBENCH_CONFTEST, make_problem, make_submission, need_sandbox, tree_digest

from runners import EnvironmentSpec, UserInputError, load_problem, run_checkpoint
from runners import GroupType as G
from runners.frameworks.pytest_runner import PytestRunner
from runners.model.policy import PassPolicy

ECHO_MAIN = """
import sys
args = sys.argv[1:]
if not args:
    print("usage: main.py WORD", file=sys.stderr)
    sys.exit(2)
print(" ".join(args))
"""

OUTCOMES = """
import subprocess
import pytest


def run(argv, *args):
    return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=20)


def test_pass(entrypoint_argv):
    print("captured out")
    assert run(entrypoint_argv, "hi").stdout == "hi\\n"


def test_fail(entrypoint_argv):
    assert run(entrypoint_argv, "hi").stdout == "bye\\n", "output differs"


@pytest.mark.skip(reason="not ready")
def test_skip():
    pass


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="maybe fixed")
def test_xpass():
    pass


@pytest.fixture
def broken():
    raise RuntimeError("fixture exploded")


def test_setup_error(broken):
    pass


@pytest.fixture
def bad_teardown():
    yield
    raise ValueError("teardown exploded")


def test_teardown_error(bad_teardown):
    pass


@pytest.mark.parametrize("word", ["a b", "x[1]", "error"])
def test_param(entrypoint_argv, word):
    assert run(entrypoint_argv, word).stdout.strip() == word


@pytest.mark.error
def test_usage_error(entrypoint_argv):
    assert run(entrypoint_argv).returncode == 2


class TestGroup:
    @pytest.mark.functionality
    def test_method(self, entrypoint_argv):
        assert run(entrypoint_argv, "m").returncode == 0
"""


@pytest.fixture
def env() -> EnvironmentSpec:
    return EnvironmentSpec(sandbox="none")


def _by_id(result):
    return {t.id: t for t in result.tests}


def test_every_outcome_is_normalized(tmp_path, env):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert not result.infrastructure_failure, result.infrastructure_reason
    tests = _by_id(result)
    f = "tests/test_checkpoint_1.py::"
    expect = {
        "test_pass": ("passed", "passed"),
        "test_fail": ("failed", "failed"),
        "test_skip": ("skipped", "skipped"),
        "test_xfail": ("skipped", "xfailed"),
        "test_xpass": ("passed", "xpassed"),
        "test_setup_error": ("error", "error"),
        "test_teardown_error": ("error", "error"),
        "test_param[a b]": ("passed", "passed"),
        "test_param[x[1]]": ("passed", "passed"),
        "test_param[error]": ("passed", "passed"),
        "test_usage_error": ("passed", "passed"),
        "TestGroup::test_method": ("passed", "passed"),
    }
    assert {k[len(f) :]: (t.status, t.raw_status) for k, t in tests.items()} == expect
    assert tests[f + "test_fail"].failure_message.startswith("AssertionError: output differs")
    assert "def test_fail" in tests[f + "test_fail"].traceback
    assert tests[f + "test_pass"].stdout == "captured out\n"
    assert tests[f + "test_skip"].failure_message == "Skipped: not ready"
    assert "fixture exploded" in tests[f + "test_setup_error"].failure_message
    assert "[teardown]" in tests[f + "test_teardown_error"].failure_message
    assert tests[f + "test_pass"].line == 9 and tests[f + "test_pass"].duration_ms > 0
    # Markers come from the tests, not from keywords: a parametrize id named "error" is Core.
    assert tests[f + "test_param[error]"].group_type is G.CORE
    assert tests[f + "test_usage_error"].group_type is G.ERROR
    assert tests[f + "TestGroup::test_method"].group_type is G.FUNCTIONALITY
    assert result.total_counts == {G.CORE: 10, G.FUNCTIONALITY: 1, G.ERROR: 1}
    assert result.exit_code == 1 and result.collected == 12


def test_undecodable_output_in_a_failure_is_kept_readable(tmp_path, env):
    """A program printing bytes that are not UTF-8 makes messages with lone surrogates, which
    pytest-json-report escapes as `\\udcff`; the result still reads and saves as UTF-8 JSON."""
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": (
                "def test_bytes():\n"
                "    raise ValueError(b'bad \\xff byte'.decode('utf-8', 'surrogateescape'))\n"
                "def test_ok():\n    pass\n"
            )
        },
    )
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    result = run_checkpoint(problem, "checkpoint_1", sub, env, output_dir=tmp_path / "out")
    assert not result.infrastructure_failure, result.infrastructure_reason
    failed = _by_id(result)["tests/test_checkpoint_1.py::test_bytes"]
    assert failed.status == "failed"
    assert failed.failure_message == "ValueError: bad \ufffd byte"
    saved = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    assert {t["failure_message"] for t in saved["tests"] if t["status"] == "failed"} == {
        "ValueError: bad \ufffd byte"
    }


def test_collection_error_names_the_file_and_other_tests_still_run(tmp_path, env):
    """A test file that fails to load because of the submission (the module it imports from the
    submission is missing) is an error of that file; the other files' tests still run."""
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": "def test_ok(): pass\n",
            "test_checkpoint_2.py": (
                "import os, sys\nsys.path.insert(0, os.environ['SUBMISSION_PATH'])\n"
                "import does_not_exist\n\ndef test_never(): pass\n"
            ),
        },
        checkpoints=2,
    )
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    result = run_checkpoint(problem, "checkpoint_2", sub, env)
    assert not result.infrastructure_failure, result.infrastructure_reason
    tests = _by_id(result)
    broken = tests["tests/test_checkpoint_2.py"]
    assert broken.status == "error" and broken.collection_error
    assert "tests/test_checkpoint_2.py" in broken.failure_message
    assert "does_not_exist" in broken.failure_message
    assert broken.group_type is G.CORE
    assert tests["tests/test_checkpoint_1.py::test_ok"].group_type is G.REGRESSION
    assert any("does_not_exist" in e for e in result.errors)


def test_hostile_conftest_ini_and_pyproject_in_the_submission_are_ignored(tmp_path, env):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    honest = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": ECHO_MAIN}, "a"), env
    )
    hostile = make_submission(
        tmp_path,
        {
            "main.py": ECHO_MAIN,
            "conftest.py": """
            import pytest
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(item, call):
                outcome = yield
                outcome.get_result().outcome = "passed"
            def pytest_collection_modifyitems(items):
                items[:] = items[:1]
        """,
            "pytest.ini": "[pytest]\naddopts = -p no:json_report -x --deselect tests\n",
            "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-k test_pass'\n",
            "tests/conftest.py": "import os\nos._exit(0)\n",
        },
        "b",
    )
    result = run_checkpoint(problem, "checkpoint_1", hostile, env)
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [(t.id, t.status) for t in result.tests] == [(t.id, t.status) for t in honest.tests]
    assert result.pass_counts == honest.pass_counts


def test_submission_and_problem_are_never_modified(tmp_path, env):
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": """
        import pathlib, subprocess
        def test_writes(entrypoint_argv):
            subprocess.run(entrypoint_argv + ["x"], timeout=20)
            pathlib.Path("made_by_test.txt").write_text("x")
    """
        },
        static_assets={"data": {"path": "assets/data.txt", "save_path": "data/data.txt"}},
    )
    (problem / "assets").mkdir()
    (problem / "assets" / "data.txt").write_text("asset")
    sub = make_submission(
        tmp_path,
        {
            "main.py": "import pathlib\npathlib.Path('out.txt').write_text('x')\n",
            "pkg/__init__.py": "",
            "conftest.py": "x = 1\n",
        },
    )
    os.symlink("/etc/passwd", sub / "link")
    before_sub, before_problem = tree_digest(sub), tree_digest(problem)
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert result.pass_counts == {G.CORE: 1}
    assert tree_digest(sub) == before_sub
    assert tree_digest(problem) == before_problem


SCBENCH_STYLE_TEST = """
import json
import os
import subprocess
from pathlib import Path

import pytest


def test_environment_reaches_tests_and_submission(entrypoint_argv, checkpoint_name, tmp_path):
    assert checkpoint_name == "checkpoint_1"
    assert os.environ["SCBENCH_CHECKPOINT"] == "checkpoint_1"
    assets = Path(os.environ["SCBENCH_ASSETS_DIR"])
    assert assets.is_absolute() and (assets / "words").is_file()
    words = Path(os.environ["SCBENCH_ASSET_WORDS"])
    assert words.is_absolute() and words.read_text() == "alpha\\nbeta\\n"
    assert os.environ["PROBLEM_LEVEL"] == "p" and os.environ["CP_LEVEL"] == "c"
    # The entry command works from any directory: it is made of absolute paths.
    out = subprocess.run(entrypoint_argv, cwd=tmp_path, capture_output=True, text=True, timeout=20)
    seen = json.loads(out.stdout)
    assert seen["cwd"] == str(tmp_path)
    assert seen["env"] == {"PROBLEM_LEVEL": "p", "CP_LEVEL": "c"}
    assert not seen["secret"]


def test_cwd_is_the_submission_root():
    assert Path("main.py").is_file()


def test_test_dependency_is_importable():
    import six  # from test_dependencies
    assert six.PY3
"""

SCBENCH_STYLE_MAIN = """
import json, os
print(json.dumps({
    "cwd": os.getcwd(),
    "env": {k: os.environ[k] for k in ("PROBLEM_LEVEL", "CP_LEVEL") if k in os.environ},
    "secret": os.environ.get("RUNNERS_TEST_CANARY"),
}))
"""


def test_scbench_style_problem_runs_unchanged(tmp_path, env, monkeypatch):
    monkeypatch.setenv("RUNNERS_TEST_CANARY", "do-not-leak")
    problem = make_problem(
        tmp_path,
        {"test_checkpoint_1.py": SCBENCH_STYLE_TEST},
        checkpoints={"checkpoint_1": {"version": 1, "env": {"CP_LEVEL": "c"}}},
        env={"PROBLEM_LEVEL": "p"},
        static_assets={"words": {"path": "assets/words.txt"}},
        test_dependencies=["six==1.17.0"],
    )
    (problem / "assets").mkdir()
    (problem / "assets" / "words.txt").write_text("alpha\nbeta\n")
    sub = make_submission(tmp_path, {"main.py": SCBENCH_STYLE_MAIN})
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert [
        (t.name, t.status, t.failure_message) for t in result.tests if t.status != "passed"
    ] == []
    assert result.pass_counts == {G.CORE: 3}


def test_per_test_timeout_fails_only_that_test(tmp_path, env):
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": """
        import time
        def test_slow():
            time.sleep(30)
        def test_fast():
            pass
    """
        },
        timeout=2,
    )
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    started = time.monotonic()
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert time.monotonic() - started < 25
    tests = {t.name: t for t in result.tests}
    assert tests["test_slow"].status == "failed" and "Timeout" in tests["test_slow"].failure_message
    assert tests["test_fast"].status == "passed"
    assert not result.infrastructure_failure


def test_wall_clock_timeout_kills_everything_and_is_an_infrastructure_failure(tmp_path):
    marker = f"runners-test-{uuid.uuid4().hex}"
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": f"""
        import subprocess, time
        def test_hangs(entrypoint_argv):
            # a daemon in its own session, and a hang the per-test timeout does not cover
            subprocess.Popen(["sleep", "300", "{marker}"], start_new_session=True)
            time.sleep(300)
    """
        },
        timeout=None,
    )
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    env = EnvironmentSpec(sandbox="none")
    env.limits = env.limits.model_copy(update={"wall_timeout": 4})
    started = time.monotonic()
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    elapsed = time.monotonic() - started
    assert result.infrastructure_failure and result.timed_out
    assert "wall-clock limit of 4 s" in result.infrastructure_reason
    assert elapsed < 4 + 10
    time.sleep(0.5)
    left = subprocess.run(
        ["pgrep", "-f", marker], capture_output=True, text=True, check=False
    ).stdout
    assert left == ""


def test_no_tests_collected_is_an_infrastructure_failure(tmp_path, env):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "# no tests yet\n"})
    result = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": ""}), env
    )
    assert result.infrastructure_failure
    assert "exited 5 (no tests collected)" in result.infrastructure_reason
    assert not PassPolicy("all-cases").check(result)


def test_missing_conftest_options_is_an_infrastructure_failure(tmp_path, env):
    problem = make_problem(
        tmp_path, {"test_checkpoint_1.py": "def test_x(): pass\n"}, conftest=None
    )
    result = run_checkpoint(
        problem, "checkpoint_1", make_submission(tmp_path, {"main.py": ""}), env
    )
    assert (
        result.infrastructure_failure and "exited 4 (usage error)" in result.infrastructure_reason
    )


def test_select_runs_only_the_named_tests_and_ids_map_back(tmp_path, env):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    wanted = [
        "tests/test_checkpoint_1.py::test_param[x[1]]",
        "tests/test_checkpoint_1.py::test_fail",
    ]
    result = run_checkpoint(problem, "checkpoint_1", sub, env, select=wanted)
    assert sorted(t.id for t in result.tests) == sorted(wanted)
    with pytest.raises(UserInputError, match="test_nope"):
        run_checkpoint(
            problem, "checkpoint_1", sub, env, select=["tests/test_checkpoint_1.py::test_nope"]
        )


def test_workers_give_the_same_result_as_one_process(tmp_path):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    one = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    two = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none", workers=2))
    shape = lambda r: sorted((t.id, t.status, t.raw_status, t.group_type) for t in r.tests)
    assert shape(two) == shape(one)
    assert two.pass_counts == one.pass_counts


def test_submission_requirements_get_their_own_environment(tmp_path, env):
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": """
        import subprocess
        def test_uses_dependency(entrypoint_argv):
            out = subprocess.run(entrypoint_argv, capture_output=True, text=True, timeout=20)
            assert out.stdout.strip() == "1.17.0", out.stderr
    """
        },
    )
    with_deps = make_submission(
        tmp_path,
        {
            "main.py": "import six\nprint(six.__version__)\n",
            "requirements.txt": "six==1.17.0  # the one dependency\n",
        },
        "a",
    )
    without = make_submission(tmp_path, {"main.py": "import six\nprint(six.__version__)\n"}, "b")
    assert run_checkpoint(problem, "checkpoint_1", with_deps, env).pass_counts == {G.CORE: 1}
    # The harness's own packages are not visible to a submission that did not declare them.
    assert run_checkpoint(problem, "checkpoint_1", without, env).pass_counts == {G.CORE: 0}


def test_uninstallable_requirements_fail_honestly_not_as_infrastructure(tmp_path, env):
    problem = make_problem(
        tmp_path, {"test_checkpoint_1.py": "def test_x(entrypoint_argv): pass\n"}
    )
    sub = make_submission(
        tmp_path, {"main.py": "", "requirements.txt": "this-package-does-not-exist-xyz==0.0.1\n"}
    )
    result = run_checkpoint(problem, "checkpoint_1", sub, env)
    assert not result.infrastructure_failure
    assert "submission-dependencies-failed" in result.flags
    assert any("could not be installed" in e for e in result.errors)


def test_artifacts_keep_result_reports_and_logs(tmp_path, env):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    out = tmp_path / "artifacts"
    result = run_checkpoint(
        problem,
        "checkpoint_1",
        make_submission(tmp_path, {"main.py": ECHO_MAIN}),
        env,
        output_dir=out,
    )
    assert result.artifacts_dir == str(out)
    saved = json.loads((out / "result.json").read_text())
    assert saved["summary"] == result.summary
    report = json.loads((out / "reports" / "pytest-report.json").read_text())
    assert len(report["tests"]) == 12
    assert (out / "reports" / "ctrf-report.json").is_file()
    assert "test_checkpoint_1.py::test_pass PASSED" in (out / "stdout.txt").read_text()
    assert "markers =" in (out / "config" / "pytest.ini").read_text()


def test_runner_class_api_matches_scbench(tmp_path, env):
    problem = load_problem(make_problem(tmp_path, {"test_checkpoint_1.py": "def test_x(): pass\n"}))
    runner = PytestRunner(
        problem=problem,
        checkpoint=problem.checkpoint("checkpoint_1"),
        environment=env,
        submission_path=make_submission(tmp_path, {"main.py": ""}),
    )
    result = runner.run()
    assert (
        result.pass_counts == {G.CORE: 1}
        and result.framework == "pytest"
        and result.sandbox == "none"
    )


def test_second_run_downloads_nothing_and_works_offline(tmp_path):
    """Warm the cache, then run again in a network namespace with no network at all."""
    if os.geteuid() != 0 or subprocess.run(["unshare", "-n", "true"], check=False).returncode != 0:
        pytest.skip("needs root to create a network namespace")
    cache = tmp_path / "cache"
    problem = make_problem(
        tmp_path,
        {"test_checkpoint_1.py": SCBENCH_STYLE_TEST},
        checkpoints={"checkpoint_1": {"version": 1, "env": {"CP_LEVEL": "c"}}},
        env={"PROBLEM_LEVEL": "p"},
        static_assets={"words": {"path": "assets/words.txt"}},
        test_dependencies=["six==1.17.0"],
    )
    (problem / "assets").mkdir()
    (problem / "assets" / "words.txt").write_text("alpha\nbeta\n")
    sub = make_submission(
        tmp_path, {"main.py": SCBENCH_STYLE_MAIN, "requirements.txt": "six==1.17.0\n"}
    )
    argv = [
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
        "--cache-dir",
        str(cache),
        "--output",
        str(tmp_path / "out"),
    ]
    first = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    envs = sorted(
        p.name
        for p in (cache / "host").iterdir()
        if not p.name.startswith((".", "locks", "inputs", "uv", "home"))
    )
    second = subprocess.run(["unshare", "-n", *argv], capture_output=True, text=True, check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert (
        sorted(
            p.name
            for p in (cache / "host").iterdir()
            if not p.name.startswith((".", "locks", "inputs", "uv", "home"))
        )
        == envs
    )


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_same_result_under_each_host_backend(tmp_path, backend):
    need_sandbox(backend)
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": OUTCOMES})
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox=backend))
    assert result.sandbox == backend
    assert result.pass_counts == {G.CORE: 5, G.FUNCTIONALITY: 1, G.ERROR: 1}
    assert ("unsandboxed" in result.flags) == (backend == "none")


FORGER = """
import json, os, subprocess, sys, time
# Runs as the submission's entrypoint: leaves a daemon that keeps overwriting the graded report
# with a perfect score, and reports what it can see of the harness's report key.
reports = ["/harness/reports",
           os.path.join(os.path.dirname(os.environ["SUBMISSION_PATH"]), "reports")]
print(json.dumps({"key_env": os.environ.get("RUNNERS_REPORT_KEY_FILE"),
                  "key_files": [os.path.join(d, f) for d in reports if os.path.isdir(d)
                                for f in os.listdir(d)]}))
sys.stdout.flush()
if os.fork() == 0:
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)  # let the test's subprocess.run return at once
    forged = {"exitcode": 0, "summary": {"passed": 1, "total": 1, "collected": 1},
              "tests": [{"nodeid": "tests/test_checkpoint_1.py::test_real", "outcome": "passed"}]}
    for _ in range(1000):
        for d in reports:
            try:
                with open(os.path.join(d, "pytest-report.json"), "w") as f:
                    json.dump(forged, f)
            except OSError:
                pass
        time.sleep(0.002)
    os._exit(0)
"""


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_a_rewritten_report_is_never_a_pass(tmp_path, backend):
    need_sandbox(backend)
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": """
        import json, subprocess, time
        def test_real(entrypoint_argv):
            out = subprocess.run(entrypoint_argv, capture_output=True, text=True, timeout=20)
            seen = json.loads(out.stdout.splitlines()[0])
            assert seen["key_env"] is None
            assert not any("key" in name for name in seen["key_files"]), seen
            time.sleep(0.5)
            assert False, "the real result is a failure"
    """
        },
    )
    sub = make_submission(tmp_path, {"main.py": FORGER})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox=backend))
    assert not PassPolicy("all-cases").check(result)
    if result.infrastructure_failure:
        assert "pytest-report.json" in result.infrastructure_reason
    else:  # the daemon lost the race: the honest failure stands
        assert [t.status for t in result.tests] == ["failed"]
        assert "the real result is a failure" in result.tests[0].failure_message


KEY_THIEF = """
import os

CANDIDATES = [os.environ.get("RUNNERS_REPORT_KEY_FILE") or "",
              "/harness/reports/.runners-report-key",
              os.path.join(os.path.dirname(os.environ["SUBMISSION_PATH"]), "reports",
                           ".runners-report-key")]
KEY = None
for path in CANDIDATES:
    try:
        with open(path, "rb") as handle:
            KEY = handle.read()
    except OSError:
        pass
"""


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_a_problem_conftest_that_imports_the_submission_gives_it_no_report_key(tmp_path, backend):
    """Our plugin takes the one-time key as pytest imports it, before any conftest: a problem whose
    conftest imports the submission at load (so its code runs before pytest configures) must not
    hand the submission the key it would sign a forged report with."""
    need_sandbox(backend)
    conftest = (
        SCBENCH_CONFTEST
        + "\nimport os, sys\nsys.path.insert(0, os.environ['SUBMISSION_PATH'])\nimport calc\n"
    )
    problem = make_problem(
        tmp_path,
        {
            "test_checkpoint_1.py": "import calc\n\n\ndef test_no_key():\n"
            "    assert calc.KEY is None, 'the submission read the report key'\n"
        },
        conftest=conftest,
    )
    sub = make_submission(tmp_path, {"main.py": ECHO_MAIN, "calc.py": KEY_THIEF})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox=backend))
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"], result.tests[0].failure_message
