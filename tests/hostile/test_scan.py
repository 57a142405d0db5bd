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


def flags_of(tmp_path: Path, files: dict[str, str], entry: str = "main",
             protected: Protected | None = None) -> list[str]:
    """The flags a run of any built-in framework could raise (unless `protected` says which)."""
    write_files(tmp_path / "sub", files)
    return scan_submission(tmp_path / "sub", entry, tmp_path / "sub",
                           builtin_protected() if protected is None else protected)


EXAMPLES = sorted(REPO.glob("examples/submissions/*/*/checkpoint_*"))


@pytest.mark.parametrize("submission", EXAMPLES, ids=lambda p: "/".join(p.parts[-3:]))
def test_no_flag_on_the_example_submissions(submission: Path) -> None:
    config = yaml.safe_load((REPO / "problems" / submission.parent.name / "config.yaml").read_text())
    assert scan_submission(submission, config.get("entry_file", ""), submission, builtin_protected()) == []


def test_the_examples_exist() -> None:
    assert len(EXAMPLES) >= 9


FLAGGED = [
    ({"conftest.py": "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    yield\n"},
     "main", ["conftest.py:4 pytest_runtest_makereport"]),
    ({"calc.py": "import _pytest.reports\n"}, "main", ["calc.py:1 imports _pytest"]),
    ({"calc.py": "import sys\nsys.exit(0)\n"}, "main", ["calc.py:2 sys.exit in library code"]),
    ({"calc.py": "import os\n\ndef f():\n    os._exit(0)\n"}, "main", ["calc.py:4 os._exit"]),
    ({"calc.py": "raise SystemExit\n"}, "main", ["calc.py:1 SystemExit in library code"]),
    ({"calc.py": "class A:\n    def __eq__(self, other):\n        return True\n"}, "main",
     ["calc.py:2 __eq__ always True"]),
    ({"calc.py": "class A:\n    __eq__ = lambda self, other: True\n"}, "main", ["calc.py:2 __eq__ always True"]),
    ({"calc.py": "import sys\nf = sys._getframe(1).f_locals\n"}, "main",
     ["calc.py:2 sys._getframe", "calc.py:2 frame access .f_locals"]),
    ({"calc.py": "import time\ntime.time = lambda: 0\n"}, "main", ["calc.py:2 replaces time.time"]),
    ({"calc.py": "import builtins\nbuiltins.print = None\n"}, "main", ["calc.py:2 replaces builtins.print"]),
    ({"calc.py": "import sys\nsys.modules['x'] = None\n"}, "main", ["calc.py:2 replaces an entry of sys.modules"]),
    ({"calc.py": "import unittest\nsetattr(unittest.TestCase, 'assertEqual', None)\n"}, "main",
     ["calc.py:2 replaces an attribute of unittest.TestCase"]),
    ({"main.py": "print('===== 5 passed in 0.01s =====')\n"}, "main", ["main.py:1 fake test summary"]),
    ({"main.py": "open('/harness/tests/test_checkpoint_1.py')\n"}, "main", ["main.py:1 names the hidden tests"]),
    ({"calc.py": "import sys\nk = sys.modules['runners_pytest_plugin']._key\n"}, "main",
     ["calc.py:2 names the harness's report plugin"]),
    ({"x.pth": "import os\n"}, "main", ["x.pth a .pth file (runs at interpreter start)"]),
    ({"sitecustomize.py": "x = 1\n"}, "main", ["sitecustomize.py an interpreter start-up hook"]),
    ({"pyproject.toml": "[project.entry-points.pytest11]\nx = 'x'\n"}, "main", ["pyproject.toml:1 declares a pytest11 plugin"]),
    ({"pytest.py": "x = 1\n"}, "main", ["pytest.py shadows the grader's module pytest"]),
    ({"my-reporter.mjs": "export default class R {}\n"}, "main.js", ["my-reporter.mjs a test reporter"]),
    ({"lib.mjs": "export const x = 1;\nprocess.exit(0);\n"}, "main.js", ["lib.mjs:2 process.exit in library code"]),
    ({"lib.js": "const { expect } = require('@jest/globals');\nexpect.extend({});\n"}, "main.js",
     ["lib.js:1 imports @jest/globals", "lib.js:2 expect.extend"]),
    ({"lib.mjs": "Object.is = () => true;\nexport {};\n"}, "main.js", ["lib.mjs:1 replaces Object.is"]),
    ({"lib.mjs": "globalThis.expect.extend({});\n"}, "main.js",
     ["lib.mjs:1 expect.extend", "lib.mjs:1 touches the test framework's global expect"]),
]


