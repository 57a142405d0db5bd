"""No import circles among the modules of `runners`, so that its layers read one way.

A circle makes a module's import order matter (a half-initialized module raises ImportError, or
a function-local import hides the dependency). Every import statement counts: function-local
ones, and those under `if TYPE_CHECKING:` too (they never run, but a type named there is a
dependency all the same: the results model naming the pass policy ties the two layers together).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "runners"


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of `modules` that `path` (module `name`) imports, at run time or for types."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name in modules)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parent, *([child.module] if child.module else [])])
                for alias in child.names:
                    # `from runners.sandbox import none` imports a module; `from x import Name`, x.
                    target = f"{base}.{alias.name}"
                    found.add(target if target in modules else base)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return (found & modules) - {name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    paths = {module_name(p, package): p for p in package.rglob("*.py")}
    modules = set(paths)
    return {name: imported_modules(path, name, modules) for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a path `a -> b -> ... -> a`, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := walk(start)):
            return cycle
    return None


def test_runners_has_no_import_circle():
    graph = import_graph()
    assert (
        "runners.engine.protocol" in graph
        and "runners.frameworks.base" in graph["runners.frameworks.pytest_runner"]
    )
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_check_sees_local_and_type_checking_imports(tmp_path):
    pkg = tmp_path / "runners"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from runners.b import g\n    return g\n")
    (pkg / "b.py").write_text("def g(): ...\n")
    (pkg / "c.py").write_text("from . import a\n")
    graph = import_graph(pkg)
    assert graph["runners.a"] == {"runners.b"} and graph["runners.b"] == set()
    assert graph["runners.c"] == {"runners.a"}
    assert find_cycle(graph) is None
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from runners.c import C\ndef g(): ...\n"
    )
    assert find_cycle(import_graph(pkg)) == ["runners.a", "runners.b", "runners.c", "runners.a"]


def test_no_runner_imports_the_engine_when_it_loads():
    """The engine drives runners; a runner module importing it back would tie every framework to
    the engine's own imports (only `Runner.run`, the API shortcut, reaches it when called)."""
    for path in (PACKAGE / "frameworks").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
        names = {
            alias.name for node in top_level if isinstance(node, ast.Import) for alias in node.names
        }
        names |= {node.module or "" for node in top_level if isinstance(node, ast.ImportFrom)}
        assert "runners.engine.protocol" not in names, (
            f"{path.relative_to(PACKAGE.parent)} imports runners.engine.protocol"
        )
