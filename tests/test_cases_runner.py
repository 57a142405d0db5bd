"""Case-based problems end to end: the example CLI problem's agents, the same grade on every
backend, the outputs (JSON, JUnit, CTRF) of a case run, and bad problems refused with a message
naming the file and the case."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need_docker_image, need_sandbox, write_files

from runners import EnvironmentSpec, ExecutionResult, run_checkpoint
from runners.model.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text())
CLI_PROBLEM = "csv_stats"


def counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts[g], total] for g, total in result.total_counts.items()}


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "COLUMNS": "200", "HOME": str(Path.home())},
    )


CASE_PROBLEMS = ("csv_stats", "notes_api", "todo_web")  # one per adapter: cli, api, browser
CELLS = [(p, a, c) for p in CASE_PROBLEMS for a, cps in EXPECTED[p].items() for c in cps]


@pytest.mark.parametrize(("problem", "agent", "checkpoint"), CELLS)
def test_every_example_agent_of_the_case_problems_gets_its_expected_counts(
    tmp_path, problem, agent, checkpoint
):
    need_sandbox("bubblewrap")
    submission = ROOT / "examples" / "submissions" / agent / problem / checkpoint
    out = cli(
        "run",
        str(ROOT / "problems" / problem),
        "-c",
        checkpoint,
        "-s",
        str(submission),
        "--sandbox",
        "bubblewrap",
        "--json",
        str(tmp_path / "r.json"),
        "--output",
        str(tmp_path / "out"),
    )
    result = ExecutionResult.load(tmp_path / "r.json")
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert counts(result) == EXPECTED[problem][agent][checkpoint]
    all_passed = all(p == t for p, t in EXPECTED[problem][agent][checkpoint].values())
    assert out.returncode == (0 if all_passed else 1), out.stdout + out.stderr
    assert result.framework == "cases" and result.flags == []
    for test in result.tests:
        assert test.id.count("/") == 1 and test.score is not None and test.attributes
        assert (test.score == 1.0) == test.passed and (test.diff is None) == test.passed


def test_a_failing_case_shows_its_diff_and_weights_in_every_output(tmp_path):
    need_sandbox("bubblewrap")
    submission = ROOT / "examples" / "submissions" / "beta" / CLI_PROBLEM / "checkpoint_2"
    out = cli(
        "run",
        str(ROOT / "problems" / CLI_PROBLEM),
        "-c",
        "checkpoint_2",
        "-s",
        str(submission),
        "--sandbox",
        "bubblewrap",
        "--json",
        str(tmp_path / "r.json"),
        "--junit-xml",
        str(tmp_path / "j.xml"),
        "--ctrf",
        str(tmp_path / "c.json"),
        "--output",
        str(tmp_path / "out"),
    )
    assert out.returncode == 1
    # the table: the case, its group, and the diff line by line
    assert "checkpoint_1_functionality/skips_non_numbers" in out.stdout
    assert "$.count: expected 2, got 3" in out.stdout and "$.min: expected 4, got 0" in out.stdout
    result = ExecutionResult.load(tmp_path / "r.json")
    assert result.schema_version == 4
    case = next(t for t in result.tests if t.id == "checkpoint_1_functionality/skips_non_numbers")
    assert (
        case.group_type.value == "Regression"
        and case.checkpoint == "checkpoint_1"
        and case.status == "failed"
    )
    attributes = {a.name: a for a in case.attributes or []}
    assert attributes["output"].weight == 2 and attributes["output"].correct is False
    assert attributes["output"].expected == {
        "column": "qty",
        "count": 2,
        "skipped": 2,
        "min": 4,
        "max": 6,
        "mean": 5,
    }
    assert attributes["status_code"].correct is True and case.score == pytest.approx(1 / 3)
    assert "$.skipped: expected 2, got 1" in (case.diff or "")
    assert "$.count: expected 2, got 3" in (tmp_path / "j.xml").read_text()
    ctrf = json.loads((tmp_path / "c.json").read_text())
    [row] = [t for t in ctrf["results"]["tests"] if t["name"].endswith("skips_non_numbers")]
    assert row["status"] == "failed" and "$.count: expected 2, got 3" in row["message"] + row.get(
        "trace", ""
    )
    # read back: the JSON round-trips
    assert ExecutionResult.model_validate_json(result.model_dump_json()) == result


@pytest.mark.parametrize(
    ("problem", "agent"), [("csv_stats", "gamma"), ("notes_api", "beta"), ("todo_web", "beta")]
)
def test_same_case_results_under_none_bubblewrap_and_docker(problem, agent):
    for backend in ("bubblewrap", "docker"):
        need_sandbox(backend)
    need_docker_image("browser" if problem == "todo_web" else "python")
    submission = ROOT / "examples" / "submissions" / agent / problem / "checkpoint_2"
    results = {
        b: run_checkpoint(
            ROOT / "problems" / problem, "checkpoint_2", submission, EnvironmentSpec(sandbox=b)
        )
        for b in ("none", "bubblewrap", "docker")
    }
    shapes = {
        b: sorted((t.id, t.status, t.score, t.group_type.value) for t in r.tests)
        for b, r in results.items()
    }
    assert counts(results["none"]) == EXPECTED[problem][agent]["checkpoint_2"]
    assert shapes["none"] == shapes["bubblewrap"] == shapes["docker"]
    assert {r.sandbox for r in results.values()} == {"none", "bubblewrap", "docker"}


# ---- bad problems --------------------------------------------------------------------------------


def _case_problem(root: Path, files: dict[str, str], adapter: dict | None = None, **config) -> Path:
    problem = root / "bad_cases"
    data = {
        "name": "bad_cases",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "entry_file": "main",
        "adapter": adapter or {"type": "cli"},
        "timeout": 10,
        "checkpoints": {"checkpoint_1": {"version": 1, "groups": {"core": {"type": "Core"}}}},
        **config,
    }
    write_files(problem, {"config.yaml": yaml.safe_dump(data), **files})
    return problem


ECHO = {"main.py": "import sys\nprint(' '.join(sys.argv[1:]))\n"}
GOOD_CASE = 'case: {args: [hi]}\nexpected: {output: "hi\\n"}\n'


def test_a_malformed_case_file_is_refused_before_any_sandbox(tmp_path):
    problem = _case_problem(
        tmp_path,
        {
            "checkpoint_1/core/ok.yaml": GOOD_CASE,
            "checkpoint_1/core/broken.yaml": "case: {args: [hi]}\nexpected: {outptu: x}\n",
        },
    )
    write_files(tmp_path / "sub", ECHO)
    out = cli(
        "run", str(problem), "-c", "checkpoint_1", "-s", str(tmp_path / "sub"), "--sandbox", "none"
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "checkpoint_1/core/broken.yaml" in out.stderr and "case 'broken'" in out.stderr
    assert "expected.outptu: not an attribute of a CLIResult (allowed:" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "runs").exists()


def test_an_unknown_adapter_field_names_the_field(tmp_path):
    problem = _case_problem(
        tmp_path,
        {"checkpoint_1/core/ok.yaml": GOOD_CASE},
        adapter={"type": "api", "health_pth": "/h"},
    )
    with pytest.raises(ConfigError) as caught:
        run_checkpoint(problem, "checkpoint_1", tmp_path, EnvironmentSpec(sandbox="none"))
    assert (
        "config.yaml" in str(caught.value)
        and "health_pth" in str(caught.value)
        and "unknown key" in str(caught.value)
    )
    problem = _case_problem(tmp_path / "2", {}, adapter={"type": "telnet"})
    with pytest.raises(ConfigError, match="unknown adapter type"):
        run_checkpoint(problem, "checkpoint_1", tmp_path, EnvironmentSpec(sandbox="none"))


def test_a_loader_that_raises_is_bad_input_naming_the_script_and_case(tmp_path):
    loader = (
        "from runners.cases.loading import CaseFileLoader\n\n"
        "class Loader(CaseFileLoader):\n"
        "    def __call__(self, group, store):\n"
        "        for n, item in enumerate(super().__call__(group, store)):\n"
        "            if n == 1:\n"
        "                raise KeyError('no such fixture')\n"
        "            yield item\n"
    )
    problem = _case_problem(
        tmp_path,
        {
            "loader.py": loader,
            "checkpoint_1/core/a.yaml": GOOD_CASE,
            "checkpoint_1/core/b.yaml": GOOD_CASE,
        },
    )
    write_files(tmp_path / "sub", ECHO)
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(tmp_path / "sub"),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "out"),
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert (
        "loader.py" in out.stderr
        and "after case 'a'" in out.stderr
        and "KeyError: 'no such fixture'" in out.stderr
    )
    assert (
        str(problem) in out.stderr and "cases-" not in out.stderr
    )  # the user's path, not the vault's
    assert (tmp_path / "out").is_dir()  # the run's output is kept all the same


def test_a_verifier_that_raises_on_one_case_makes_that_case_an_error(tmp_path):
    verifier = (
        "from runners.cases.verification import BuiltinVerifier\n\n"
        "class Verifier(BuiltinVerifier):\n"
        "    def __call__(self, group_name, case_name, actual, expected):\n"
        "        if case_name == 'b':\n"
        "            raise ValueError('cannot judge ' + case_name)\n"
        "        return super().__call__(group_name, case_name, actual, expected)\n"
    )
    problem = _case_problem(
        tmp_path,
        {
            "verifier.py": verifier,
            "checkpoint_1/core/a.yaml": GOOD_CASE,
            "checkpoint_1/core/b.yaml": GOOD_CASE,
        },
    )
    write_files(tmp_path / "sub", ECHO)
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    statuses = {t.id: t.status for t in result.tests}
    assert statuses == {"core/a": "passed", "core/b": "error"}
    message = next(t.failure_message for t in result.tests if t.id == "core/b")
    assert (
        "verifier.py raised on case core/b" in message and "ValueError: cannot judge b" in message
    )


def test_a_case_s_timeout_kills_it_and_the_run_goes_on(tmp_path):
    slow = 'case: {args: [sleep], timeout: 1}\nexpected: {output: "done\\n"}\n'
    problem = _case_problem(
        tmp_path,
        {"checkpoint_1/core/a_slow.yaml": slow, "checkpoint_1/core/b_fast.yaml": GOOD_CASE},
    )
    write_files(
        tmp_path / "sub",
        {
            "main.py": "import sys, time\nif sys.argv[1:] == ['sleep']:\n    time.sleep(60)\n"
            "print(' '.join(sys.argv[1:]))\n"
        },
    )
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert {t.id: t.status for t in result.tests} == {
        "core/a_slow": "failed",
        "core/b_fast": "passed",
    }
    slow_case = next(t for t in result.tests if t.id == "core/a_slow")
    timed_out = next(a for a in slow_case.attributes or [] if a.name == "timed_out")
    assert timed_out.actual is True and "killed after the case's timeout of 1 s" in (
        slow_case.stderr or ""
    )


@pytest.mark.slow
def test_a_group_timeout_lengthens_the_checkpoint_s_but_never_shortens_it(tmp_path):
    """SCBench ignores group timeouts; its problems set them below the checkpoint's (10 s against
    30 s), so a group's shorter timeout must not kill a case the checkpoint gives time for."""
    naps = {
        f"checkpoint_1/{g}/nap.yaml": 'case: {args: [nap]}\nexpected: {output: "nap\\n"}\n'
        for g in ("short", "long")
    }
    checkpoint = {
        "version": 1,
        "timeout": 3,
        "groups": {
            "short": {"type": "Core", "timeout": 1},
            "long": {"type": "Core", "timeout": 0.5},
        },
    }
    problem = _case_problem(tmp_path, naps, checkpoints={"checkpoint_1": checkpoint})
    write_files(
        tmp_path / "sub",
        {"main.py": "import sys, time\ntime.sleep(1.5)\nprint(' '.join(sys.argv[1:]))\n"},
    )
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert {t.id: t.status for t in result.tests} == {"short/nap": "passed", "long/nap": "passed"}
    checkpoint.update(timeout=1, groups={"long": {"type": "Core", "timeout": 3}})
    problem = _case_problem(
        tmp_path,
        {"checkpoint_1/long/nap.yaml": naps["checkpoint_1/long/nap.yaml"]},
        checkpoints={"checkpoint_1": checkpoint},
    )
    result = run_checkpoint(
        problem, "checkpoint_1", tmp_path / "sub", EnvironmentSpec(sandbox="none")
    )
    assert {t.id: t.status for t in result.tests} == {"long/nap": "passed"}


def test_select_runs_only_the_named_cases_and_refuses_unknown_ids(tmp_path):
    problem = _case_problem(
        tmp_path, {"checkpoint_1/core/a.yaml": GOOD_CASE, "checkpoint_1/core/b.yaml": GOOD_CASE}
    )
    write_files(tmp_path / "sub", ECHO)
    result = run_checkpoint(
        problem,
        "checkpoint_1",
        tmp_path / "sub",
        EnvironmentSpec(sandbox="none"),
        select=["core/b"],
    )
    assert [t.id for t in result.tests] == ["core/b"]
    out = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(tmp_path / "sub"),
        "--sandbox",
        "none",
        "--select",
        "core/zz",
    )
    assert out.returncode == 2 and "no case 'core/zz'" in out.stderr, out.stdout + out.stderr
