"""Where a run's workspace lives: in memory only where the sandbox bounds what the run writes."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from fake_sandbox import Case, FakeSandbox, pytest_run
from support import make_problem, make_submission

from runners import EnvironmentSpec, UserInputError, load_problem
from runners.engine.protocol import execute
from runners.engine.workspace_place import ENV_VAR, MEMORY_DIR, fits_in_memory, workspace_base
from runners.frameworks.pytest_runner import PytestRunner

needs_tmpfs = pytest.mark.skipif(
    not fits_in_memory(MEMORY_DIR, 0) and not os.environ.get("CI"), reason="no usable /dev/shm here"
)


class BoundedFake(FakeSandbox):
    def memory_bounded(self) -> bool:
        return True


def _submission_source(tmp_path: Path, sandbox: FakeSandbox, keep: bool = False) -> Path:
    problem = load_problem(make_problem(tmp_path, {"test_checkpoint_1.py": "def test_a(): pass\n"}))
    submission = make_submission(tmp_path, {"main.py": "print('hi')\n"})
    env = EnvironmentSpec(sandbox="none", cache_dir=tmp_path / "cache", keep_workspace=keep)
    runner = PytestRunner(problem=problem, checkpoint="checkpoint_1", environment=env)
    result = execute(runner, submission, extra_args=[], select=[], output_dir=None, sandbox=sandbox)
    assert not result.infrastructure_failure, result.infrastructure_reason
    return next(m.source for m in sandbox.test_request.mounts if m.target == "/workspace")


@needs_tmpfs
def test_a_bounded_sandbox_gets_its_workspace_in_memory_and_it_is_removed(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    source = _submission_source(
        tmp_path, BoundedFake(pytest_run([Case("tests/test_checkpoint_1.py::test_a")]))
    )
    assert source.is_relative_to(MEMORY_DIR)
    assert not source.parent.exists()  # nothing left in memory after the run


def test_an_unbounded_sandbox_or_a_kept_workspace_stays_on_disk(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    cases = [Case("tests/test_checkpoint_1.py::test_a")]
    source = _submission_source(tmp_path / "a", FakeSandbox(pytest_run(cases)))
    assert source.is_relative_to(tempfile.gettempdir())
    kept = _submission_source(tmp_path / "b", BoundedFake(pytest_run(cases)), keep=True)
    assert kept.is_relative_to(tempfile.gettempdir()) and kept.exists()
    shutil.rmtree(kept.parent)


def test_the_user_can_name_the_directory_and_a_wrong_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert workspace_base(0, memory_bounded=True, keep=False) == tmp_path
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(UserInputError, match=rf"{ENV_VAR}: .*missing is not a writable directory"):
        workspace_base(0, memory_bounded=False, keep=False)


@needs_tmpfs
def test_a_submission_too_big_for_memory_goes_to_disk(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    free = os.statvfs(MEMORY_DIR).f_bavail * os.statvfs(MEMORY_DIR).f_frsize
    assert workspace_base(1 << 20, memory_bounded=True, keep=False) == MEMORY_DIR
    assert workspace_base(free, memory_bounded=True, keep=False) is None
