"""A fresh, disposable directory tree per run; the user's directories are only ever read.

```
<run>/
  submission/   a copy of the submission: the tests' working directory, the only writable tree
  tests/        hidden tests for this checkpoint (+ earlier ones), conftest, helpers, data, assets
  config/       generated runner configuration (pytest.ini, vitest/jest config)
  reports/      where the framework writes its reports
  home/ tmp/    private HOME and TMPDIR
  .runners-owner  which harness process made it: a later harness removes it if that one died
```

The tests sit beside the submission, never inside it, so nothing the submission ships (a
`conftest.py`, a `pytest.ini`, a `vitest.config.ts`) is an ancestor or sibling of the tests.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from runners.engine.submission import Inventory, copy_inventory, inventory
from runners.model.config import CheckpointConfig, ProblemConfig
from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits
from runners.util import janitor
from runners.util.processes import owner_gone, owner_label

# Never copied from a submission: VCS history (may hold answers), caches, local environments.
SUBMISSION_IGNORE = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    "*.pyc",
    ".venv",
    "venv",
    "node_modules",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
)
ASSETS_DIR = "assets"
# Who made a workspace (host:pid:process start), so that one left by a harness that died is
# removed by the next harness that starts; never mounted into a sandbox.
OWNER_FILE = ".runners-owner"
_swept: set[str] = set()
_sweep_lock = threading.Lock()


@dataclass
class Workspace:
    root: Path
    owned: bool = True
    notes: list[str] = field(default_factory=list)

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def tests(self) -> Path:
        return self.root / "tests"

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def assets(self) -> Path:
        return self.tests / ASSETS_DIR

    @classmethod
    def create(cls, base_dir: Path | None = None) -> Workspace:
        sweep_stale(base_dir)
        root = Path(tempfile.mkdtemp(prefix="runners-", dir=base_dir)).resolve()
        janitor.track("workspace", root)  # removed at once if this process dies with it
        (root / OWNER_FILE).write_text(owner_label(), encoding="utf-8")
        workspace = cls(root=root)
        for sub in ("config", "reports", "home", "tmp"):
            (root / sub).mkdir()
        return workspace

    def copy_submission(
        self, source: Path, listed: Inventory | None = None, deadline: float | None = None
    ) -> None:
        """Copy the submission (links as links, special files left out, holes kept), from
        `listed` when the caller already took its inventory (and checked its limits)."""
        source = Path(source)
        if not source.is_dir():
            raise UserInputError(f"option --submission: {source} is not a directory")
        listed = listed or inventory(source, ResourceLimits(), SUBMISSION_IGNORE)
        skipped = [Path(rel).name for rel in copy_inventory(listed, self.submission, deadline)]
        if skipped:
            self.notes.append(
                f"skipped {len(skipped)} special file(s) in the submission: {skipped[:5]}"
            )

    def copy_tests(
        self,
        problem: ProblemConfig,
        checkpoint: CheckpointConfig,
        is_test_file: Callable[[str], bool],
        wanted: set[str],
        own: Iterable[str],
    ) -> list[str]:
        """Copy the tests that run for `checkpoint` and everything that is not a test file.

        `is_test_file(name)` says whether a top-level file is some checkpoint's test file;
        `wanted` names the test files that run (`Runner.test_files_up_to`), `own` the checkpoint's
        own ones. Returns the copied test files.
        """
        source = problem.tests_dir
        copied: list[str] = []
        self.tests.mkdir()
        for entry in sorted(source.iterdir()):
            if entry.name == "__pycache__" or entry.name == "node_modules":
                continue
            if entry.is_dir():
                shutil.copytree(
                    entry,
                    self.tests / entry.name,
                    symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__", "node_modules"),
                )
            elif entry.is_file():
                if is_test_file(entry.name) and entry.name not in wanted:
                    continue
                shutil.copy2(entry, self.tests / entry.name)
                if entry.name in wanted:
                    copied.append(entry.name)
        missing = sorted(name for name in own if not (source / name).is_file())
        if missing and not copied:
            raise UserInputError(
                f"{source}: no test file for checkpoint {checkpoint.name!r} "
                f"(expected {' or '.join(missing)})"
            )
        return copied

    def copy_assets(self, problem: ProblemConfig) -> dict[str, Path]:
        """Assets go to tests/assets/<name> (read-only to the submission) and, where a
        `save_path` is given, also into the submission tree at that path."""
        placed: dict[str, Path] = {}
        for name, asset in problem.static_assets.items():
            source = problem.path / asset.path
            target = self.assets / name
            _copy_any(source, target)
            placed[name] = target
            if asset.save_path:
                _copy_any(source, self.submission / asset.save_path)
        return placed

    def seal(self, *paths: Path) -> None:
        """Make trees read-only: for `none` only, where it is advisory. The other backends mount
        them read-only and leave the modes alone, as SCBench does: a test that copies a fixture
        (`shutil.copy`, `copytree`) into its tmp_path gets a copy the submission can write."""
        for path in paths:
            for dirpath, dirnames, filenames in os.walk(path):
                for name in filenames:
                    full = Path(dirpath, name)
                    if not full.is_symlink():
                        full.chmod(full.stat().st_mode & ~0o222)
                Path(dirpath).chmod(Path(dirpath).stat().st_mode & ~0o222)

    def release(self) -> None:
        """Keep this workspace for good (`--keep-workspace`): no later sweep removes it."""
        (self.root / OWNER_FILE).unlink(missing_ok=True)
        janitor.forget("workspace", self.root)

    def cleanup(self) -> None:
        if not self.owned or not self.root.exists():
            return
        shutil.rmtree(self.root, ignore_errors=True)
        if not self.root.exists():
            janitor.forget("workspace", self.root)
            return
        # What is left sits in sealed trees or directories a run made read-only: restore write
        # permission there, then remove it. (Walking first would cost a pass over every file.)
        for dirpath, dirnames, _ in os.walk(self.root):
            for name in dirnames:
                try:
                    Path(dirpath, name).chmod(0o700)
                except OSError:
                    pass
        try:
            self.root.chmod(0o700)
        except OSError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)
        janitor.forget("workspace", self.root)


def sweep_stale(base_dir: Path | None = None) -> int:
    """Once per process and base directory: remove `runners-*` workspaces whose harness (on this
    host) is gone, e.g. killed mid-run. Returns how many were removed."""
    base = Path(base_dir or tempfile.gettempdir())
    with _sweep_lock:
        if str(base) in _swept:
            return 0
        _swept.add(str(base))
    removed = 0
    for root in base.glob("runners-*"):
        try:
            info = os.lstat(root)
            owner = (root / OWNER_FILE).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue  # not ours to judge: no owner record (kept, or made by something else)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        if not owner_gone(owner):
            continue  # another machine's, or its harness is alive
        Workspace(root=root).cleanup()
        removed += 1
    return removed


def _copy_any(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy2(source, target)
