"""Python in a submission: what the interpreter or pytest would load on their own (start-up
hooks, `.pth` files, pytest plugins, modules named like the grader's), and code that patches,
exits or inspects frames where library code has no business doing so.

Configuration the harness never reads is not flagged for being there: a `conftest.py` (never
loaded: the tests sit outside the submission, or, in a repository problem, the submission's are
removed), pytest settings in `pytest.ini`, `tox.ini`, `setup.cfg` or `pyproject.toml` (pytest gets
`-c`). What such a file would make pytest load is code, and code is read (a conftest's hooks are
flagged like any other file's).

Read with `ast`: nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

from runners.scan.core import Finding, LanguageScan, ScanInput, is_entry, lines

# Modules whose attributes a submission replaces to fool the tests (time.time, sys.stdout, ...).
PATCHED_BASES = {"builtins", "__builtins__", "sys", "time", "datetime", "os", "posix", "subprocess",
                 "unittest", "pytest", "_pytest", "signal", "atexit", "importlib", "inspect", "gc"}
INTROSPECTION = {"sys._getframe": "sys._getframe", "inspect.currentframe": "inspect.currentframe",
                 "inspect.stack": "inspect.stack", "inspect.getouterframes": "inspect.getouterframes",
                 "gc.get_referrers": "gc.get_referrers", "gc.get_objects": "gc.get_objects",
                 "sys.settrace": "sys.settrace", "sys.setprofile": "sys.setprofile",
                 "threading.settrace": "threading.settrace", "ctypes.pythonapi": "ctypes.pythonapi"}
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "tb_frame"}
EXITS = {"sys.exit", "exit", "quit", "os._exit", "posix._exit", "os.abort"}
PYTHON_SUFFIXES = frozenset({".py", ".pyw"})
_TEST_FILE = re.compile(r"^(test_.+|.+_test)\.py$")


class PythonScan(LanguageScan):
    suffixes = PYTHON_SUFFIXES | {".pth"}
    file_names = frozenset({"pyproject.toml", "setup.cfg", "entry_points.txt"})

    def by_name(self, rel: PurePosixPath, given: ScanInput) -> list[Finding]:
        name = rel.name
        found = []
        if name in ("sitecustomize.py", "usercustomize.py"):
            found.append(Finding(str(rel), None, "an interpreter start-up hook"))
        elif rel.suffix == ".pth":
            found.append(Finding(str(rel), None, "a .pth file (runs at interpreter start)"))
        if len(rel.parts) == 1 and rel.suffix == ".py":
            module = rel.stem
        elif len(rel.parts) == 2 and name == "__init__.py":
            module = rel.parts[0]
        else:
            module = ""
        protected = given.protected
        shadowed = protected.grader_modules | protected.modules
        if protected.grader_modules:
            shadowed |= {"pytest", "py"}
        if module in shadowed:
            found.append(Finding(str(rel), None, f"shadows the grader's module {module}"))
        return found

    def by_content(self, rel: PurePosixPath, text: str, given: ScanInput) -> list[Finding]:
        name, suffix = rel.name, rel.suffix.lower()
        found: list[Finding] = []
        if name in ("entry_points.txt", "setup.py", "setup.cfg", "pyproject.toml"):
            found += [Finding(str(rel), n, "declares a pytest11 plugin") for n, line in lines(text) if "pytest11" in line]
        if suffix == ".pth":
            found += [Finding(str(rel), n, "imports code at interpreter start") for n, line in lines(text)
                      if line.startswith("import")]
        if suffix in PYTHON_SUFFIXES:
            found += _python(rel, text, given)
        return found


def _is_test_code(rel: PurePosixPath) -> bool:
    """The submission's own tests (never run by the harness); conftest.py is not among them."""
    if rel.name == "conftest.py":
        return False
    return bool(_TEST_FILE.match(rel.name)) or any(p in ("tests", "test") for p in rel.parts[:-1])


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _returns_constant(body: list[ast.stmt], value: bool) -> bool:
    statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return (len(statements) == 1 and isinstance(statements[0], ast.Return)
            and isinstance(statements[0].value, ast.Constant) and statements[0].value.value is value)


