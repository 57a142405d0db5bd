"""kind: repository: the problem's files, laid over a copy of the submission at their paths.

```
problems/<name>/
  config.yaml        kind: repository, checkpoints with `tests:` (paths or globs)
  overlay/           the repository-relative files the problem owns: its tests, their data and
                     snapshots, and the configuration it trusts (pytest.ini, vitest.config.ts,
                     jest.config.js, tsconfig.json, babel.config.js ...)
```

In the run's copy of the submission, every overlay file replaces whatever the submission had at
that path (a file, a directory, a symbolic link, or a link on the way there), and is read-only.
The framework's own configuration files that the submission ships and the problem does not (a
`conftest.py`, a `vitest.config.ts`, a `.babelrc`, a `tsconfig.json`) are removed from the copy
first: the tests run exactly as the problem says, whatever the submission ships.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from runners.repository import manifest_config
from runners.repository.selection import match, owners

if TYPE_CHECKING:
    from runners.model.config import CheckpointConfig, ProblemConfig

# Configuration each framework would load on its own from the repository, at any depth: the
# submission's copies are removed unless the problem overlays its own at the same path.
OWNED_NAMES: dict[str, tuple[str, ...]] = {
    # conftest.py files are loaded for every test path below them; start-up hooks run in any
    # interpreter whose sys.path holds the repository. (pytest.ini & co are never read: -c.)
    "pytest": ("conftest.py", "sitecustomize.py", "usercustomize.py"),
    "vitest": (
        "vitest.config.*",
        "vite.config.*",
        "vitest.workspace.*",
        "vitest.projects.*",
        "tsconfig*.json",
    ),
    "jest": (
        "jest.config.*",
        "babel.config.*",
        ".babelrc",
        ".babelrc.*",
        ".swcrc",
        "tsconfig*.json",
    ),
}
# The framework configuration a problem can trust, looked for in this order at the overlay's root
# when `repository.config` names none.
CONFIG_NAMES: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "setup.cfg"),
    "vitest": tuple(f"vitest.config.{ext}" for ext in ("ts", "mts", "js", "mjs", "cts", "cjs")),
    "jest": tuple(f"jest.config.{ext}" for ext in ("js", "cjs", "mjs", "ts", "mts", "cts", "json")),
}
_SKIP_DIRS = {".git", "__pycache__", ".venv", "venv"}
# At the root only: the repository's node_modules is its dependencies, installed by the harness.
# Deeper, a `node_modules` folder is test data (a fixture package a resolver test looks up).
_ROOT_SKIP = {"node_modules"}


def overlay_files(problem: ProblemConfig) -> list[str]:
    """The overlay's files, relative (POSIX), sorted."""
    root = problem.overlay_dir
    if not root.is_dir():
        return []
    return sorted(path.relative_to(root).as_posix() for path in _walk(root))


def laid_files(problem: ProblemConfig, checkpoint: CheckpointConfig) -> list[str]:
    """The overlay files a run of `checkpoint` lays into the copy: every file but the tests of
    later checkpoints (which it must not see) and their snapshots (`__snapshots__/<test>.snap`)."""
    files = overlay_files(problem)
    owner = owners(problem, files, "tests")
    ran = {cp.name for cp in problem.checkpoints_up_to(checkpoint)}
    later = {path for path, cp in owner.items() if cp not in ran}
    trusted = trusted_config(problem)
    read_only = {trusted} if manifest_config.is_manifest(problem.framework, trusted) else set()
    return [
        path
        for path in files
        if path not in later and _snapshot_of(path) not in later and path not in read_only
    ]


def _snapshot_of(path: str) -> str | None:
    """The test file a snapshot file belongs to (`a/__snapshots__/x.test.ts.snap` ->
    `a/x.test.ts`)."""
    rel = PurePosixPath(path)
    if rel.suffix != ".snap" or rel.parent.name != "__snapshots__":
        return None
    return (rel.parent.parent / rel.stem).as_posix().removeprefix("./")


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        skip = _SKIP_DIRS | _ROOT_SKIP if Path(dirpath) == root else _SKIP_DIRS
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for name in sorted(filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]):
            yield Path(dirpath, name)


