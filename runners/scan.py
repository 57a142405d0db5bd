"""Static scan of a submission for grader-touching code: what a sandbox cannot stop, flagged.

The sandbox keeps a submission away from the host, the network, the hidden tests' files and the
report. It cannot keep it out of the *test process* when the tests import it (a library problem):
there, code can patch `_pytest`, vitest's or jest's `expect`, `Object.is`, take the report key, or
exit 0 before the asserts run. Those runs are graded as usual; this scan reads the submission copy
and says what in it touches the grader, as flags on the result:

    grader-touching: conftest.py:3 pytest_runtest_makereport
    grader-touching: calc.py:1 imports _pytest
    grader-touching: node_modules/ shipped (never copied into the run)

Flags warn, they do not change the grade. The scan is bounded (file count, bytes per file, bytes in
all) and never executes or imports anything from the submission.
"""

from __future__ import annotations

import ast
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

PREFIX = "grader-touching"
MAX_FILES = 2000
MAX_FILE_BYTES = 512 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_SECONDS = 5.0
MAX_FLAGS = 25
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".pytest_cache",
             ".mypy_cache", ".ruff_cache"}

PY_SUFFIXES = {".py", ".pyw"}
JS_SUFFIXES = {".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"}

# Modules of the test process a submission has no business importing or shadowing.
GRADER_MODULES = {"_pytest", "pluggy", "pytest_jsonreport", "ctrf", "pytest_metadata", "pytest_timeout",
                  "xdist"}
HARNESS_MODULES = {"runners_pytest_plugin", "runners_report_signature"}
SHADOWED = GRADER_MODULES | HARNESS_MODULES | {"pytest", "py", "conftest"}
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

JS_CONFIG = re.compile(r"^(?:(?:vitest|vite)\.(?:config|workspace|projects)|jest\.(?:config|setup|preset)|"
                       r"vitest\.setup|setupTests|babel\.config|jest-preset)(?:\.[\w-]+)*$|^\.babelrc")
JS_REPORTER = re.compile(r"reporter", re.IGNORECASE)
TEST_FRAMEWORKS = r"vitest|@vitest/[\w./-]+|jest|@jest/[\w./-]+|expect|jest-circus|jest-jasmine2|chai"
JS_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)["'](?P<m>{TEST_FRAMEWORKS})["']"""),
     "imports {m}"),
    (re.compile(r"""["'][^"']*node_modules/(?P<m>vitest|jest|expect|@vitest|@jest)\b"""),
     "imports the test framework's files ({m})"),
    (re.compile(r"\bexpect\s*\.\s*(?P<m>extend|addSnapshotSerializer|addEqualityTesters)\b"), "expect.{m}"),
    (re.compile(r"\b(?P<m>(?:Object|Array|Function|Reflect|JSON|Math|Number|String|Promise|Error|Symbol)"
                r"(?:\.prototype)?\.\w+)\s*=(?!=)"), "replaces {m}"),
    (re.compile(r"\b(?:globalThis|global)\s*\.\s*(?P<m>expect|test|it|describe|vi|jest|__vitest\w*|chai)\b"),
     "touches the test framework's global {m}"),
    (re.compile(r"""Symbol\.for\(\s*["'](?P<m>\$\$jest[\w-]*|expect[\w-]*)"""), "touches {m}"),
    (re.compile(r"\b(?P<m>__vitest_\w+)"), "touches {m}"),
]
JS_EXIT = re.compile(r"\bprocess\s*\.\s*(?P<m>exit|reallyExit|abort)\s*\(|\bprocess\.kill\(\s*process\.pid")
JS_EXPORTS = re.compile(r"^\s*export\s|\bmodule\.exports\b|\bexports\.\w+\s*=", re.MULTILINE)

