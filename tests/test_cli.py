"""The command line: tables, exit codes 0/1/2/3, JSON output, and clear errors for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import make_problem, make_submission, need_sandbox

from runners import ExecutionResult
from runners import GroupType as G

MAIN = "import sys\nprint(' '.join(sys.argv[1:]))\n"
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
            out = subprocess.run(
                entrypoint_argv + ["--upper", "a"], capture_output=True, text=True
            ).stdout
            assert out == "A\\n", "expected upper-case output"
        @pytest.mark.error
        def test_no_args(entrypoint_argv):
            assert subprocess.run(entrypoint_argv).returncode != 0
    """,
}


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**__import__("os").environ, "COLUMNS": "200"},
        check=False,
    )


@pytest.fixture
def problem(tmp_path):
    return make_problem(tmp_path, TESTS, checkpoints=2)


def test_met_policy_exits_0_and_prints_the_table(tmp_path, problem):
    sub = make_submission(tmp_path, {"main.py": MAIN})
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
        "--json",
        str(tmp_path / "r.json"),
    )
    assert out.returncode == 0, out.stderr
    assert "Core" in out.stdout and "policy all-cases: MET" in out.stdout
    result = ExecutionResult.model_validate_json((tmp_path / "r.json").read_text())
    assert result.pass_counts == {G.CORE: 1}
    assert (tmp_path / "o" / "result.json").is_file()


def test_unmet_policy_exits_1_and_lists_failures(tmp_path, problem):
    sub = make_submission(tmp_path, {"main.py": MAIN})
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o"),
    )
    assert out.returncode == 1, out.stderr
    assert "tests/test_checkpoint_2.py::test_upper" in out.stdout
    assert "expected upper-case output" in out.stdout
    assert "NOT MET" in out.stdout
    # The same result meets a laxer policy.
    lax = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o2"),
        "--pass-policy",
        "any-core-cases",
    )
    assert lax.returncode == 1  # Core of checkpoint_2 is test_upper, which fails
    lax = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o3"),
        "--pass-policy",
        "any-case",
    )
    assert lax.returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-c", "checkpoint_7"],
            "option --checkpoint: problem 'demo' has no checkpoint 'checkpoint_7'",
        ),
        (["-c", "checkpoint_1", "--pass-policy", "most"], "--pass-policy"),
        (["-c", "checkpoint_1", "--sandbox", "vm"], "--sandbox"),
        (["-c", "checkpoint_1", "--workers", "0"], "--workers"),
    ],
)
def test_bad_options_exit_2_without_traceback(tmp_path, problem, args, message):
    sub = make_submission(tmp_path, {"main.py": MAIN})
    out = cli("run", str(problem), "-s", str(sub), "--output", str(tmp_path / "o"), *args)
    assert out.returncode == 2
    assert message in out.stderr + out.stdout
    assert "Traceback" not in out.stderr


def test_bad_config_exits_2_naming_file_and_field(tmp_path, problem):
    (problem / "config.yaml").write_text((problem / "config.yaml").read_text() + "colour: blue\n")
    out = cli("run", str(problem), "-c", "checkpoint_1", "-s", str(tmp_path))
    assert out.returncode == 2
    assert "config.yaml" in out.stderr and "field `colour`: unknown key" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_submission_exits_2(tmp_path, problem):
    out = cli(
        "run", str(problem), "-c", "checkpoint_1", "-s", str(tmp_path / "nope"), "--sandbox", "none"
    )
    assert out.returncode == 2 and "is not a directory" in out.stderr


def test_infrastructure_failure_exits_3(tmp_path):
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "# nothing\n"})
    sub = make_submission(tmp_path, {"main.py": MAIN})
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
    )
    assert out.returncode == 3
    assert "Infrastructure failure" in out.stdout and "no tests collected" in out.stdout


# A conftest that registers --entrypoint but not --checkpoint: pytest stops with a usage error.
NO_CHECKPOINT_OPTION = """
def pytest_addoption(parser):
    parser.addoption("--entrypoint", action="store")
"""
UNRECOGNIZED = "error: unrecognized arguments: --checkpoint=checkpoint_1"


@pytest.mark.slow
def test_infrastructure_failure_shows_the_tools_own_words(tmp_path):
    """pytest's usage error is in the table and the JSON, not only in stderr.txt."""
    need_sandbox("bubblewrap")
    problem = make_problem(
        tmp_path,
        {"test_checkpoint_1.py": "def test_a():\n    pass\n"},
        conftest=NO_CHECKPOINT_OPTION,
    )
    sub = make_submission(tmp_path, {"main.py": MAIN})
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "bubblewrap",
        "--output",
        str(tmp_path / "o"),
        "--json",
        str(tmp_path / "r.json"),
    )
    assert out.returncode == 3, out.stderr
    assert UNRECOGNIZED in out.stdout and "ERROR: usage:" in out.stdout
    result = ExecutionResult.model_validate_json((tmp_path / "r.json").read_text())
    head, *cause = result.infrastructure_reason.splitlines()
    assert head.startswith("pytest exited 4 (usage error)")
    assert any(UNRECOGNIZED in line for line in cause) and len(cause) <= 10
    assert UNRECOGNIZED in result.summary


