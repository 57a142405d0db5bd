"""Case-based problems written the way an outside user writes them (tests/fixtures/outside_cases):
two in SCBench's case format with their own loader.py/verifier.py (`tally`, a CLI with tracked
files, stdin and a stateful group; `shelf_api`, an API whose requests refer to earlier responses),
one in runners' own case format (`greet`); submissions in Python, JavaScript, Go and shell.

The grades of the partly right submissions are SCBench's scoring rules applied by hand (weights
in the problems' verifiers); bench/scbench_compare.py runs SCBench's own evaluator on the same
submissions (docs/CASES.md records the comparison)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import need, need_docker_image, need_sandbox

from runners import EnvironmentSpec, ExecutionResult, run_checkpoint

OUTSIDE = Path(__file__).resolve().parent / "fixtures" / "outside_cases"
sys.path.insert(0, str(OUTSIDE))
import partial  # the partly right submissions, made from the references

SCBENCH_FORMAT = ("tally", "shelf_api")
REFERENCE = {p: OUTSIDE / p / "checkpoint_2" / "solution" for p in SCBENCH_FORMAT}


def grades(result: ExecutionResult) -> dict[str, tuple[str, float]]:
    assert not result.infrastructure_failure, result.infrastructure_reason
    return {t.id: (t.status, round(t.score or 0, 4)) for t in result.tests if not t.passed}


def all_passed(result: ExecutionResult) -> None:
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.tests and all(t.passed and t.score == 1.0 for t in result.tests), [
        (t.id, t.failure_message) for t in result.tests if not t.passed
    ]
    assert result.errors == [] and result.flags in ([], ["unsandboxed"])


@pytest.mark.parametrize("problem", SCBENCH_FORMAT)
def test_outside_scbench_problems_give_their_reference_full_marks_on_every_backend(problem):
    for backend in ("bubblewrap", "docker"):
        need_sandbox(backend)
    need_docker_image("python")
    all_passed(
        run_checkpoint(
            OUTSIDE / problem,
            "checkpoint_1",
            REFERENCE[problem],
            EnvironmentSpec(sandbox="bubblewrap"),
        )
    )
    results = {
        b: run_checkpoint(
            OUTSIDE / problem, "checkpoint_2", REFERENCE[problem], EnvironmentSpec(sandbox=b)
        )
        for b in ("none", "bubblewrap", "docker")
    }
    for result in results.values():
        all_passed(result)
    ids = {b: sorted(t.id for t in r.tests) for b, r in results.items()}
    assert ids["none"] == ids["bubblewrap"] == ids["docker"]


def test_tally_partly_right_gets_scbench_s_grade(tmp_path):
    """Weights of tally's verifier: status 1, output 2, a tracked file 1.5, stderr 0.5. A case
    passes only when every verified attribute is right."""
    need_sandbox("bubblewrap")
    submission = partial.make("tally_partial", tmp_path / "tally")
    result = run_checkpoint(
        OUTSIDE / "tally", "checkpoint_2", submission, EnvironmentSpec(sandbox="bubblewrap")
    )
    csv_without_header = ("failed", round(1 / 3, 4))  # status right, output wrong
    deduplicated_list = (
        "failed",
        round(1 / 4.5, 4),
    )  # status right; output and .tally/list.json wrong
    assert grades(result) == {
        "ranking/top_csv": csv_without_header,
        "checkpoint_1.counting/csv_min_two": csv_without_header,
        "checkpoint_1.counting/gz_input": csv_without_header,
        "again_session/add_more": deduplicated_list,
        "again_session/show_list": deduplicated_list,
        "checkpoint_1.failures/missing_input": (
            "failed",
            round(1 / 1.5, 4),
        ),  # status right, stderr wrong
    }
    # DeepDiff's reports (the verifier's deepdiff_verify) read one line per difference
    more = next(t for t in result.tests if t.id == "again_session/add_more")
    assert (
        more.diff == 'output: expected "4 words", got "3 words"\n'
        'files-.tally/list.json: $.words[3]: missing "apple"'
    )
    # the first `add` of the session is right: the hidden .tally/list.json was read back and
    # compared
    fruit = next(t for t in result.tests if t.id == "again_session/add_fruit")
    assert {a.name: a.correct for a in fruit.attributes or [] if a.correct is not None} == {
        "status_code": True,
        "output": True,
        "files-.tally/list.json": True,
    }


def test_shelf_api_partly_right_gets_scbench_s_grade(tmp_path):
    """Weights of shelf_api's verifier: status 1, body 2, headers 0.5 (an error body's schema: 1),
    an archive's member 2, its download name 0.5. A `created_at` in seconds since the epoch is a
    timestamp by SCBench's `validate_format`."""
    need_sandbox("bubblewrap")
    submission = partial.make("shelf_partial", tmp_path / "shelf")
    result = run_checkpoint(
        OUTSIDE / "shelf_api", "checkpoint_2", submission, EnvironmentSpec(sandbox="bubblewrap")
    )
    wrong_header = ("failed", round(3 / 3.5, 4))
    assert grades(result) == {
        "legacy_search/limit_keeps_the_total": wrong_header,  # X-Total-Count after the limit
        "legacy_invalid/put_not_allowed": wrong_header,  # no Allow header
        "legacy_invalid/missing_title": ("failed", 0.5),  # 422, not 400; the error body is right
        "export/austen_as_zip": ("failed", 0.5),  # books.json is data/books.json in the zip
    }
    export = next(t for t in result.tests if t.id == "export/austen_as_zip")
    files = {a.name: a.correct for a in export.attributes or [] if a.name.startswith("files-")}
    assert files == {
        "files-books.json": False,
        "files-data/books.json": None,
    }  # the member read, unverified