# Strings that only grader-touching code needs.
STRING_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"=+\s*\d+ (?:passed|failed)\b|\b\d+ passed in \d|^PASSED \S+::|\bTests:\s+\d+ passed"),
     "fake test summary"),
    (re.compile(r"/harness/tests\b|\btest_checkpoint_\d|\bcheckpoint_\d+\.(?:test|spec)\."),
     "names the hidden tests"),
    (re.compile(r"/harness/reports\b|(?:pytest|ctrf|vitest|jest)-report\.json|\.runners-report-key|"
                r"RUNNERS_REPORT_KEY"), "names the harness's report files"),
    (re.compile(r"\brunners_(?:pytest_plugin|report_signature)\b"), "names the harness's report plugin"),
]


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    what: str

    def flag(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{PREFIX}: {where} {self.what}"


def scan_submission(root: Path, entry_file: str | None = None, original: Path | None = None) -> list[str]:
    """Flags for what in the submission copy at `root` touches the grader; [] for ordinary code.

    `entry_file` is the problem's entry file (a CLI may exit, a library may not); `original` is the
    submission as given, looked at only for what the copy leaves out (a shipped node_modules).
    """
    try:
        findings = scan(Path(root), entry_file, Path(original) if original else None)
    except Exception as exc:  # noqa: BLE001 - advisory: a scan that fails must never stop the grading
        return [f"{PREFIX}: the scan failed ({type(exc).__name__}: {exc})"[:300]]
    flags: list[str] = []
    for finding in findings:
        flag = finding.flag()
        if flag not in flags:
            flags.append(flag)
    if len(flags) > MAX_FLAGS:
        flags = flags[:MAX_FLAGS] + [f"{PREFIX}: ... and {len(flags) - MAX_FLAGS} more"]
    return flags


def scan(root: Path, entry_file: str | None = None, original: Path | None = None) -> list[Finding]:
    findings: list[Finding] = []
    if original is not None:
        findings += _shipped(original)
    started = time.monotonic()
    seen = total = 0
    for path in _files(root):
        seen += 1
        if seen > MAX_FILES or total > MAX_TOTAL_BYTES or time.monotonic() - started > MAX_SECONDS:
            findings.append(Finding(".", None, f"scan stopped after {seen - 1} files"))
            break
        rel = PurePosixPath(path.relative_to(root).as_posix())
        findings += _by_name(rel)
        suffix = rel.suffix.lower()
        wanted = suffix in PY_SUFFIXES or suffix in JS_SUFFIXES or rel.name in (
            "package.json", "pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "setup.py",
            "entry_points.txt") or suffix == ".pth"
        if not wanted:
            continue
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if size > MAX_FILE_BYTES:
            continue
        total += size
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        findings += _by_content(rel, text, entry_file)
    return findings


def _files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if path.is_file() and not path.is_symlink():
                yield path


def _shipped(original: Path) -> list[Finding]:
    found = []
    for candidate in [original / "node_modules", *sorted(original.glob("*/node_modules"))[:20]]:
        if candidate.is_dir() and not candidate.is_symlink():
            rel = candidate.relative_to(original).as_posix()
            found.append(Finding(f"{rel}/", None, "shipped (never copied into the run)"))
    return found


def _by_name(rel: PurePosixPath) -> list[Finding]:
    name, top = rel.name, len(rel.parts) == 1
    found = []
    if name == "conftest.py":
        found.append(Finding(str(rel), None, "a pytest conftest"))
    elif name in ("sitecustomize.py", "usercustomize.py"):
        found.append(Finding(str(rel), None, "an interpreter start-up hook"))
    elif rel.suffix == ".pth":
        found.append(Finding(str(rel), None, "a .pth file (runs at interpreter start)"))
    elif JS_CONFIG.match(name):
        found.append(Finding(str(rel), None, "test runner configuration"))
    elif rel.suffix.lower() in JS_SUFFIXES and JS_REPORTER.search(name):
        found.append(Finding(str(rel), None, "a test reporter"))
    if top and rel.suffix == ".py":
        module = rel.stem
    elif len(rel.parts) == 2 and name == "__init__.py":
        module = rel.parts[0]
    else:
        module = ""
    if module in SHADOWED - {"conftest"}:
        found.append(Finding(str(rel), None, f"shadows the grader's module {module}"))
    return found


def _by_content(rel: PurePosixPath, text: str, entry_file: str | None) -> list[Finding]:
    name, suffix = rel.name, rel.suffix.lower()
    found: list[Finding] = []
    if name in ("entry_points.txt", "setup.py", "setup.cfg", "pyproject.toml"):
        found += [Finding(str(rel), n, "declares a pytest11 plugin") for n, line in _lines(text) if "pytest11" in line]
    if name == "pytest.ini" or (name in ("tox.ini", "setup.cfg") and re.search(r"^\[(?:tool:)?pytest\]", text, re.MULTILINE)) \
            or (name == "pyproject.toml" and "[tool.pytest" in text):
        line = next((n for n, l in _lines(text) if "pytest" in l and l.lstrip().startswith("[")), None)
        found.append(Finding(str(rel), line, "pytest configuration"))
    if name == "package.json":
        found += _package_json(rel, text)
    if suffix == ".pth":
        found += [Finding(str(rel), n, "imports code at interpreter start") for n, line in _lines(text)
                  if line.startswith("import")]
    if suffix in PY_SUFFIXES:
        found += _python(rel, text, entry_file)
    elif suffix in JS_SUFFIXES:
        found += _javascript(rel, text, entry_file)
    return found


def _lines(text: str):
    return enumerate(text.splitlines(), start=1)


def _package_json(rel: PurePosixPath, text: str) -> list[Finding]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    found = []
    for key in ("jest", "vitest", "babel", "mocha", "ava"):
        if key in data:
            found.append(Finding(str(rel), None, f"test runner configuration ({key} key)"))
    if re.fullmatch(TEST_FRAMEWORKS, str(data.get("name", ""))):
        found.append(Finding(str(rel), None, f"a package named {data['name']!r}, like the test framework"))
    for key in ("imports", "exports", "browser", "overrides", "resolutions"):
        if key in data and re.search(TEST_FRAMEWORKS, json.dumps(data[key])):
            found.append(Finding(str(rel), None, f"{key} remap the test framework"))
    return found


def _is_test_code(rel: PurePosixPath) -> bool:
    """The submission's own tests (never run by the harness); conftest.py is not among them."""
    if rel.name == "conftest.py":
        return False
    return bool(re.match(r"^(test_.+|.+_test)\.py$", rel.name)) or any(p in ("tests", "test") for p in rel.parts[:-1])


def _is_entry(rel: PurePosixPath, entry_file: str | None, extension: str) -> bool:
    if not entry_file:
        return False
    entry = entry_file if PurePosixPath(entry_file).suffix else f"{entry_file}{extension}"
    return str(rel) == str(PurePosixPath(entry))


def _strings(rel: PurePosixPath, values: list[tuple[int, str]]) -> list[Finding]:
    found = []
    for line, value in values:
        for pattern, what in STRING_PATTERNS:
            if pattern.search(value):
                found.append(Finding(str(rel), line, what))
    return found


# ---- Python -------------------------------------------------------------------------------------


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


class _PythonScan(ast.NodeVisitor):
    def __init__(self, rel: PurePosixPath, library: bool, test_code: bool) -> None:
        self.rel, self.library, self.test_code = str(rel), library, test_code
        self.found: list[Finding] = []
        self.depth = 0  # functions and classes around the current node
        self.guarded = 0  # inside `if __name__ == "__main__":`

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
        if root in GRADER_MODULES:
            self.add(node, f"imports {root}")
        elif root in HARNESS_MODULES:
            self.add(node, "names the harness's report plugin")
        elif root == "pytest" and self.library and not self.test_code and not self.rel.endswith("conftest.py"):
            self.add(node, "imports pytest in library code")

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        if name in EXITS and not self.test_code:
            if name in ("os._exit", "posix._exit", "os.abort") and (self.library or (not self.depth and not self.guarded)):
                self.add(node, name)
            elif name not in ("os._exit", "posix._exit", "os.abort") and self.library:
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
        if exc is not None and _dotted(exc) in ("SystemExit", "builtins.SystemExit") and self.library and not self.test_code:
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


def _python(rel: PurePosixPath, text: str, entry_file: str | None) -> list[Finding]:
    test_code = _is_test_code(rel)
    library = not _is_entry(rel, entry_file, ".py")
    try:
        tree = ast.parse(text, filename=str(rel))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _strings(rel, list(_lines(text)))  # cannot be imported, but say what it names
    visitor = _PythonScan(rel, library, test_code)
    try:
        visitor.visit(tree)
    except RecursionError:
        visitor.found.append(Finding(str(rel), None, "nested too deeply to scan"))
    strings = [(node.lineno, node.value) for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return visitor.found + ([] if test_code else _strings(rel, strings))


# ---- JavaScript and TypeScript ----------------------------------------------------------------------

_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(r"(^|[\s;{}()])//.*$", re.MULTILINE)


def _javascript(rel: PurePosixPath, text: str, entry_file: str | None) -> list[Finding]:
    if any(p in ("test", "tests", "__tests__") for p in rel.parts[:-1]) or re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", rel.name):
        return []  # the submission's own tests: never run by the harness
    code = _BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    code = _LINE_COMMENT.sub(lambda m: m.group(1), code)
    library = not _is_entry(rel, entry_file, ".js") or bool(JS_EXPORTS.search(code))
    found: list[Finding] = []
    for number, line in _lines(code):
        for pattern, what in JS_PATTERNS:
            for match in pattern.finditer(line):
                found.append(Finding(str(rel), number, what.format(**match.groupdict())))
        exit_call = JS_EXIT.search(line)
        if exit_call and library:
            found.append(Finding(str(rel), number, f"process.{exit_call.group('m') or 'kill'} in library code"))
    strings = [(n, line) for n, line in _lines(code) if '"' in line or "'" in line or "`" in line]
    return found + _strings(rel, strings)