@pytest.mark.parametrize("files, entry, expected", FLAGGED, ids=[e[-1][0] for e in FLAGGED])
def test_grader_touching_code_is_flagged(tmp_path: Path, files: dict, entry: str, expected: list[str]) -> None:
    flags = flags_of(tmp_path, files, entry)
    for what in expected:
        assert f"{PREFIX}: {what}" in flags, flags


QUIET = [
    {"main.py": "import sys\n\ndef main():\n    return 0\n\nif __name__ == '__main__':\n    sys.exit(main())\n"},
    {"main.py": "import sys\nsys.exit(2)\n"},  # a CLI may exit where it likes
    {"main.js": "const args = process.argv.slice(2);\nif (!args.length) process.exit(2);\n"},
    {"main.js": "// process.exit(0) in a comment\nconsole.log(Object.is(1, 1));\n"},
    {"tests/test_mine.py": "import pytest, sys\n\ndef test_x():\n    sys.exit(0)\n"},  # its own tests
    {"lib/util.js": "export function pad(s) { return s.padStart(2); }\n", "main.js": "import './lib/util.js';\n"},
    {"calc.py": "class Money:\n    def __eq__(self, other):\n        return self.cents == other.cents\n"},
    {"README.md": "run `pytest` and see 5 passed\n", "data.json": '{"expect": 1}'},
]
# Ordinary configuration of an upstream repository, which the harness never reads (it passes its
# own, and a repository problem removes the submission's): no flag for being there.
ORDINARY_CONFIG = [
    {"pyproject.toml": "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\naddopts = '-v --doctest-modules'\n"},
    {"pytest.ini": "[pytest]\naddopts = -ra\n", "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\nxfail_strict = true\n",
     "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\n"},
    {"tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n"},
    {"jest.config.js": "module.exports = { preset: 'ts-jest', testEnvironment: 'node' };\n",
     ".babelrc": '{"presets": ["@babel/preset-env"], "plugins": ["macros"]}\n',
     "babel.config.cjs": "module.exports = { presets: [['@babel/preset-env', { targets: { node: 'current' } }]] };\n"},
    {"vitest.config.ts": "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { environment: 'node' } });\n",
     "tsconfig.json": '{"compilerOptions": {"strict": true}}\n'},
    {"package.json": '{"name": "dedent", "jest": {"testEnvironment": "node"}, "babel": {"presets": ["@babel/preset-env"]}}'},
]


@pytest.mark.parametrize("files", QUIET, ids=range(len(QUIET)))
def test_ordinary_code_is_not_flagged(tmp_path: Path, files: dict) -> None:
    entry = "main.js" if any(name.endswith(".js") for name in files) else "main"
    assert flags_of(tmp_path, files, entry) == []


@pytest.mark.parametrize("files", ORDINARY_CONFIG, ids=lambda f: ",".join(f))
def test_ordinary_configuration_the_harness_ignores_is_not_flagged(tmp_path: Path, files: dict) -> None:
    assert flags_of(tmp_path, files, "") == []


def test_shipped_node_modules_are_flagged_even_though_never_copied(tmp_path: Path) -> None:
    original = tmp_path / "original"
    write_files(original, {"node_modules/vitest/index.js": "export {}\n", "main.js": "\n"})
    copy = tmp_path / "copy"
    write_files(copy, {"main.js": "\n"})
    assert scan_submission(copy, "main.js", original) == [f"{PREFIX}: node_modules/ shipped (never copied into the run)"]


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
    sub = make_submission(tmp_path, {"main.py": "print(1)\n", "conftest.py": "def pytest_configure(config):\n    pass\n"})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert f"{PREFIX}: conftest.py:1 pytest_configure" in result.flags
    assert result.pass_counts  # a flag warns; it does not change the grade


def test_what_is_protected_comes_from_the_run_s_runner(tmp_path: Path) -> None:
    """A name only another framework's harness uses is ordinary text for this run's."""
    files = {"calc.py": "REPORT = 'vitest-report.json'\nimport _pytest\n"}
    vitest = flags_of(tmp_path / "v", files, protected=runner_class("vitest").protected())
    assert vitest == [f"{PREFIX}: calc.py:1 names the harness's report files"]
    pytest_flags = flags_of(tmp_path / "p", files, protected=runner_class("pytest").protected())
    assert pytest_flags == [f"{PREFIX}: calc.py:2 imports _pytest"]
