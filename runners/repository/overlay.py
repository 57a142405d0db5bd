"""kind: repository: the problem's files, laid over a copy of the submission at their paths.

```
problems/<name>/
  config.yaml        kind: repository, checkpoints with `tests:` (paths or globs)
  overlay/           the repository-relative files the problem owns: its tests, their data and
                     snapshots, and the configuration it trusts (pytest.ini, vitest.config.ts,
                     jest.config.js, tsconfig.json, babel.config.js ...)
```

In the run's copy of the submission, every overlay file replaces whatever the submission had at
that path, read-only. The framework's own configuration files that the submission ships and the
problem does not (a `conftest.py`, a `vitest.config.ts`, a `.babelrc`, a `tsconfig.json`) are
removed from the copy first: the tests run exactly as the problem says, whatever the submission
ships, and nothing the submission ships at those names is ever loaded.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from runners.config import CheckpointConfig, ProblemConfig

# Configuration each framework would load on its own from the repository, at any depth: the
# submission's copies are removed unless the problem overlays its own at the same path.
OWNED_NAMES: dict[str, tuple[str, ...]] = {
    # conftest.py files are loaded for every test path below them; start-up hooks run in the test
    # process, whose sys.path holds the repository. (pytest.ini & co are never read: -c.)
    "pytest": ("conftest.py", "sitecustomize.py", "usercustomize.py"),
    "vitest": ("vitest.config.*", "vite.config.*", "vitest.workspace.*", "vitest.projects.*", "tsconfig*.json"),
    "jest": ("jest.config.*", "babel.config.*", ".babelrc", ".babelrc.*", "tsconfig*.json"),
}
# The framework configuration a problem can trust, looked for in this order when `repository.config`
# names none.
CONFIG_NAMES: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"),
    "vitest": tuple(f"vitest.config.{ext}" for ext in ("ts", "mts", "js", "mjs", "cts", "cjs")),
    "jest": tuple(f"jest.config.{ext}" for ext in ("js", "cjs", "mjs", "json", "ts", "mts", "cts")),
}
_PYTEST_TEST = re.compile(r"^(test_.+|.+_test)\.py$")
_JS_TEST = re.compile(r"^.+\.(?:test|spec)\.[cm]?[jt]sx?$")
_JS_TYPECHECK = re.compile(r"^.+\.(?:test|spec)-d\.[cm]?[jt]sx?$")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv"}


def is_typecheck_test(path: str) -> bool:
    """vitest's type tests (`*.test-d.ts`): checked by tsc, never run."""
    return bool(_JS_TYPECHECK.match(PurePosixPath(path).name))


def is_test_file(framework: str, path: str) -> bool:
    """What a glob or a directory selects: the framework's test files (a literal path selects any)."""
    name = PurePosixPath(path).name
    if framework == "pytest":
        return bool(_PYTEST_TEST.match(name))
    if framework == "vitest" and _JS_TYPECHECK.match(name):
        return True
    return bool(_JS_TEST.match(name)) or (framework == "jest" and "__tests__" in PurePosixPath(path).parts[:-1]
                                          and PurePosixPath(path).suffix in (".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx"))


def overlay_files(problem: ProblemConfig) -> list[str]:
    """The overlay's files, relative (POSIX), sorted."""
    root = problem.overlay_dir
    if not root.is_dir():
        return []
    return sorted(path.relative_to(root).as_posix() for path in _walk(root))


def _walk(root: Path) -> Iterable[Path]:
    for path in sorted(root.rglob("*")):
        if any(part in _SKIP_DIRS for part in path.relative_to(root).parts):
            continue
        if path.is_file() or path.is_symlink():
            yield path