def _with_command(tmp_path: Path, problem: str, command: str | list[str]) -> Path:
    """The problem as its user would adapt it for another language: `adapter.command`."""
    copy = tmp_path / problem
    shutil.copytree(OUTSIDE / problem, copy, ignore=shutil.ignore_patterns("solution"))
    config = yaml.safe_load((copy / "config.yaml").read_text())
    config["adapter"]["command"] = command
    (copy / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return copy


@pytest.mark.parametrize("backend", ["bubblewrap", "docker"])
@pytest.mark.parametrize(
    ("problem", "submission", "command"),
    [
        (
            "tally",
            "tally_node",
            "node {entry_file}.js",
        ),  # a CLI: stdin, tracked files, a stateful group
        (
            "shelf_api",
            "shelf_node",
            ["node", "{submission}/{entry_file}.js"],
        ),  # a server: --address/--port appended
    ],
)
def test_a_javascript_submission_runs_through_the_adapter_s_command(
    tmp_path, backend, problem, submission, command
):
    need_sandbox(backend)
    if backend == "docker":
        need_docker_image("cases")
    else:
        need(shutil.which("node") is not None, "node is not installed")
    copy = _with_command(tmp_path, problem, command)
    result = run_checkpoint(
        copy, "checkpoint_2", OUTSIDE / "submissions" / submission, EnvironmentSpec(sandbox=backend)
    )
    all_passed(result)
    assert (result.entrypoint or "").split()[0].endswith("node")


@pytest.fixture(scope="module")
def greet_binary(tmp_path_factory) -> Path:
    """The Go submission, built as its author would ship it: a static binary named `greet`."""
    need(shutil.which("go") is not None, "go is not installed (apt-get install golang-go)")
    out = tmp_path_factory.mktemp("greet_go")
    source = out / "src"
    shutil.copytree(OUTSIDE / "submissions" / "greet_go", source)
    build = subprocess.run(
        ["go", "build", "-o", str(out / "submission" / "greet"), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "CGO_ENABLED": "0",
            "GOPROXY": "off",
            "GOFLAGS": "-mod=mod",
            "HOME": str(out),
            "GOCACHE": str(out / "cache"),
        },
        check=False,
    )
    assert build.returncode == 0, build.stderr
    return out / "submission"


@pytest.mark.parametrize("backend", ["none", "bubblewrap", "docker"])
def test_an_executable_submission_go_or_shell_runs_through_the_adapter_s_command(
    greet_binary, backend
):
    need_sandbox(backend)
    if backend == "docker":
        need_docker_image("cases")
    for submission in (greet_binary, OUTSIDE / "submissions" / "greet_sh"):
        result = run_checkpoint(
            OUTSIDE / "greet", "checkpoint_1", submission, EnvironmentSpec(sandbox=backend)
        )
        all_passed(result)
        assert len(result.tests) == 6 and (result.entrypoint or "").endswith("/greet")


def test_docker_refuses_another_python_than_the_cases_image_carries(greet_binary):
    """runners-cases (and runners-browser) are built on the default python image: a run asking for
    another Python would start the case program on an interpreter the image does not have."""
    need_sandbox("docker")
    need_docker_image("cases")
    from runners.images import docker_client
    from runners.model.errors import UserInputError

    default = docker_client().images.get("runners-python:latest").id
    others = [
        t.split(":")[1]
        for image in docker_client().images.list(name="runners-python")
        if image.id != default
        for t in image.tags
        if t.split(":")[1][:1].isdigit()
    ]
    need(
        bool(others),
        "no runners-python:X.Y image besides latest (python -m runners image build --kind python "
        "--python 3.12; CI builds it)",
    )
    with pytest.raises(
        UserInputError,
        match=rf"option --python picks runners-python:{others[0]} .* runs in runners-cases",
    ):
        run_checkpoint(
            OUTSIDE / "greet",
            "checkpoint_1",
            greet_binary,
            EnvironmentSpec(sandbox="docker", python=others[0]),
        )


@pytest.mark.parametrize("backend", ["bubblewrap", "docker"])
def test_a_browser_problem_s_node_server_runs_from_its_entry_file_s_suffix(backend):
    """`entry_file: server.js` and no `command`: node runs it (docker: the browser image has
    node)."""
    need_sandbox(backend)
    if backend == "docker":
        need_docker_image("browser")
    else:
        need(
            shutil.which("node") is not None and Path("/usr/bin/chromium").exists(),
            "node or chromium is not installed",
        )
    result = run_checkpoint(
        OUTSIDE / "clicker",
        "checkpoint_1",
        OUTSIDE / "submissions" / "clicker_node",
        EnvironmentSpec(sandbox=backend),
    )
    all_passed(result)
    assert (result.entrypoint or "").split()[0].endswith("node")
