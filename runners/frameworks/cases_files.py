"""The harness's side of a case-based run's files: the case files checked before any sandbox
starts, the problem copied into the vault, the case program's library into the config dir."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace

from runners.cases.adapters.steps import check_steps
from runners.cases.casefile import CaseFileError
from runners.cases.loading import CaseFileLoader
from runners.cases.model import BrowserCase
from runners.cases.vault import SETTINGS, vault_name
from runners.frameworks.base import RunContext
from runners.model.case_config import CaseCheckpointConfig, CaseProblemConfig
from runners.model.errors import ConfigError

PACKAGE = Path(__file__).resolve().parent.parent  # runners/
# Never copied into the vault: reference solutions, caches, VCS, environments.
NOT_COPIED = (
    "solution",
    "solutions",
    "__pycache__",
    ".git",
    ".hg",
    "node_modules",
    ".venv",
    "venv",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.pyc",
)


def checkpoint_dir(problem: CaseProblemConfig, name: str) -> Path:
    checkpoint = problem.checkpoints[name]
    return (problem.path / (checkpoint.path or name)).resolve()


def later_checkpoint_dirs(
    problem: CaseProblemConfig, checkpoint: CaseCheckpointConfig
) -> set[Path]:
    """Directories of the checkpoints after `checkpoint`: never copied (their cases are hidden
    from this run, as later checkpoints' tests are in every framework)."""
    current = checkpoint.order or 0
    return {
        checkpoint_dir(problem, name)
        for name, cp in problem.checkpoints.items()
        if (cp.order or 0) > current
    }


def uses_builtin_loader(problem: CaseProblemConfig) -> bool:
    return not (problem.path / problem.loader_script).is_file()


def check_case_files(problem: CaseProblemConfig, checkpoint: CaseCheckpointConfig) -> int:
    """Read and check every case file of the run (built-in loader): a ConfigError naming the
    file, the case and what is wrong. Returns how many cases there are."""
    if not uses_builtin_loader(problem):
        return 0  # the problem's own loader reads them, inside the sandbox
    view = _loader_view(problem)
    loader = CaseFileLoader(problem=view, checkpoint=view.checkpoints[checkpoint.name])
    count = 0
    try:
        for group in checkpoint.groups.values():
            for case, _ in loader(group=group, store=None):  # type: ignore[arg-type]
                if isinstance(case, BrowserCase):
                    try:
                        check_steps(case.steps)
                    except ValueError as exc:
                        raise CaseFileError(
                            _file_of(loader, group, case.id), case.id, str(exc)
                        ) from None
                count += 1
    except CaseFileError as exc:
        raise ConfigError(
            exc.file or problem.path,
            f"case {exc.case!r}: {exc.message}" if exc.case else exc.message,
        ) from None
    return count


def _loader_view(problem: CaseProblemConfig) -> SimpleNamespace:
    """What the built-in loader reads of a problem, from the harness's config."""
    checkpoints = {
        name: SimpleNamespace(name=name, path=checkpoint_dir(problem, name))
        for name in problem.checkpoints
    }
    return SimpleNamespace(adapter=problem.adapter, checkpoints=checkpoints, path=problem.path)


def _file_of(loader: CaseFileLoader, group: object, case_id: str) -> Path | None:
    for found_id, file, _ in loader.documents(group):  # type: ignore[arg-type]
        if found_id == case_id:
            return file
    return None


def copy_into_vault(
    problem: CaseProblemConfig, checkpoint: CaseCheckpointConfig, tests: Path, key: bytes
) -> Path:
    """Copy the problem (minus later checkpoints and solutions) to `<tests>/<vault>/<problem>`."""
    target = tests / vault_name(key) / problem.path.name
    skip = later_checkpoint_dirs(problem, checkpoint)
    ignore_names = shutil.ignore_patterns(*NOT_COPIED)

    def ignore(directory: str, names: list[str]) -> set[str]:
        ignored = set(ignore_names(directory, names))
        return ignored | {n for n in names if (Path(directory) / n).resolve() in skip}

    shutil.copytree(problem.path, target, ignore=ignore, symlinks=False)
    return target


def write_settings(tests: Path, key: bytes, settings: Mapping[str, object]) -> Path:
    """The case program's settings, as `run.json` beside the problem in the vault: only a
    process that knows the run's key can name it."""
    vault = tests / vault_name(key)
    mode = vault.stat().st_mode
    vault.chmod(0o755)  # sealed read-only with the rest (the harness owns it)
    path = vault / SETTINGS
    path.write_text(json.dumps(settings), encoding="utf-8")
    path.chmod(0o444)
    vault.chmod(mode)
    return path


def scratch(ctx: RunContext) -> dict[str, object]:
    """Where a submission can write besides its workspace, in this run alone: reset with it
    before every case (runners/cases/fresh.py). Docker and bubblewrap give the run a private
    /tmp (its home inside), /dev (with /dev/shm and, under docker, /dev/mqueue) and IPC
    namespace; on `none`, /tmp, /dev/shm and IPC are the host's, shared with every other
    process: only the run's own HOME, TMPDIR and report directory are reset there."""
    layout = ctx.layout
    if ctx.sandbox.isolated:
        return {
            "dirs": [layout.tmp, layout.home, "/dev/shm", "/dev/mqueue", layout.reports],
            "ipc": True,
        }
    return {"dirs": [layout.home, layout.tmp, layout.reports], "ipc": False}


def close_vault(tests: Path) -> None:
    """The tests directory traversable but not listable (on a read-only mount, for good)."""
    for path in _tree(tests):
        path.chmod(0o755 if path.is_dir() else 0o644)
    tests.chmod(0o111)


def _tree(root: Path) -> Iterator[Path]:
    for path in root.rglob("*"):
        if not path.is_symlink():
            yield path


def copy_library(target: Path) -> Path:
    """The case program: runners/cases (with the SCBench compatibility package) under
    `target/runners/`, beside an empty `runners/__init__.py`, plus its entry script; returns the
    script."""
    package = target / "runners"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""The case program\'s copy of runners/cases."""\n')
    shutil.copytree(
        PACKAGE / "cases", package / "cases", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    script = target / "runners_cases_main.py"
    shutil.copy(PACKAGE / "cases" / "entry.py", script)
    return script