def _is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def match(pattern: str, files: Iterable[str], framework: str) -> list[str]:
    """The files a checkpoint pattern selects: a literal file path that file; a directory its
    test files; a glob (`**` spans directories) the test files it matches."""
    pattern = pattern.strip().rstrip("/")
    files = list(files)
    if not _is_glob(pattern):
        if pattern in files:
            return [pattern]
        prefix = pattern + "/"
        return [f for f in files if f.startswith(prefix) and is_test_file(framework, f)]
    regex = _glob_regex(pattern)
    return [f for f in files if regex.fullmatch(f) and is_test_file(framework, f)]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` matches any number of directories (none too), `*`/`?`/`[...]` stay within one."""
    parts = []
    for segment in pattern.split("/"):
        if segment == "**":
            parts.append("(?:[^/]+/)*")
        else:
            parts.append(fnmatch.translate(segment).removeprefix("(?s:").removesuffix(")\\Z") + "/")
    return re.compile("".join(parts).removesuffix("/"))


def selected_tests(problem: ProblemConfig, checkpoint: CheckpointConfig) -> dict[str, str]:
    """The overlay test files that run at `checkpoint` -> the checkpoint each belongs to (the
    first, in order, whose patterns select it: earlier checkpoints' files are Regression)."""
    files = overlay_files(problem)
    owner: dict[str, str] = {}
    for cp in problem.ordered_checkpoints():
        for pattern in cp.tests:
            for path in match(pattern, files, problem.framework):
                owner.setdefault(path, cp.name)
    wanted = {cp.name for cp in problem.checkpoints_up_to(checkpoint)}
    return {path: cp for path, cp in owner.items() if cp in wanted}


def checkpoint_of_file(problem: ProblemConfig, file: str | None, current: str) -> str:
    if not file:
        return current
    rel = file.replace("\\", "/").lstrip("./")
    files = overlay_files(problem)
    for cp in problem.ordered_checkpoints():
        for pattern in [*cp.tests, *cp.doctests]:
            if rel in match(pattern, files, problem.framework) or _glob_regex(pattern.rstrip("/")).fullmatch(rel):
                return cp.name
    return current


def trusted_config(problem: ProblemConfig) -> str | None:
    """The framework configuration the problem trusts: `repository.config`, else the first of the
    framework's usual names among the overlay files, else none (the harness's defaults)."""
    if problem.settings.config:
        return problem.settings.config
    files = set(overlay_files(problem))
    return next((name for name in CONFIG_NAMES.get(problem.framework, ()) if name in files), None)


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


def check_overlay(problem: ProblemConfig) -> list[str]:
    """What is wrong with a repository problem's files, one message per field."""
    root = problem.overlay_dir
    if not root.is_dir():
        return [f"directory `overlay/` is missing next to config.yaml (kind: repository: the files laid "
                f"over the submission, its tests among them)"]
    problems = [f"overlay/{path.relative_to(root).as_posix()}: a symbolic link (the overlay must hold "
                "the files themselves)" for path in _walk(root) if path.is_symlink()]
    files = overlay_files(problem)
    for cp in problem.ordered_checkpoints():
        for pattern in cp.tests:
            if not match(pattern, files, problem.framework):
                problems.append(f"field `checkpoints.{cp.name}.tests`: {pattern!r} selects none of the "
                                f"{problem.framework} test files under overlay/")
    config = problem.settings.config
    if config and config not in files:
        problems.append(f"field `repository.config`: overlay/{config} does not exist")
    return problems


def lay(problem: ProblemConfig, submission: Path, keep: Path) -> list[str]:
    """Remove the framework configuration the submission ships and the problem does not, then
    copy the overlay over `submission` (and to `keep`, the sealed copy mounted read-only).
    Returns notes on what was removed."""
    files = overlay_files(problem)
    overlaid = set(files)
    removed = []
    owned = OWNED_NAMES.get(problem.framework, ())
    for dirpath, dirnames, filenames in os.walk(submission, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]):
            path = Path(dirpath, name)
            rel = path.relative_to(submission).as_posix()
            if rel not in overlaid and any(fnmatch.fnmatchcase(name, pattern) for pattern in owned):
                path.unlink()
                removed.append(rel)
    for rel in files:
        source = problem.overlay_dir / rel
        for root in (submission, keep):
            target = _clear_path(root, rel)
            shutil.copyfile(source, target)
    if not removed:
        return []
    shown = ", ".join(removed[:8]) + (f" and {len(removed) - 8} more" if len(removed) > 8 else "")
    return [f"the submission's own {problem.framework} configuration was not used (removed from the run's "
            f"copy; the problem's overlay provides the tests and their configuration): {shown}"]
