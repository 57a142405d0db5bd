"""Fixtures for the inventory_cli tests (SCBench style).

The harness passes `--entrypoint` (the command that runs the submission, with absolute paths, so
it works from any working directory) and `--checkpoint`. Every test runs the program in its own
`tmp_path`.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from cli_helpers import Cli


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--entrypoint",
        action="store",
        required=True,
        help="command that runs the submission, e.g. 'python /abs/main.py'",
    )
    parser.addoption(
        "--checkpoint",
        action="store",
        required=True,
        help="checkpoint being graded, e.g. checkpoint_2",
    )


@pytest.fixture(scope="session")
def entrypoint_argv(request: pytest.FixtureRequest) -> list[str]:
    return shlex.split(request.config.getoption("--entrypoint"))


@pytest.fixture(scope="session")
def checkpoint_name(request: pytest.FixtureRequest) -> str:
    return request.config.getoption("--checkpoint")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return TESTS_DIR / "data"


@pytest.fixture(scope="session")
def catalog_path() -> Path:
    """The shared catalog CSV (static asset `catalog`), found through the harness's variables."""
    explicit = os.environ.get("SCBENCH_ASSET_CATALOG")
    if explicit:
        path = Path(explicit)
    elif os.environ.get("SCBENCH_ASSETS_DIR"):
        path = Path(os.environ["SCBENCH_ASSETS_DIR"]) / "catalog"
    else:
        pytest.fail("neither SCBENCH_ASSET_CATALOG nor SCBENCH_ASSETS_DIR is set")
    if not path.is_absolute():
        path = Path.cwd() / path
    assert path.is_file(), f"static asset 'catalog' not found at {path}"
    return path


@pytest.fixture
def cli(entrypoint_argv: list[str], tmp_path: Path) -> Cli:
    """The program, run in `tmp_path` with `--db tmp_path/stock.db`."""
    return Cli(entrypoint_argv, cwd=tmp_path, db=tmp_path / "stock.db")


@pytest.fixture(scope="module")
def module_cli(entrypoint_argv: list[str], tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """A program with one database shared by a module's read-only tests."""
    root = tmp_path_factory.mktemp("shared")
    return Cli(entrypoint_argv, cwd=root, db=root / "stock.db")