def trusted_config(problem: ProblemConfig) -> str | None:
    """The framework configuration the problem trusts: `repository.config`, else the first of the
    framework's usual names at the overlay's root, else none (the harness's defaults)."""
    if problem.settings.config:
        return problem.settings.config
    files = set(overlay_files(problem))
    return next((name for name in CONFIG_NAMES.get(problem.framework, ()) if name in files), None)


def check_overlay(problem: ProblemConfig) -> list[str]:
    """What is wrong with a repository problem's files, one message per field."""
    root = problem.overlay_dir
    if not root.is_dir():
        return [
            (
                "directory `overlay/` is missing next to config.yaml (kind: repository: the files "
                "laid over the submission, its tests among them)"
            )
        ]
    problems = [
        f"overlay/{path.relative_to(root).as_posix()}: a symbolic link that leaves overlay/ or "
        "points nowhere (a link must be relative, to a file of the overlay)"
        for path in _walk(root)
        if path.is_symlink() and not _inner_link(root, path)
    ]
    if (root / "node_modules").exists():
        problems.append(
            "overlay/node_modules: not allowed (the repository's node_modules holds its own "
            "dependencies, installed from its lock; the test toolchain is the problem's "
            "package.json)"
        )
    files = overlay_files(problem)
    for cp in problem.ordered_checkpoints():
        for pattern in cp.tests:
            if not match(pattern, files, problem.framework):
                problems.append(
                    f"field `checkpoints.{cp.name}.tests`: {pattern!r} selects none of the "
                    f"{problem.framework} test files under overlay/"
                )
    config = problem.settings.config
    if config and config not in files:
        problems.append(f"field `repository.config`: overlay/{config} does not exist")
    trusted = trusted_config(problem)
    if trusted in files and manifest_config.is_manifest(problem.framework, trusted):
        problems += filter(
            None, [manifest_config.problem_with(problem.framework, root / str(trusted))]
        )
    return problems


def _inner_link(root: Path, link: Path) -> bool:
    """A relative link to a file of the overlay (`fixture/hello.link.mjs -> hello.mjs`): laid as
    the same link, which a test that resolves links needs."""
    target = os.readlink(link)
    if os.path.isabs(target):
        return False
    resolved = Path(os.path.normpath(link.parent / target))
    return resolved.is_relative_to(root) and resolved.is_file() and not resolved.is_symlink()


def _clear_path(root: Path, rel: str) -> Path:
    """`root/rel`, with every directory on the way a real directory inside `root` (a link or a
    file the submission put there is removed, never followed) and nothing left at the path."""
    current = root
    for part in PurePosixPath(rel).parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            current.unlink()
        current.mkdir(exist_ok=True)
    target = current / PurePosixPath(rel).name
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    return target


def remove_owned(problem: ProblemConfig, submission: Path) -> list[str]:
    """Remove the framework configuration the submission ships where the problem overlays none;
    returns what was removed (relative paths)."""
    overlaid = set(overlay_files(problem))
    owned = OWNED_NAMES.get(problem.framework, ())
    removed = []
    for dirpath, dirnames, filenames in os.walk(submission, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]):
            path = Path(dirpath, name)
            rel = path.relative_to(submission).as_posix()
            if rel not in overlaid and any(fnmatch.fnmatchcase(name, pattern) for pattern in owned):
                path.unlink()
                removed.append(rel)
    return removed


def lay(problem: ProblemConfig, files: list[str], submission: Path, keep: Path) -> list[str]:
    """Remove the framework configuration the submission ships and the problem does not, then
    copy the overlay `files` over `submission` and to `keep` (the sealed copy the read-only mounts
    come from). Returns notes on what was removed."""
    removed = remove_owned(problem, submission)
    keep.mkdir(parents=True, exist_ok=True)
    for rel in files:
        source = problem.overlay_dir / rel
        for root in (submission, keep):
            if source.is_symlink():  # relative, inside the overlay (check_overlay): the same link
                os.symlink(os.readlink(source), _clear_path(root, rel))
            else:
                shutil.copyfile(source, _clear_path(root, rel))
    if not removed:
        return []
    shown = ", ".join(removed[:8]) + (f" and {len(removed) - 8} more" if len(removed) > 8 else "")
    return [
        (
            f"the submission's own {problem.framework} configuration was not used (removed from "
            "the run's copy; the problem's overlay provides the tests and their configuration): "
            f"{shown}"
        )
    ]
