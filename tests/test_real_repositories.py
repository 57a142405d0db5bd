"""A real open-source repository graded by its own test suite, with no glue: the comparison of
`python -m bench.repo_suites` (bench/RESULTS.md, section 10) on the vendored copy of
jpvanhal/inflection (MIT, tests/fixtures/repos/inflection), so CI re-runs it.

The framework runs the suite itself (pytest in a venv with the project installed, its doctests
on, as the project's tox.ini says), the harness grades the unmodified repository under bubblewrap
and docker, and both do it again on a copy with one bug: every test's status must agree, and the
broken copy must fail exactly the tests pytest itself fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

from support import need, need_sandbox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.repo_projects import BY_NAME, FIXTURES
from bench.repo_suites import compare
from runners.frameworks.registry import builtin_protected
from runners.sandbox.docker.client import default_image
from runners.scan import scan_submission


def _need_docker() -> None:
    need_sandbox("docker")
    from runners.images import docker_client, image_exists

    tag = default_image("python")
    need(
        image_exists(docker_client(), tag), f"the image {tag} is missing: run scripts/ci-docker.sh"
    )


def test_inflection_graded_by_its_own_suite_matches_pytest_test_by_test(tmp_path):
    need_sandbox("bubblewrap")
    _need_docker()
    project = BY_NAME["inflection"]
    assert project.vendored and (FIXTURES / "inflection" / "LICENSE").is_file()
    row = compare(project, tmp_path / "no-mirror", tmp_path / "work", ("bubblewrap", "docker"))
    native = row.native.statuses
    # Its 455 parametrized tests and the 12 docstrings of inflection/__init__.py, all passing in
    # pytest's run.
    assert len(native) == 467 and set(native.values()) == {"passed"}
    assert sum(1 for test_id in native if test_id.startswith("inflection/__init__.py::")) == 12
    assert row.native.summary["passed"] == 467
    for sandbox in ("bubblewrap", "docker"):
        assert row.harness[sandbox].statuses == native, sandbox
        assert row.broken_harness[sandbox].statuses == row.broken_native.statuses, sandbox
    failing = row.broken_native.failing()
    assert failing == {
        "test_inflection.py::test_humanize[employee_id-Employee]",
        "inflection/__init__.py::inflection.humanize",
    }
    assert row.ok


def test_the_vendored_repository_raises_no_flag():
    assert scan_submission(FIXTURES / "inflection", "", protected=builtin_protected()) == []
