"""runners.scan: what it flags, that it stays quiet on ordinary code, and that it is bounded."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml
from support import make_problem, make_submission, write_files

from runners import EnvironmentSpec, run_checkpoint
from runners.frameworks.registry import builtin_protected, runner_class
from runners.scan import MAX_FILES, PREFIX, Protected, scan_submission

from .problems import REPO


def flags_of(
    tmp_path: Path, files: dict[str, str], entry: str = "main", protected: Protected | None = None
) -> list[str]:
    """The flags a run of any built-in framework could raise (unless `protected` says which)."""
    write_files(tmp_path / "sub", files)
    return scan_submission(
        tmp_path / "sub", entry, builtin_protected() if protected is None else protected
    )


EXAMPLES = sorted(REPO.glob("examples/submissions/*/*/checkpoint_*"))


@pytest.mark.parametrize("submission", EXAMPLES, ids=lambda p: "/".join(p.parts[-3:]))
def test_no_flag_on_the_example_submissions(submission: Path) -> None:
    config = yaml.safe_load(
        (REPO / "problems" / submission.parent.name / "config.yaml").read_text()
    )
    assert scan_submission(submission, config.get("entry_file", ""), builtin_protected()) == []


def test_the_examples_exist() -> None:
    assert len(EXAMPLES) >= 9


FLAGGED = [
    (
        {
            "hostile_plugin.py": "import pytest\n\n"
            "@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_runtest_makereport(item, call):\n"
            "    yield\n"
        },
        "main",
        [
            (
                "hostile_plugin.py:4 pytest_runtest_makereport: a pytest hook; registered as a "
                "plugin, it rewrites"
            )
        ],
    ),
    (
        {"calc.py": "import _pytest.reports\n"},
        "main",
        ["calc.py:1 imports _pytest: the test framework's internals"],
    ),
    (
        {"calc.py": "import os\n\ndef f():\n    os._exit(0)\n"},
        "main",
        [
            (
                "calc.py:4 os._exit in library code: ends the test process before it writes its "
                "report (no grade)"
            )
        ],
    ),
    (
        {"calc.py": "class A:\n    def __eq__(self, other):\n        return True\n"},
        "main",
        ["calc.py:2 __eq__ always True: equal to any expected value"],
    ),
    (
        {"calc.py": "class A:\n    __eq__ = lambda self, other: True\n"},
        "main",
        ["calc.py:2 __eq__ always True"],
    ),
    (
        {"calc.py": "import sys\nf = sys._getframe(1).f_locals\n"},
        "main",
        [
            (
                "calc.py:2 reads or rewrites a frame's variables (.f_locals): the test's "
                "expected values included"
            )
        ],
    ),
    (
        {"calc.py": "def load():\n    __tracebackhide__ = True\n    return open('x').read()\n"},
        "main",
        ["calc.py:2 __tracebackhide__: hides its frames from pytest's tracebacks"],
    ),
    (
        {"calc.py": "import sys\nsys._getframe(1).f_globals['EXPECTED'] = 5\n"},
        "main",
        ["calc.py:2 rewrites a frame's module globals (.f_globals)"],
    ),
    (
        {"calc.py": "import inspect\ninspect.currentframe().f_back.f_globals.update(x=1)\n"},
        "main",
        ["calc.py:2 rewrites a frame's module globals (.f_globals)"],
    ),
    (
        {"calc.py": "import sys\nsys.settrace(lambda *a: None)\n"},
        "main",
        ["calc.py:2 sys.settrace: sees and can rewrite every frame of the test process"],
    ),
    (
        {"calc.py": "import gc\nobjects = gc.get_objects()\n"},
        "main",
        ["calc.py:2 gc.get_objects: can find and change"],
    ),
    (
        {"calc.py": "import sys\nsys.meta_path.insert(0, object())\n"},
        "main",
        ["calc.py:2 installs an import hook (sys.meta_path): can replace what the tests import"],
    ),
    (
        {"calc.py": "import time\ntime.time = lambda: 0\n"},
        "main",
        ["calc.py:2 replaces time.time: the tests' own calls to it get another object"],
    ),
    (
        {"calc.py": "import builtins\nbuiltins.print = None\n"},
        "main",
        ["calc.py:2 replaces builtins.print"],
    ),
    (
        {"calc.py": "import subprocess\nsubprocess.run = None\n"},
        "main",
        ["calc.py:2 replaces subprocess.run"],
    ),
    (
        {"calc.py": "import sys\nsys.modules['pytest'] = None\n"},
        "main",
        [
            (
                "calc.py:2 replaces the module 'pytest' in sys.modules: every later import of it "
                "gets another object"
            )
        ],
    ),
    (
        {"calc.py": "import unittest\nsetattr(unittest.TestCase, 'assertEqual', None)\n"},
        "main",
        ["calc.py:2 replaces an attribute of unittest.TestCase"],
    ),
    (
        {"main.py": "open('/harness/tests/test_checkpoint_1.py')\n"},
        "main",
        ["main.py:1 names the hidden tests: can read what they expect"],
    ),
    (
        {"calc.py": "import sys\nk = sys.modules['runners_pytest_plugin']._key\n"},
        "main",
        ["calc.py:2 names the harness's report plugin: where the report's key is kept"],
    ),
    ({"x.pth": "import os\n"}, "main", ["x.pth a .pth file: runs code at interpreter start"]),
    (
        {"sitecustomize.py": "x = 1\n"},
        "main",
        ["sitecustomize.py an interpreter start-up hook: runs before pytest"],
    ),
    (
        {"pytest.py": "x = 1\n"},
        "main",
        ["pytest.py shadows the grader's module pytest: imported instead of it"],
    ),
    (
        {"lib.mjs": "export const x = 1;\nprocess.exit(0);\n"},
        "main.js",
        [
            (
                "lib.mjs:2 process.exit in library code: ends the test worker before its report "
                "(no grade)"
            )
        ],
    ),
    (
        {"lib.js": "const { expect } = require('@jest/globals');\nexpect.extend({});\n"},
        "main.js",
        [
            "lib.js:1 imports @jest/globals: the test framework",
            "lib.js:2 expect.extend: changes how the assertions compare",
        ],
    ),
    (
        {"lib.mjs": "Object.is = () => true;\nexport {};\n"},
        "main.js",
        ["lib.mjs:1 replaces Object.is: a built-in the assertions use"],
    ),
    (
        {"lib.mjs": "globalThis.expect.extend({});\n"},
        "main.js",
        ["lib.mjs:1 expect.extend", "lib.mjs:1 touches the test framework's global expect"],
    ),
]


def _has(flags: list[str], what: str) -> bool:
    return any(flag.startswith(f"{PREFIX}: {what}") for flag in flags)


@pytest.mark.parametrize(
    "files, entry, expected",
    FLAGGED,
    ids=[e[-1][0].split(":")[0] + ":" + e[-1][0].split(" ")[1] for e in FLAGGED],
)
def test_grader_touching_code_is_flagged_saying_what_it_can_do(
    tmp_path: Path, files: dict, entry: str, expected: list[str]
) -> None:
    flags = flags_of(tmp_path, files, entry)
    for what in expected:
        assert _has(flags, what), flags
    assert all(": " in flag.split(" ", 2)[-1] for flag in flags), flags  # each says what it can do


QUIET = [
    {
        "main.py": "import sys\n\n"
        "def main():\n"
        "    return 0\n\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(main())\n"
    },
    {"main.py": "import sys\nsys.exit(2)\n"},  # a CLI may exit where it likes
    # ... and so may library code: pytest turns SystemExit into an error of the test that called it
    {
        "cli.py": "import sys\n\ndef main():\n    return 0\n\nsys.exit(main())\n",
        "calc.py": "raise SystemExit(1)\n",
    },
    {"main.js": "const args = process.argv.slice(2);\nif (!args.length) process.exit(2);\n"},
    {"main.js": "// process.exit(0) in a comment\nconsole.log(Object.is(1, 1));\n"},
    {
        "tests/test_mine.py": "import pytest, sys\n\ndef test_x():\n    sys.exit(0)\n"
    },  # its own tests
    {
        "lib/util.js": "export function pad(s) { return s.padStart(2); }\n",
        "main.js": "import './lib/util.js';\n",
    },
    {
        "calc.py": "class Money:\n"
        "    def __eq__(self, other):\n"
        "        return self.cents == other.cents\n"
    },
    {"README.md": "run `pytest` and see 5 passed\n", "data.json": '{"expect": 1}'},
    # What real libraries do (boltons, attrs, click, the standard library's namedtuple): read the
    # call stack, name a class after its caller's module, install a debugging excepthook, wrap their
    # own module, swap stdout for a while, print a summary.
    {
        "named.py": "import sys\n\n"
        "def make(cls):\n"
        "    cls.__module__ = sys._getframe(1).f_globals.get('__name__', "
        "'__main__')\n"
    },
    {
        "tb.py": "import sys\n\n"
        "def stack(f=None):\n"
        "    f = f or sys._getframe(1)\n"
        "    out = []\n"
        "    while f is not None:\n"
        "        out.append((f.f_code.co_filename, f.f_lineno, "
        "f.f_globals.get('__name__')))\n"
        "        f = f.f_back\n"
        "    return out\n\n"
        "def frames(tb):\n"
        "    return [t.tb_frame for t in [tb]]\n"
    },
    {
        "version.py": "import inspect\n\n"
        "def caller_package():\n"
        "    frame = inspect.currentframe()\n"
        "    f_back = frame.f_back if frame is not None else None\n"
        "    return f_back.f_globals.get('__name__') if f_back is not None else "
        "None\n"
    },
    {
        "debug.py": "import sys, pdb\n\n"
        "def pdb_on_exception():\n"
        "    sys.excepthook = lambda *a: pdb.pm()\n"
    },
    {
        "deprecate.py": "import sys\n\n"
        "def wrap(name):\n"
        "    sys.modules[name] = Wrapper(sys.modules[name])\n\n"
        "sys.modules[__name__] = Wrapper(sys.modules[__name__])\n"
    },
    {
        "isolation.py": "import io, sys\n\n"
        "def run():\n"
        "    old = sys.stdout\n"
        "    sys.stdout = io.StringIO()\n"
        "    sys.stdout._original_fd = 1\n"
        "    sys.stdout = old\n"
    },
    {"main.py": "print('===== 5 passed in 0.01s =====')\n"},  # grades never come from output
    {
        "src/reporter.js": "export function report(rows) { return rows.join('\\n'); }\n",
        "main.js": "\n",
    },
]
# Ordinary configuration of an upstream repository, which the harness never reads (it passes its
# own, and a repository problem removes the submission's): no flag for being there.
ORDINARY_CONFIG = [
    {
        "pyproject.toml": "[project]\n"
        "name = 'x'\n\n"
        "[tool.pytest.ini_options]\n"
        "addopts = '-v --doctest-modules'\n"
    },
    {
        "pytest.ini": "[pytest]\naddopts = -ra\n",
        "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\nxfail_strict = true\n",
        "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n",
    },
    {"tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n"},
    # a conftest's hooks and a pytest11 entry point: never loaded (tests outside, autoloading off)
    {
        "conftest.py": "import os, pytest\n\n"
        "@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    yield\n\n"
        "os._exit(0)\n",
        "pyproject.toml": "[project.entry-points.pytest11]\nx = 'x'\n",
    },
    {
        "jest.config.js": "module.exports = { preset: 'ts-jest', testEnvironment: 'node' };\n",
        ".babelrc": '{"presets": ["@babel/preset-env"], "plugins": ["macros"]}\n',
        "babel.config.cjs": "module.exports = { presets: [['@babel/preset-env', { targets: { "
        "node: 'current' } }]] };\n",
    },
    {
        "vitest.config.ts": "import { defineConfig } from 'vitest/config';\n"
        "export default defineConfig({ test: { environment: 'node' } "
        "});\n",
        "tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
    },
    {
        "package.json": '{"name": "dedent", "jest": {"testEnvironment": "node"}, "babel": '
        '{"presets": ["@babel/preset-env"]}}'
    },
]


@pytest.mark.parametrize("files", QUIET, ids=range(len(QUIET)))
def test_ordinary_code_is_not_flagged(tmp_path: Path, files: dict) -> None:
    entry = "main.js" if any(name.endswith(".js") for name in files) else "main"
    assert flags_of(tmp_path, files, entry) == []


@pytest.mark.parametrize("files", ORDINARY_CONFIG, ids=lambda f: ",".join(f))
def test_ordinary_configuration_the_harness_ignores_is_not_flagged(
    tmp_path: Path, files: dict
) -> None:
    assert flags_of(tmp_path, files, "") == []


def test_the_scan_is_bounded_and_never_raises(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    for n in range(MAX_FILES + 50):
        (sub / f"m{n}.py").write_text("x = 1\n")
    (sub / "deep.py").write_text("x = " + "+".join(["a"] * 100_000) + "\n")
    (sub / "nul.py").write_bytes(b"import _pytest\x00\xff\n")
    (sub / "big.py").write_text("import _pytest\n" + "#" * (2 * 1024 * 1024))
    os.symlink("/etc", sub / "etc-link")
    os.symlink(REPO / "tests" / "conftest.py", sub / "conftest-link.py")
    started = time.monotonic()
    flags = scan_submission(sub, "main", protected=builtin_protected())
    assert time.monotonic() - started < 10
    assert flags == [f"{PREFIX}: . scan stopped after {MAX_FILES} files"]


def test_the_engine_puts_the_flags_on_the_result(tmp_path: Path) -> None:
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "def test_x():\n    pass\n"})
    sub = make_submission(tmp_path, {"main.py": "print(1)\n", "calc.py": "import _pytest\n"})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert _has(result.flags, "calc.py:1 imports _pytest: the test framework's internals")
    assert result.pass_counts  # a flag warns; it does not change the grade


def test_what_is_protected_comes_from_the_run_s_runner(tmp_path: Path) -> None:
    """A name only another framework's harness uses is ordinary text for this run's."""
    files = {"calc.py": "REPORT = 'vitest-report.json'\nimport _pytest\n"}
    vitest = flags_of(tmp_path / "v", files, protected=runner_class("vitest").protected())
    assert len(vitest) == 1 and _has(vitest, "calc.py:1 names the harness's report files")
    pytest_flags = flags_of(tmp_path / "p", files, protected=runner_class("pytest").protected())
    assert len(pytest_flags) == 1 and _has(pytest_flags, "calc.py:2 imports _pytest")
