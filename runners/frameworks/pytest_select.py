"""`--select` for pytest, checked before any sandbox starts: each id must name a test file that
the checkpoint copied, and a test function or class that file defines.

The check reads the files with `ast` (nothing is imported or run). An id is pytest's node id
relative to the workspace root: `tests/test_x.py`, `tests/test_x.py::test_y`,
`tests/test_x.py::TestZ::test_y`, with an optional parameter id `test_y[case-1]`. The first
name is accepted when the file defines a function or class by that name at any depth; the names
after it are not checked (a class's tests may be inherited from a base defined elsewhere).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from runners.model.errors import UserInputError


def check_pytest_select(
    root: Path, select: Sequence[str], files: Sequence[str] | None = None
) -> None:
    """Raise UserInputError for the first id in `select` that names no file or test under `root`
    (the workspace: `tests/...` as the run sees it; a repository: one of `files`)."""
    defined: dict[str, set[str]] = {}
    for test_id in select:
        file, *names = test_id.split("::")
        rel = PurePosixPath(file)
        if files is None and (
            rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] != "tests"
        ):
            raise UserInputError(
                f"option --select: {test_id!r}: expected a test id under tests/, "
                "such as tests/test_checkpoint_1.py::test_name"
            )
        path = root / rel
        if not path.is_file() or (files is not None and file not in files):
            known = _test_files(root) if files is None else list(files)
            raise UserInputError(
                f"option --select: {test_id!r}: {file} is not a test file of this "
                f"checkpoint (files: {', '.join(known) or 'none'})"
            )
        if not names:
            continue
        if file not in defined:
            defined[file] = _names(path)
        # Only the first name: a class's tests may be inherited from a base defined elsewhere.
        bare = names[0].split("[", 1)[0]
        if bare not in defined[file]:
            raise UserInputError(
                f"option --select: {test_id!r}: {file} defines no test or class named {bare!r}"
            )


def _names(path: Path) -> set[str]:
    """Every function and class name the file defines, at any depth."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return _Anything()  # a file pytest will report as a collection error: let it
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


class _Anything(set[str]):
    def __contains__(self, item: object) -> bool:
        return True


def _test_files(root: Path) -> list[str]:
    tests = root / "tests"
    return sorted(
        str(p.relative_to(root))
        for p in tests.rglob("*.py")
        if p.name.startswith("test_") or p.name.endswith("_test.py")
    )
