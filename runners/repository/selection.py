"""kind: repository: which files a checkpoint's `tests:` and `doctests:` patterns select.

A pattern is a path relative to the repository root:

- a file (`tests/test_parse.py`, `README.md`): that file;
- a directory (`tests/`, `test/unit`): the framework's test files anywhere below it;
- a glob (`tests/**/test_*.py`, `src/*.test.ts`): the test files it matches; `**` spans any number
  of directories (none too), `*`, `?` and `[...]` stay within one.

The framework's test files: pytest `test_*.py` / `*_test.py`; vitest and jest `*.test.*` /
`*.spec.*` (js, ts, mjs, cjs, mts, cts, jsx, tsx), jest also any script under `__tests__/`;
vitest's type tests `*.test-d.ts` / `*.spec-d.ts` (checked by tsc, never run). For `doctests:`
(pytest), the files are the repository's own Python modules and text files (.md, .rst, .txt).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runners.model.config import CheckpointConfig, ProblemConfig

_PYTEST_TEST = re.compile(r"^(test_.+|.+_test)\.py$")
_JS_TEST = re.compile(r"^.+\.(?:test|spec)\.[cm]?[jt]sx?$")
_JS_TYPECHECK = re.compile(r"^.+\.(?:test|spec)-d\.[cm]?[jt]sx?$")
_JS_SUFFIXES = (".js", ".ts", ".mjs", ".cjs", ".mts", ".cts", ".jsx", ".tsx")
DOCTEST_TEXT = (".md", ".rst", ".txt")


def is_typecheck_test(path: str) -> bool:
    """vitest's type tests (`*.test-d.ts`): checked by tsc, never run."""
    return bool(_JS_TYPECHECK.match(PurePosixPath(path).name))


def is_test_file(framework: str, path: str) -> bool:
    """Whether `path` is one of the framework's test files (what a directory or glob selects)."""
    rel = PurePosixPath(path)
    if framework == "pytest":
        return bool(_PYTEST_TEST.match(rel.name))
    if framework == "vitest" and _JS_TYPECHECK.match(rel.name):
        return True
    if _JS_TEST.match(rel.name):
        return True
    return framework == "jest" and "__tests__" in rel.parts[:-1] and rel.suffix in _JS_SUFFIXES


def is_doctest_file(path: str) -> bool:
    return PurePosixPath(path).suffix in (".py", *DOCTEST_TEXT)


def _is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts = []
    for segment in pattern.split("/"):
        if segment == "**":
            parts.append("(?:[^/]+/)*")
        else:
            parts.append(fnmatch.translate(segment).removeprefix("(?s:").removesuffix(")\\Z") + "/")
    return re.compile("".join(parts).removesuffix("/"))


def selects(pattern: str, path: str, wanted: str) -> bool:
    """Whether `pattern` selects `path`; `wanted` is the framework's name (its test files) or
    "doctest" (Python modules and text files). A file named literally is selected whatever it is;
    a folder or a glob never selects what is under a `node_modules` folder (fixture packages), as
    the frameworks themselves never collect there."""
    pattern = pattern.strip().removeprefix("./").rstrip("/")
    if path != pattern and "node_modules" in PurePosixPath(path).parts:
        return False
    if pattern in ("", "."):  # the whole repository
        return path.endswith(".py") if wanted == "doctest" else is_test_file(wanted, path)
    if not _is_glob(pattern):
        if path == pattern:
            return True
        if not path.startswith(pattern + "/"):
            return False
        return path.endswith(".py") if wanted == "doctest" else is_test_file(wanted, path)
    if not _glob_regex(pattern).fullmatch(path):
        return False
    return is_doctest_file(path) if wanted == "doctest" else is_test_file(wanted, path)


def match(pattern: str, files: Iterable[str], wanted: str) -> list[str]:
    """The files of `files` that `pattern` selects (see `selects`), in their order."""
    return [path for path in files if selects(pattern, path, wanted)]


def selected_tests(
    problem: ProblemConfig, checkpoint: CheckpointConfig, files: list[str]
) -> dict[str, str]:
    """The overlay test files (of `files`) that run at `checkpoint` -> the checkpoint each belongs
    to: the first, in checkpoint order, whose `tests:` select it (earlier ones' are Regression)."""
    owner = owners(problem, files, "tests")
    wanted = {cp.name for cp in problem.checkpoints_up_to(checkpoint)}
    return {path: cp for path, cp in owner.items() if cp in wanted}


def owners(problem: ProblemConfig, files: Iterable[str], field: str) -> dict[str, str]:
    """Each file of `files` selected by some checkpoint's `field` (`tests` or `doctests`) -> the
    first checkpoint, in order, that selects it."""
    wanted = "doctest" if field == "doctests" else problem.framework
    owner: dict[str, str] = {}
    files = list(files)
    for cp in problem.ordered_checkpoints():
        for pattern in getattr(cp, field):
            for path in match(pattern, files, wanted):
                owner.setdefault(path, cp.name)
    return owner


def checkpoint_of(problem: ProblemConfig, file: str | None, current: str) -> str:
    """The checkpoint a reported test's file belongs to: the first whose `tests:` or `doctests:`
    select it, else the current one."""
    if not file:
        return current
    rel = file.replace("\\", "/").removeprefix("./")
    for cp in problem.ordered_checkpoints():
        if any(selects(p, rel, problem.framework) for p in cp.tests) or any(
            selects(p, rel, "doctest") for p in cp.doctests
        ):
            return cp.name
    return current
