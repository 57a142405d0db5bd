"""Helpers for the project's tests: build small problems and submissions on disk."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from runners.sandbox.registry import sandbox_class

IN_CI = os.environ.get("CI", "").lower() == "true"

SCBENCH_CONFTEST = """
import shlex
import pytest


def pytest_addoption(parser):
    parser.addoption("--entrypoint", action="store", required=True)
    parser.addoption("--checkpoint", action="store", required=True)


@pytest.fixture(scope="session")
def entrypoint_argv(request):
    return shlex.split(request.config.getoption("--entrypoint"))


@pytest.fixture(scope="session")
def checkpoint_name(request):
    return request.config.getoption("--checkpoint")
"""


def need(condition: bool, reason: str) -> None:
    """Skip when a real part is missing, but fail under CI=true: CI must exercise it."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def need_sandbox(name: str) -> None:
    reason = sandbox_class(name).probe()
    need(reason is None, f"sandbox {name} unavailable: {reason}")


def need_docker_image(kind: str) -> str:
    """The docker image of `kind` (python, node, go, browser), current: built when missing or
    stale (a no-op otherwise; CI builds every image up front in scripts/ci-docker.sh)."""
    need_sandbox("docker")
    from runners.images import LOCAL_BASE, docker_client, ensure_images, image_exists
    from runners.model.errors import InfrastructureError

    base = LOCAL_BASE if image_exists(docker_client(), LOCAL_BASE) else None
    try:
        return ensure_images([kind], base_image=base)[kind]  # type: ignore[list-item]
    except InfrastructureError as exc:
        need(False, f"the docker image of kind {kind} cannot be built here: {exc}")
        raise


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def make_problem(
    root: Path,
    tests: dict[str, str],
    name: str = "demo",
    checkpoints: Any = 1,
    conftest: str | None = SCBENCH_CONFTEST,
    **config: Any,
) -> Path:
    """A problem directory: config.yaml from defaults + `config`, tests/ from `tests`."""
    problem = root / name
    data: dict[str, Any] = {
        "name": name,
        "version": 1,
        "description": "a test problem",
        "tags": ["test"],
        "entry_file": "main",
        "timeout": 30,
        "checkpoints": checkpoints
        if not isinstance(checkpoints, int)
        else {f"checkpoint_{i}": {"version": 1} for i in range(1, checkpoints + 1)},
    }
    data.update(config)
    problem.mkdir(parents=True)
    (problem / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    files = dict(tests)
    if conftest is not None:
        files.setdefault("conftest.py", conftest)
    write_files(problem / "tests", files)
    return problem


def make_submission(root: Path, files: dict[str, str], name: str = "submission") -> Path:
    sub = root / name
    sub.mkdir(parents=True)
    write_files(sub, files)
    return sub


def tree_digest(root: Path) -> dict[str, str]:
    """Content and mode of every file under `root`: to show a tree was not modified."""
    digest = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            digest[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            digest[rel] = (
                f"{oct(path.stat().st_mode)}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
            )
        else:
            digest[rel] = f"dir:{oct(path.stat().st_mode)}"
    return digest


ROOT = Path(__file__).resolve().parent.parent


def runners_cli(*args: str, columns: int = 250) -> subprocess.CompletedProcess[str]:
    """`python -m runners ARGS` as a user runs it from the repository, output captured (not a
    terminal: rich's own styles off, so any control character in it is the run's)."""
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "COLUMNS": str(columns),
            "HOME": str(Path.home()),
        },
    )


def run_agents_batch(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`runners batch --agents` over `tmp_path/problems` with `tmp_path/agents.yaml` on `none`."""
    return runners_cli(
        "batch",
        "--problems",
        str(tmp_path / "problems"),
        "--agents",
        str(tmp_path / "agents.yaml"),
        "--sandbox",
        "none",
        "-o",
        str(tmp_path / "run"),
    )
