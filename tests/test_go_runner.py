"""Go problems end to end: the real go command, under bubblewrap, docker and none."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import make_problem, make_submission, need, need_sandbox

from runners import EnvironmentSpec, ExecutionResult, run_checkpoint

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "unit_conv"
EXPECTED = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text())["unit_conv"]
GO_MOD = "module hiddentests\n\ngo 1.19\n"
SUB_MOD = "module app\n\ngo 1.19\n"


def _need_go() -> None:
    need(shutil.which("go") is not None, "go is not installed (apt-get install golang-go)")


def _counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts[g], total] for g, total in result.total_counts.items()}


def _run(problem: Path, checkpoint: str, submission: Path, sandbox: str, **kw) -> ExecutionResult:
    return run_checkpoint(problem, checkpoint, submission, EnvironmentSpec(sandbox=sandbox), **kw)


@pytest.mark.parametrize(
    ("agent", "checkpoint"), [(a, c) for a, cps in EXPECTED.items() for c in cps]
)
def test_every_example_agent_gets_its_expected_counts(agent, checkpoint):
    _need_go()
    need_sandbox("bubblewrap")
    result = _run(
        PROBLEM,
        checkpoint,
        ROOT / "examples" / "submissions" / agent / "unit_conv" / checkpoint,
        "bubblewrap",
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert _counts(result) == EXPECTED[agent][checkpoint]
    assert result.flags == [] and result.framework == "go"


def test_same_tests_same_statuses_under_none_bubblewrap_and_docker():
    _need_go()
    for backend in ("bubblewrap", "docker"):
        need_sandbox(backend)
    submission = ROOT / "examples" / "submissions" / "beta" / "unit_conv" / "checkpoint_2"
    shapes = {}
    for backend in ("none", "bubblewrap", "docker"):
        result = _run(PROBLEM, "checkpoint_2", submission, backend)
        assert not result.infrastructure_failure, (backend, result.infrastructure_reason)
        assert result.sandbox == backend
        shapes[backend] = sorted((t.id, t.status, t.group_type.value) for t in result.tests)
    assert shapes["none"] == shapes["bubblewrap"] == shapes["docker"]
    assert (
        "tests/checkpoint_1_test.go::TestLengths/1.609344_km",
        "failed",
        "Regression",
    ) in shapes["none"]


# A hidden suite that shows what the program printed: its one test fails with the output.
PROBE_TEST = """package hiddentests

import ("os"; "os/exec"; "testing")

func TestProbe(t *testing.T) {
	out, err := exec.Command(os.Getenv("RUNNERS_ENTRYPOINT")).CombinedOutput()
	t.Fatalf("program said %q (err %v)", out, err)
}
"""


def _probe_problem(tmp_path: Path) -> Path:
    return make_problem(
        tmp_path,
        {"go.mod": GO_MOD, "checkpoint_1_test.go": PROBE_TEST},
        name="probe",
        conftest=None,
        framework="go",
        entry_file="main.go",
    )


@pytest.mark.parametrize("sandbox", ["bubblewrap", "docker"])
def test_the_submission_can_neither_read_the_key_nor_forge_the_report(tmp_path, sandbox):
    """The program runs inside the tests; it looks for the report key and writes a report that
    says everything passed. The key is gone before any test starts, and the signed report is
    the real one: the probe test fails as written."""
    _need_go()
    need_sandbox(sandbox)
    forged = json.dumps({"Action": "pass", "Package": "hiddentests", "Test": "TestProbe"})
    main = """package main

import ("fmt"; "os")

func main() {
	_, err := os.ReadFile("/harness/reports/.runners-report-key")
	fmt.Printf("key-env=%q key-file-error=%v\\n", os.Getenv("RUNNERS_REPORT_KEY_FILE"), err != nil)
	os.WriteFile("/harness/reports/go-report.json", []byte(`FORGED` + "\\n"), 0o644)
}
""".replace("FORGED", forged)
    sub = make_submission(tmp_path, {"go.mod": SUB_MOD, "main.go": main})
    result = _run(_probe_problem(tmp_path), "checkpoint_1", sub, sandbox)
    assert not result.infrastructure_failure, result.infrastructure_reason
    [test] = result.tests
    assert test.status == "failed"
    assert 'key-env=\\"\\" key-file-error=true' in test.failure_message


def test_a_submission_that_does_not_build_fails_its_tests_and_says_why(tmp_path):
    _need_go()
    need_sandbox("bubblewrap")
    sub = make_submission(
        tmp_path, {"go.mod": SUB_MOD, "main.go": "package main\n\nfunc main() {\n"}
    )
    result = _run(_probe_problem(tmp_path), "checkpoint_1", sub, "bubblewrap")
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["failed"]
    assert "main.go:4:1: syntax error" in result.stderr  # the compiler's own words


def test_select_runs_one_subtest_and_a_wrong_id_is_refused_before_the_run(tmp_path):
    _need_go()
    need_sandbox("bubblewrap")
    submission = ROOT / "examples" / "submissions" / "alpha" / "unit_conv" / "checkpoint_1"
    wanted = "tests/checkpoint_1_test.go::TestError_Input/usage"
    result = run_checkpoint(
        PROBLEM, "checkpoint_1", submission, EnvironmentSpec(sandbox="bubblewrap"), select=[wanted]
    )
    assert [(t.id, t.status, t.group_type.value) for t in result.tests] == [
        (wanted, "passed", "Error")
    ]
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "runners",
            "run",
            str(PROBLEM),
            "-c",
            "checkpoint_1",
            "-s",
            str(submission),
            "--sandbox",
            "bubblewrap",
            "--select",
            "tests/checkpoint_1_test.go::TestNope",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 2, cli.stdout + cli.stderr
    assert "no test function TestNope in tests/checkpoint_1_test.go" in cli.stdout + cli.stderr


def test_tests_without_their_go_mod_are_a_config_error_naming_the_file(tmp_path):
    _need_go()
    problem = make_problem(
        tmp_path,
        {"checkpoint_1_test.go": PROBE_TEST},
        name="nomod",
        conftest=None,
        framework="go",
        entry_file="main.go",
    )
    sub = make_submission(tmp_path, {"main.go": "package main\n\nfunc main() {}\n"})
    cli = subprocess.run(
        [
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
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 2, cli.stdout + cli.stderr
    assert "tests/go.mod" in cli.stdout + cli.stderr and "Traceback" not in cli.stderr
