"""How many tests pytest files define, read with `ast` (nothing imported or run): for the default
whole-run wall clock (`runners.engine.wall_clock`), not for grading.

A test is a module-level `test*` function, or a `test*` method of a `Test*` class. Each
`parametrize` decorator (on it or its class) multiplies it by the number of its cases: a literal
list, tuple or set, or a module-level name bound to one, counts its elements; anything computed
(`load_cases(...)`, a comprehension) counts as `COMPUTED_CASES`. A file that does not parse
counts as one test (pytest reports it as one collection error).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

COMPUTED_CASES = 25  # a parametrize list built at import time: assumed this long


def count_tests(files: Iterable[Path]) -> int:
    return sum(_count_file(path) for path in files)


def _count_file(path: Path) -> int:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return 1
    sizes = _module_literals(tree)
    total = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            total += _cases(node.decorator_list, sizes)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            outer = _cases(node.decorator_list, sizes)
            total += outer * sum(
                _cases(item.decorator_list, sizes)
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name.startswith("test")
            )
    return total


def _module_literals(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to a literal list, tuple or set: their lengths."""
    sizes: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
            node.value, ast.List | ast.Tuple | ast.Set
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    sizes[target.id] = len(node.value.elts)
    return sizes


def _cases(decorators: list[ast.expr], sizes: dict[str, int]) -> int:
    product = 1
    for decorator in decorators:
        if not (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize"
        ):
            continue
        values = (
            decorator.args[1]
            if len(decorator.args) > 1
            else next((kw.value for kw in decorator.keywords if kw.arg == "argvalues"), None)
        )
        if isinstance(values, ast.List | ast.Tuple | ast.Set):
            product *= max(1, len(values.elts))
        elif isinstance(values, ast.Name) and values.id in sizes:
            product *= max(1, sizes[values.id])
        else:
            product *= COMPUTED_CASES
    return product
