"""Python in a submission: what can change a grade from inside the test process, each flag
saying what it can do.

What the interpreter would run on its own (a start-up hook, a `.pth` file, a module named like
the grader's), code that reaches the test framework's internals, makes any value compare equal,
reads or rewrites the test's frames, finds objects through the collector, replaces what the tests
call (built-ins, `time`, `subprocess`, a module in `sys.modules`, an import hook), ends the test
process before its report, or names the hidden tests, the report files or the report plugin.

What cannot change a grade is not flagged, however unusual in library code: `sys.exit` (pytest
turns SystemExit into a test error), reading the call stack (tracebacks, `__module__` of a class
made by a factory), replacing `sys.excepthook` or `sys.stdout`, a module wrapping its own
`sys.modules` entry, a fake test summary on stdout (grades never come from output), pytest hooks
in a `conftest.py` or a `pytest11` entry point (never loaded: the tests sit outside the
submission, plugin autoloading is off), pytest settings in `pytest.ini`, `tox.ini`, `setup.cfg`
or `pyproject.toml` (pytest gets `-c`).

Read with `ast`: nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

from runners.scan.core import Finding, LanguageScan, ScanInput, is_entry, lines

# Modules whose attributes a submission replaces to fool the tests (time.time, subprocess.run, ...).
PATCHED_BASES = {
    "builtins",
    "__builtins__",
    "sys",
    "time",
    "datetime",
    "os",
    "posix",
    "subprocess",
    "unittest",
    "pytest",
    "_pytest",
    "signal",
    "atexit",
    "importlib",
    "inspect",
    "gc",
}
# ... but not these of `sys`: no test reads them to decide an outcome.
HARMLESS_SYS = {
    "excepthook",
    "displayhook",
    "unraisablehook",
    "breakpointhook",
    "ps1",
    "ps2",
    "tracebacklimit",
    "stdout",
    "stderr",
    "stdin",
    "dont_write_bytecode",
}
REPLACED = "the tests' own calls to it get another object"
INTROSPECTION = {
    "gc.get_referrers": "can find and change any object of the test process (its report, its key)",
    "gc.get_objects": "can find and change any object of the test process (its report, its key)",
    "sys.settrace": "sees and can rewrite every frame of the test process",
    "sys.setprofile": "sees every call of the test process",
    "threading.settrace": "sees and can rewrite every frame of the test process's threads",
    "ctypes.pythonapi": "can rewrite the interpreter's frames and objects",
}
IMPORT_HOOKS = {"sys.meta_path", "sys.path_hooks"}
# Calls that change a frame's globals (a frame's `.f_globals.update(...)`).
MUTATORS = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
ENDS = {"os._exit", "posix._exit", "os.abort"}
NO_GRADE = "ends the test process before it writes its report (no grade)"
PYTHON_SUFFIXES = frozenset({".py", ".pyw"})
_TEST_FILE = re.compile(r"^(test_.+|.+_test)\.py$")


class PythonScan(LanguageScan):
    suffixes = PYTHON_SUFFIXES

    def by_name(self, rel: PurePosixPath, given: ScanInput) -> list[Finding]:
        name = rel.name
        found = []
        if name in ("sitecustomize.py", "usercustomize.py"):
            found.append(
                Finding(
                    str(rel),
                    None,
                    "an interpreter start-up hook: runs before pytest wherever its "
                    "directory is on the import path (a repository's is)",
                )
            )
        elif rel.suffix == ".pth":
            found.append(
                Finding(
                    str(rel),
                    None,
                    "a .pth file: runs code at interpreter start where it is installed",
                )
            )
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
            found.append(
                Finding(
                    str(rel),
                    None,
                    f"shadows the grader's module {module}: imported instead of it "
                    "where the submission comes first on the import path",
                )
            )
        return found

    def by_content(self, rel: PurePosixPath, text: str, given: ScanInput) -> list[Finding]:
        return _python(rel, text, given) if rel.suffix.lower() in PYTHON_SUFFIXES else []


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
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _returns_constant(body: list[ast.stmt], value: bool) -> bool:
    statements = [
        s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return (
        len(statements) == 1
        and isinstance(statements[0], ast.Return)
        and isinstance(statements[0].value, ast.Constant)
        and statements[0].value.value is value
    )


class _PythonVisitor(ast.NodeVisitor):
    def __init__(
        self, rel: PurePosixPath, library: bool, test_code: bool, given: ScanInput
    ) -> None:
        self.rel, self.library, self.test_code = str(rel), library, test_code
        self.conftest = rel.name == "conftest.py"  # never loaded by the harness
        self.grader_modules, self.harness_modules = (
            given.protected.grader_modules,
            given.protected.modules,
        )
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
        if node.name.startswith("pytest_") and not self.test_code and not self.conftest:
            self.add(
                node,
                f"{node.name}: a pytest hook; registered as a plugin, it rewrites what pytest "
                "reports",
            )
        if node.name == "__eq__" and _returns_constant(node.body, True):
            self.add(node, "__eq__ always True: equal to any expected value")
        if node.name == "__ne__" and _returns_constant(node.body, False):
            self.add(node, "__ne__ always False: equal to any expected value")
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
            self.add(
                node, f"imports {root}: the test framework's internals, which decide the outcomes"
            )
        elif root in self.harness_modules:
            self.add(node, "names the harness's report plugin: where the report's key is kept")
        elif (
            root == "pytest"
            and self.grader_modules
            and self.library
            and not self.test_code
            and not self.conftest
        ):
            self.add(node, "imports pytest in library code: can reach the running test session")

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        if self.test_code or self.conftest:
            self.generic_visit(node)
            return
        if name in ENDS and (self.library or self.at_import):
            self.add(node, f"{name} in library code: {NO_GRADE}")
        if name in INTROSPECTION:
            self.add(node, f"{name}: {INTROSPECTION[name]}")
        if name in ("setattr", "delattr") and node.args:
            target = _dotted(node.args[0])
            if target and _patchable(
                target, _constant(node.args[1]) if len(node.args) > 1 else None
            ):
                self.add(node, f"replaces an attribute of {target}: {REPLACED}")
        if isinstance(node.func, ast.Attribute):
            owner = _dotted(node.func.value)
            if owner in IMPORT_HOOKS and node.func.attr in (
                "insert",
                "append",
                "extend",
                "__setitem__",
            ):
                self.add(
                    node, f"installs an import hook ({owner}): can replace what the tests import"
                )
            if node.func.attr in MUTATORS and _frame_attribute(node.func.value) == "f_globals":
                self.add(
                    node,
                    "rewrites a frame's module globals (.f_globals): the test's names included",
                )
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "f_locals" and not self.test_code and not self.conftest:
            self.add(
                node,
                "reads or rewrites a frame's variables (.f_locals): the test's expected values "
                "included",
            )
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node)
        if (
            any(isinstance(t, ast.Name) and t.id == "__eq__" for t in node.targets)
            and isinstance(node.value, ast.Lambda)
            and isinstance(node.value.body, ast.Constant)
            and node.value.body.value is True
        ):
            self.add(node, "__eq__ always True: equal to any expected value")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node)
        self.generic_visit(node)

    def _target(self, target: ast.AST, node: ast.AST) -> None:
        if self.test_code or self.conftest:
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, node)
            return
        if isinstance(target, ast.Name) and target.id == "__tracebackhide__":
            self.add(
                node,
                "__tracebackhide__: hides its frames from pytest's tracebacks, so that a failure "
                "it causes can look like the problem's (runners.engine.blame)",
            )
        elif isinstance(target, ast.Attribute):
            name = _dotted(target)
            if name in IMPORT_HOOKS:
                self.add(node, f"replaces {name}: can replace what the tests import")
            elif name and _patchable(name):
                self.add(node, f"replaces {name}: {REPLACED}")
        elif isinstance(target, ast.Subscript):
            name = _dotted(target.value)
            key = _constant(target.slice)
            if name in ("__builtins__", "builtins.__dict__"):
                self.add(node, f"replaces an entry of {name}: {REPLACED}")
            elif name == "sys.modules" and isinstance(key, str):
                # A module wrapping its own entry (`sys.modules[__name__] = ...`) changes nothing of
                # the tests'.
                self.add(
                    node,
                    f"replaces the module {key!r} in sys.modules: every later import of it gets "
                    "another object",
                )
            elif _frame_attribute(target.value) == "f_globals":
                self.add(
                    node,
                    "rewrites a frame's module globals (.f_globals): the test's names included",
                )


def _patchable(name: str, attribute: object = None) -> bool:
    """Whether replacing `name` (a dotted name) or its `attribute` can fool the tests."""
    parts = name.split(".")
    if parts[0] not in PATCHED_BASES:
        return False
    if parts[0] == "sys":
        first = parts[1] if len(parts) > 1 else attribute
        return first not in HARMLESS_SYS
    return True


def _constant(node: ast.AST) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _frame_attribute(node: ast.AST) -> str | None:
    """`f_globals` / `f_locals` when `node` is `<something>.f_globals` (a frame's namespace)."""
    return (
        node.attr
        if isinstance(node, ast.Attribute) and node.attr in ("f_globals", "f_locals")
        else None
    )


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
    strings = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    return visitor.found + ([] if test_code else given.strings(rel, strings))