class _PythonVisitor(ast.NodeVisitor):
    def __init__(self, rel: PurePosixPath, library: bool, test_code: bool, given: ScanInput) -> None:
        self.rel, self.library, self.test_code = str(rel), library, test_code
        self.grader_modules, self.harness_modules = given.protected.grader_modules, given.protected.modules
        self.found: list[Finding] = []
        self.depth = 0  # functions and classes around the current node
        self.guarded = 0  # inside `if __name__ == "__main__":`

    @property
    def at_import(self) -> bool:
        """Code that runs when the module is imported (a CLI's main function may exit: that
        exits only the program that calls it)."""
        return not self.depth and not self.guarded

    def add(self, node: ast.AST, what: str) -> None:
        self.found.append(Finding(self.rel, getattr(node, "lineno", None), what))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name.startswith("pytest_") and not self.test_code:
            self.add(node, node.name)
        if node.name == "__eq__" and _returns_constant(node.body, True):
            self.add(node, "__eq__ always True")
        if node.name == "__ne__" and _returns_constant(node.body, False):
            self.add(node, "__ne__ always False")
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_If(self, node: ast.If) -> None:
        if _is_main_guard(node):
            self.guarded += 1
            self.generic_visit(node)
            self.guarded -= 1
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and not node.level:
            self._module(node, node.module)
        self.generic_visit(node)

    def _module(self, node: ast.AST, name: str) -> None:
        root = name.split(".")[0]
        if root in self.grader_modules:
            self.add(node, f"imports {root}")
        elif root in self.harness_modules:
            self.add(node, "names the harness's report plugin")
        elif root == "pytest" and self.grader_modules and self.library and not self.test_code and not self.rel.endswith("conftest.py"):
            self.add(node, "imports pytest in library code")

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        if name in EXITS and not self.test_code:
            if name in ("os._exit", "posix._exit", "os.abort") and (self.library or (not self.depth and not self.guarded)):
                self.add(node, name)
            elif name not in ("os._exit", "posix._exit", "os.abort") and self.library and self.at_import:
                self.add(node, f"{name} in library code")
        if name in INTROSPECTION and not self.test_code:
            self.add(node, INTROSPECTION[name])
        if name in ("setattr", "delattr") and node.args and not self.test_code:
            target = _dotted(node.args[0])
            if target and target.split(".")[0] in PATCHED_BASES:
                self.add(node, f"replaces an attribute of {target}")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if exc is not None and _dotted(exc) in ("SystemExit", "builtins.SystemExit") and self.library \
                and self.at_import and not self.test_code:
            self.add(node, "SystemExit in library code")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FRAME_ATTRIBUTES and not self.test_code:
            self.add(node, f"frame access .{node.attr}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node)
        if (any(isinstance(t, ast.Name) and t.id == "__eq__" for t in node.targets)
                and isinstance(node.value, ast.Lambda) and isinstance(node.value.body, ast.Constant)
                and node.value.body.value is True):
            self.add(node, "__eq__ always True")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node)
        self.generic_visit(node)

    def _target(self, target: ast.AST, node: ast.AST) -> None:
        if self.test_code:
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, node)
            return
        if isinstance(target, ast.Attribute):
            name = _dotted(target)
            if name and name.split(".")[0] in PATCHED_BASES:
                self.add(node, f"replaces {name}")
        elif isinstance(target, ast.Subscript):
            name = _dotted(target.value)
            if name in ("sys.modules", "__builtins__", "builtins.__dict__"):
                self.add(node, f"replaces an entry of {name}")


def _python(rel: PurePosixPath, text: str, given: ScanInput) -> list[Finding]:
    test_code = _is_test_code(rel)
    # `python -m pkg` runs pkg/__main__.py: an entry point, whatever the problem's entry file.
    library = not is_entry(rel, given.entry_file, ".py") and rel.name != "__main__.py"
    try:
        tree = ast.parse(text, filename=str(rel))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return given.strings(rel, list(lines(text)))  # cannot be imported, but say what it names
    visitor = _PythonVisitor(rel, library, test_code, given)
    try:
        visitor.visit(tree)
    except RecursionError:
        visitor.found.append(Finding(str(rel), None, "nested too deeply to scan"))
    strings = [(node.lineno, node.value) for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return visitor.found + ([] if test_code else given.strings(rel, strings))
