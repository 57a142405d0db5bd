"""The submission's Python: the user's `--python`, else the problem's `python:`, else the harness's.

Real interpreters (this machine's pyenv / uv-managed / system builds) and real sandboxes: the
hidden test checks that the submission it runs, and the tests themselves, run on the version asked
for. Docker uses `runners-python:3.12`, built from the local base with a host 3.12 copied in
(scripts/ci-docker.sh builds it in CI).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import make_problem, make_submission, need, need_sandbox

from runners import EnvironmentSpec, run_checkpoint
from runners.model.errors import ConfigError, UserInputError
from runners.model.problem_loader import load_problem
from runners.toolchains.which_python import PythonRequest, find_host_python, parse_requirement

ROOT = Path(__file__).resolve().parents[2]
MAIN = "import sys\nprint('%d.%d' % sys.version_info[:2])\n"


def version_test(expected: str) -> dict[str, str]:
    return {
        "test_checkpoint_1.py": f"""
        import subprocess, sys
        def test_submission_runs_on_{expected.replace(".", "_")}(entrypoint_argv):
            out = subprocess.run(
                entrypoint_argv, capture_output=True, text=True, check=True
            ).stdout.strip()
            assert out == "%d.%d" % sys.version_info[:2]   # the tests run on the same Python
            assert out == "{expected}"
    """
    }


def need_host_python(version: str) -> str:
    try:
        return find_host_python(PythonRequest(version, "test"))
    except UserInputError as exc:
        need(False, f"no host Python {version}: {exc}")
        raise


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "250"},
        check=False,
    )


# ---- requests and their errors -------------------------------------------------------------------


def test_a_version_means_that_minor_series_and_a_range_is_pep_440():
    assert str(parse_requirement("3.12")) == "==3.12.*"
    assert str(parse_requirement("3.12.1")) == "==3.12.1"
    assert parse_requirement(">=3.12,<3.14").contains("3.13.0")
    for bad in ("3.x", "python3", ">=three"):
        with pytest.raises(ValueError, match="expected a Python version"):
            parse_requirement(bad)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3.1, 'expected a quoted version, e.g. python: "3.12"'),  # `python: 3.10` in YAML
        ("3.x", "expected a Python version (e.g. 3.12) or a version range"),
        ("/usr/bin/python3", "not a path: the interpreter is the user's choice"),
    ],
)
def test_a_bad_python_field_names_the_file_and_field(tmp_path, value, message):
    problem = make_problem(tmp_path, version_test("3.12"), python=value)
    with pytest.raises(ConfigError) as info:
        load_problem(problem)
    assert "config.yaml" in str(info.value) and "field `python`" in str(info.value)
    assert message in str(info.value)


def test_bad_option_and_unmet_requirement_exit_2_naming_their_source(tmp_path):
    problem = make_problem(tmp_path, version_test("3.12"), python=">=3.99")
    sub = make_submission(tmp_path, {"main.py": MAIN})
    bad = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--python",
        "3.x",
    )
    assert bad.returncode == 2 and "option --python: expected a Python version" in bad.stderr
    assert "Traceback" not in bad.stderr
    unmet = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_1",
        "-s",
        str(sub),
        "--sandbox",
        "none",
        "--output",
        str(tmp_path / "out"),
    )
    assert unmet.returncode == 2, unmet.stdout + unmet.stderr
    text = " ".join(unmet.stderr.split())
    assert (
        f"{problem / 'config.yaml'}: field `python`: no Python interpreter here matches >=3.99"
        in text
    )
    assert "(found: " in text and "3.11" in text  # what there is, never a silent fallback
    assert "Traceback" not in unmet.stderr


# ---- bubblewrap: a host interpreter, mounted read-only -------------------------------------------


def test_bubblewrap_runs_the_problems_python_and_the_user_overrides_it(tmp_path):
    need_sandbox("bubblewrap")
    need_host_python("3.12")
    need_host_python("3.13")
    sub = make_submission(tmp_path, {"main.py": MAIN})
    wants_312 = make_problem(tmp_path / "a", version_test("3.12"), python="3.12")
    result = run_checkpoint(wants_312, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"], result.tests[0].failure_message
    assert result.python is not None and result.python.startswith("3.12."), result.python

    # --python wins over the problem's requirement
    expects_313 = make_problem(tmp_path / "b", version_test("3.13"), python="3.12")
    result = run_checkpoint(
        expects_313, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap", python="3.13")
    )
    assert [t.status for t in result.tests] == ["passed"], result.infrastructure_reason
    assert result.python is not None and result.python.startswith("3.13."), result.python


# 3.12 syntax (PEP 695), as SCBench's reference solutions use: a SyntaxError on 3.11.
MAIN_312 = "import sys\ntype Pair = tuple[int, int]\nprint('%d.%d' % sys.version_info[:2])\n"


def test_a_pytest_problem_naming_no_python_prefers_scbench_s_312_and_one_naming_it_wins(tmp_path):
    need_sandbox("bubblewrap")
    need_host_python("3.12")
    need_host_python("3.11")
    sub = make_submission(tmp_path, {"main.py": MAIN_312})
    scbench = make_problem(
        tmp_path / "a", version_test("3.12")
    )  # no `python`, as SCBench's problems
    result = run_checkpoint(scbench, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"], result.tests[0].failure_message
    assert result.python is not None and result.python.startswith("3.12."), result.python

    plain = make_submission(tmp_path, {"main.py": MAIN}, name="plain")
    declared = make_problem(tmp_path / "b", version_test("3.11"), python="3.11")
    result = run_checkpoint(declared, "checkpoint_1", plain, EnvironmentSpec(sandbox="bubblewrap"))
    assert [t.status for t in result.tests] == ["passed"], result.infrastructure_reason
    assert result.python is not None and result.python.startswith("3.11."), result.python


def test_batch_and_the_promptfoo_provider_pass_python_through(tmp_path):
    need_sandbox("bubblewrap")
    need_host_python("3.13")
    problems = tmp_path / "problems"
    make_problem(problems, version_test("3.13"), name="demo")  # no requirement: the option decides
    make_submission(tmp_path / "subs" / "alpha" / "demo", {"main.py": MAIN}, name="checkpoint_1")
    done = cli(
        "batch",
        "--problems",
        str(problems),
        "--submissions",
        str(tmp_path / "subs"),
        "--sandbox",
        "bubblewrap",
        "--python",
        "3.13",
        "--output",
        str(tmp_path / "batch"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    row = json.loads((tmp_path / "batch" / "results.jsonl").read_text().splitlines()[0])
    assert row["status"] == "passed", row

    spec = importlib.util.spec_from_file_location(
        "pf_test_runner", ROOT / "providers" / "test_runner.py"
    )
    provider = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(provider)
    config = {
        "agent": "alpha",
        "submissions": str(tmp_path / "subs" / "alpha"),
        "problems": str(problems),
        "sandbox": "bubblewrap",
        "output": str(tmp_path / "pf"),
        "python": "3.13",
    }
    context = {"vars": {"problem": "demo", "checkpoint": "checkpoint_1", "__evalId": "eval-py"}}
    response = provider.call_api("x", {"config": config}, context)
    assert response["metadata"]["passed"] is True, response.get("output") or response
    response = provider.call_api("x", {"config": {**config, "python": 3.1}}, context)
    assert "provider config: field `python`: expected a quoted version" in response["error"]


# ---- docker: one image per version ---------------------------------------------------------------


@pytest.fixture(scope="module")
def python_312_image(docker_images):
    from runners.images import LOCAL_BASE, docker_client, ensure_images, image_exists

    base = LOCAL_BASE if image_exists(docker_client(), LOCAL_BASE) else None
    need(base is not None or os.environ.get("CI") != "true", "the local base image is missing")
    try:
        return ensure_images((), base_image=base, pythons=["3.12"])[
            "python 3.12"
        ]  # no-op when current
    except UserInputError as exc:
        need(False, f"cannot build runners-python:3.12 here: {exc}")
        raise


def test_docker_picks_the_image_of_the_requested_version(tmp_path, python_312_image):
    assert python_312_image == "runners-python:3.12"
    sub = make_submission(tmp_path, {"main.py": MAIN})
    problem = make_problem(tmp_path, version_test("3.12"), python=">=3.12,<3.13")
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="docker"))
    assert result.sandbox == "docker"
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"], result.tests[0].failure_message
    assert result.python is not None and result.python.startswith("3.12."), result.python

    with pytest.raises(UserInputError) as info:
        run_checkpoint(
            problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="docker", python="3.99")
        )
    message = str(info.value)
    assert message.startswith("option --python: no Docker image has a Python matching ==3.99.*")
    assert "runners-python:latest has 3.11" in message and "--python X.Y" in message


def test_docker_runs_a_pytest_problem_naming_no_python_on_the_312_image(tmp_path, python_312_image):
    sub = make_submission(tmp_path, {"main.py": MAIN_312})
    problem = make_problem(tmp_path, version_test("3.12"))
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="docker"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert [t.status for t in result.tests] == ["passed"], result.tests[0].failure_message
    assert result.python is not None and result.python.startswith("3.12."), result.python


def test_the_example_gives_its_expected_counts_on_312_too(python_312_image):
    """SCBench grades on 3.12: the example problem's counts hold there, sandboxed both ways."""
    need_sandbox("bubblewrap")
    need_host_python("3.12")
    expected = yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text())["inventory_cli"][
        "beta"
    ]["checkpoint_2"]
    submission = ROOT / "examples" / "submissions" / "beta" / "inventory_cli" / "checkpoint_2"
    for backend in ("bubblewrap", "docker"):
        result = run_checkpoint(
            ROOT / "problems" / "inventory_cli",
            "checkpoint_2",
            submission,
            EnvironmentSpec(sandbox=backend, python="3.12"),
        )
        assert not result.infrastructure_failure, result.infrastructure_reason
        counts = {
            g.value: [result.pass_counts[g], total] for g, total in result.total_counts.items()
        }
        assert counts == expected, backend