def test_evaluate_runs_every_checkpoint_and_prints_solve_results(tmp_path, problem):
    root = tmp_path / "agent"
    make_submission(root, {"main.py": MAIN}, "checkpoint_1")
    make_submission(
        root,
        {
            "main.py": "import sys\nif len(sys.argv) < 2: sys.exit(2)\n"
            "print(sys.argv[-1].upper() if sys.argv[1] == '--upper' else sys.argv[1])\n"
        },
        "checkpoint_2",
    )
    out = cli(
        "evaluate",
        str(problem),
        "-s",
        str(root),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "o"),
        "--json",
        str(tmp_path / "all.json"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "checkpoints solved: strict 2/2" in out.stdout and "SOLVED" in out.stdout
    assert (tmp_path / "o" / "checkpoint_1" / "result.json").is_file()
    assert (tmp_path / "o" / "checkpoint_2" / "result.json").is_file()


def test_evaluate_without_checkpoint_directories_is_bad_input(tmp_path, problem):
    out = cli("evaluate", str(problem), "-s", str(tmp_path), "--sandbox", "none")
    assert out.returncode == 2 and "checkpoint directories" in out.stderr


def test_console_script_is_installed():
    exe = Path(sys.executable).with_name("runners")
    assert exe.is_file()
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "evaluate" in out.stdout


def _evaluate_output(tmp_path: Path, columns: str | None) -> str:
    problem = make_problem(tmp_path, TESTS, name="inventory_ledger_cli", checkpoints=2)
    root = tmp_path / "agent"
    for checkpoint in ("checkpoint_1", "checkpoint_2"):
        make_submission(root, {"main.py": MAIN}, checkpoint)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "evaluate",
            str(problem),
            "-s",
            str(root),
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )  # stdout is a pipe, not a terminal
    assert out.returncode == 1, out.stdout + out.stderr
    return out.stdout


@pytest.mark.parametrize("columns", [None, "80", "40"])
def test_evaluate_keeps_every_name_whole_piped_or_narrow(tmp_path, columns):
    stdout = _evaluate_output(tmp_path, columns)
    assert "…" not in stdout
    for name in (
        "inventory_ledger_cli",
        "checkpoint_1",
        "checkpoint_2",
        "Core",
        "Error",
        "Functionality",
        "Regression",
        "Strict",
        "Isolated",
        "all-cases",
    ):
        assert name in stdout, f"{name!r} cut at COLUMNS={columns}:\n{stdout}"
    if columns:
        assert max(len(line) for line in stdout.splitlines()) <= int(columns)


@pytest.mark.slow
def test_run_keeps_test_ids_and_messages_on_a_narrow_terminal(tmp_path, problem):
    sub = make_submission(tmp_path, {"main.py": MAIN})
    env = {**os.environ, "COLUMNS": "50"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(problem),
            "-c",
            "checkpoint_2",
            "-s",
            str(sub),
            "--sandbox",
            "none",
            "--output",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 1, out.stderr
    assert "…" not in out.stdout
    unwrapped = "".join(line.rstrip() for line in out.stdout.splitlines())
    assert "tests/test_checkpoint_2.py::test_upper" in unwrapped
    assert "expected upper-case output" in out.stdout.replace("\n", " ").replace("  ", " ")


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--help"], 0), (["run", "/nonexistent", "-c", "checkpoint_1", "-s", "."], 2)],
)
def test_the_quick_exit_keeps_exit_hooks_output_and_code(tmp_path, args, code):
    """`python -m runners` skips the interpreter's teardown: what the process owes still happens."""
    marker = tmp_path / "hook-ran"
    script = (
        "import atexit, runpy, sys; "
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran')); "
        f"sys.argv = ['runners', *{args!r}]; runpy.run_module('runners', run_name='__main__')"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert out.returncode == code, out.stderr
    assert marker.read_text() == "ran"  # temporary directories, Ray, logging: all exit hooks
    assert (
        ("Usage: runners" in out.stdout)
        if code == 0
        else ("problem directory not found" in out.stderr)
    )


def test_the_runners_script_is_the_same_entry_point(tmp_path):
    """The console script (`uv run runners`) starts and ends like `python -m runners`."""
    script = Path(sys.executable).parent / "runners"
    assert script.is_file(), "the environment has no `runners` script: run scripts/setup.sh"
    assert "runners.entry" in script.read_text()
    for args, code in (
        (["--help"], 0),
        (["run", "/nonexistent", "-c", "checkpoint_1", "-s", "."], 2),
    ):
        out = subprocess.run(
            [str(script), *args], capture_output=True, text=True, cwd=tmp_path, check=False
        )
        assert out.returncode == code, out.stderr
        assert (
            ("Usage: runners" in out.stdout)
            if code == 0
            else ("problem directory not found" in out.stderr)
        )
