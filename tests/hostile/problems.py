"""The three small problems every hostile submission is graded against.

- `hostile_calc` (pytest): `main.py add|sub A B` prints the result (three CLI tests, run through
  the entrypoint in a subprocess) and `calc.add` is imported *into the pytest process* by the
  `calc` fixture (one library test, first in the file, so a library that tampers with pytest at
  import time does so before the other tests run). A second checkpoint holds a hidden test file
  the checkpoint-1 run must never see.
- `hostile_vitest` / `hostile_jest`: a library `calc.mjs` / `calc.js` imported by the tests from
  `RUNNERS_ENTRY_FILE` (in the test worker's process, which is what the JS in-process cases need).
- `hostile_repo_pytest` / `hostile_repo_vitest` / `hostile_repo_jest` (kind: repository): the same
  library in a repository; the problem's tests and the configuration it trusts (`pytest.ini` and
  `tests/conftest.py`, `vitest.config.mjs`, `jest.config.cjs`) are laid over it at their paths, and
  the tests import it by name or relative path.

The JS problems reuse the example problems' `package.json` + lock (vitest 4, jest 30), so their
toolchains come from the same cache as the rest of the project's tests.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]

PY_CONFTEST = '''
import importlib
import os
import shlex
import sys

import pytest


def pytest_addoption(parser):
    parser.addoption("--entrypoint", action="store", required=True)
    parser.addoption("--checkpoint", action="store", required=True)


@pytest.fixture(scope="session")
def entrypoint_argv(request):
    return shlex.split(request.config.getoption("--entrypoint"))


@pytest.fixture
def calc():
    """The submission's library, imported into this (the pytest) process."""
    path = os.environ["SUBMISSION_PATH"]
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module("calc")
'''

PY_TESTS = """
import subprocess

import pytest


def run(argv, *args):
    return subprocess.run([*argv, *args], capture_output=True, timeout=20)


def text(data):
    return data.decode("utf-8", "replace").strip()


def test_add_library(calc):
    assert calc.add(2, 3) == 5


def test_add_cli(entrypoint_argv):
    out = run(entrypoint_argv, "add", "2", "3")
    assert out.returncode == 0 and text(out.stdout) == "5", text(out.stderr)[-800:]


def test_sub_cli(entrypoint_argv):
    out = run(entrypoint_argv, "sub", "5", "3")
    assert out.returncode == 0 and text(out.stdout) == "2", text(out.stderr)[-800:]


@pytest.mark.error
def test_rejects_words(entrypoint_argv):
    out = run(entrypoint_argv, "add", "two", "3")
    assert out.returncode != 0, text(out.stdout)[-800:]
"""

# Never copied into a checkpoint_1 run: the read-secrets cases look for it everywhere.
PY_HIDDEN_TESTS = """
HIDDEN_ANSWER = "@@HIDDEN@@"


def test_multiply(entrypoint_argv):
    assert HIDDEN_ANSWER
"""

VITEST_TESTS = """
import { expect, test } from "vitest";
import { pathToFileURL } from "node:url";

const load = () => import(pathToFileURL(process.env.RUNNERS_ENTRY_FILE).href);

test("adds", async () => {
  const { add } = await load();
  expect(add(2, 3)).toBe(5);
});

test("subtracts", async () => {
  const { sub } = await load();
  expect(sub(5, 3)).toBe(2);
});

test("rejects words @error", async () => {
  const { add } = await load();
  expect(() => add("two", 3)).toThrow();
});
"""

JEST_TESTS = """
const load = () => require(process.env.RUNNERS_ENTRY_FILE);

test("adds", () => {
  expect(load().add(2, 3)).toBe(5);
});

test("subtracts", () => {
  expect(load().sub(5, 3)).toBe(2);
});

test("rejects words @error", () => {
  expect(() => load().add("two", 3)).toThrow();
});
"""

REPO_PY_CONFTEST = """
import pytest


@pytest.fixture
def calc():
    import calc  # the repository's module, by name

    return calc
"""

REPO_PY_TESTS = """
import pytest


def test_add(calc):
    assert calc.add(2, 3) == 5


def test_sub(calc):
    assert calc.sub(5, 3) == 2


@pytest.mark.error
def test_rejects_words(calc):
    with pytest.raises(TypeError):
        calc.add("two", 3)
"""

REPO_JS_TESTS = """
import { expect, test } from "vitest";
import { add, sub } from "../calc.mjs";

test("adds", () => {
  expect(add(2, 3)).toBe(5);
});

test("subtracts", () => {
  expect(sub(5, 3)).toBe(2);
});

test("rejects words @error", () => {
  expect(() => add("two", 3)).toThrow();
});
"""

# The trusted configuration each repository problem lays at the paths submissions try to take.
REPO_OVERLAYS = {
    "pytest": {
        "pytest.ini": "[pytest]\nxfail_strict = true\n",
        "tests/conftest.py": REPO_PY_CONFTEST,
        "tests/test_calc.py": REPO_PY_TESTS,
    },
    "vitest": {
        "vitest.config.mjs": 'export default { test: { environment: "node" } };\n',
        "test/calc.test.mjs": REPO_JS_TESTS,
    },
    "jest": {
        "jest.config.cjs": 'module.exports = { testEnvironment: "node" };\n',
        "__tests__/calc.test.js": JEST_TESTS.replace(
            "require(process.env.RUNNERS_ENTRY_FILE)", 'require("../calc.js")'
        ),
    },
}
REPO_TESTS = {
    "pytest": "tests/test_calc.py",
    "vitest": "test/calc.test.mjs",
    "jest": "__tests__/calc.test.js",
}

# name of each problem's tests and how many tests a complete run reports
TEST_NAMES = {
    "pytest": ("test_add_library", "test_add_cli", "test_sub_cli", "test_rejects_words"),
    "vitest": ("adds", "subtracts", "rejects words @error"),
    "jest": ("adds", "subtracts", "rejects words @error"),
    "repo-pytest": ("test_add", "test_sub", "test_rejects_words"),
    "repo-vitest": ("adds", "subtracts", "rejects words @error"),
    "repo-jest": ("adds", "subtracts", "rejects words @error"),
}
PY_FRAMEWORKS = ("pytest", "repo-pytest")  # Python's limits
NODE_FRAMEWORKS = ("vitest", "jest", "repo-vitest", "repo-jest")  # the cases that need node
TOOLCHAIN_FROM = {
    "vitest": REPO / "problems" / "text_layout",
    "jest": REPO / "problems" / "calc_cli",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _config(root: Path, data: dict) -> None:
    root.mkdir(parents=True, exist_ok=True)
    base = {"version": 1, "description": "a problem for hostile submissions", "tags": ["hostile"]}
    (root / "config.yaml").write_text(
        yaml.safe_dump({**base, **data}, sort_keys=False), encoding="utf-8"
    )


def build_problems(base: Path, hidden: str) -> dict[str, Path]:
    """Write the three problems under `base`; returns {framework: problem dir}."""
    problems: dict[str, Path] = {}
    py = base / "hostile_calc"
    _config(
        py,
        {
            "name": "hostile_calc",
            "entry_file": "main",
            "timeout": 20,
            "checkpoints": {"checkpoint_1": {"version": 1}, "checkpoint_2": {"version": 1}},
        },
    )
    _write(
        py / "tests",
        {
            "conftest.py": PY_CONFTEST,
            "test_checkpoint_1.py": PY_TESTS,
            "test_checkpoint_2.py": PY_HIDDEN_TESTS.replace("@@HIDDEN@@", hidden),
        },
    )
    problems["pytest"] = py
    for framework, tests, entry in (
        ("vitest", VITEST_TESTS, "calc.mjs"),
        ("jest", JEST_TESTS, "calc.js"),
    ):
        root = base / f"hostile_{framework}"
        _config(
            root,
            {
                "name": f"hostile_{framework}",
                "entry_file": entry,
                "framework": framework,
                "timeout": 20,
                "checkpoints": {"checkpoint_1": {"version": 1}},
            },
        )
        _write(root / "tests", {"checkpoint_1.test.js": tests})
        for name in ("package.json", "package-lock.json"):
            shutil.copy(TOOLCHAIN_FROM[framework] / name, root / name)
        problems[framework] = root
    for framework, files in REPO_OVERLAYS.items():
        root = base / f"hostile_repo_{framework}"
        _config(
            root,
            {
                "name": f"hostile_repo_{framework}",
                "kind": "repository",
                "framework": framework,
                "timeout": 20,
                "checkpoints": {"checkpoint_1": {"version": 1, "tests": [REPO_TESTS[framework]]}},
            },
        )
        _write(root / "overlay", files)
        if framework in TOOLCHAIN_FROM:
            for name in ("package.json", "package-lock.json"):
                shutil.copy(TOOLCHAIN_FROM[framework] / name, root / name)
        problems[f"repo-{framework}"] = root
    problems.update(build_case_problems(base, hidden))
    problems.update(build_broken_problems(base))
    return problems


# ---- problems that are broken themselves, and one that imports the submission as it loads -------
# Each is hostile_calc (or hostile_vitest / hostile_jest) with one thing wrong in the problem's own
# files: graded, every submission would fail, so the run must be a problem error naming the file
# and line. `pytest-lib` imports the submission while its test file loads, so a submission can
# make that load fail, and must not pass its own failure off as the problem's.

LIB_TESTS = """
import os
import sys

sys.path.insert(0, os.environ["SUBMISSION_PATH"])
from calc import add, sub  # noqa: E402 - the submission, imported as this file loads


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(5, 3) == 2
"""

BROKEN = {  # framework -> (base framework, {file: content} over the base problem's tests)
    "pytest-broken-syntax": (
        "pytest",
        {"test_checkpoint_1.py": PY_TESTS + "\n\ndef test_broken(:\n    pass\n"},
    ),
    "pytest-broken-import": (
        "pytest",
        {"test_checkpoint_1.py": "import hypothesis_not_installed\n" + PY_TESTS},
    ),
    "pytest-broken-data": (
        "pytest",
        {
            "test_checkpoint_1.py": "import json, pathlib\nCASES = json.loads((pathlib.Path("
            "__file__).parent / 'data' / 'cases.json').read_text())\n" + PY_TESTS
        },
    ),
    "pytest-broken-conftest": (
        "pytest",
        {"conftest.py": PY_CONFTEST + "\nimport yaml_not_installed\n"},
    ),
    "vitest-broken-syntax": (
        "vitest",
        {"checkpoint_1.test.js": "const broken = (;\n" + VITEST_TESTS},
    ),
    "jest-broken-import": (
        "jest",
        {"checkpoint_1.test.js": 'require("./helpers-missing.js");\n' + JEST_TESTS},
    ),
}
BASE_FRAMEWORK = {name: base for name, (base, _) in BROKEN.items()} | {"pytest-lib": "pytest"}
TEST_NAMES.update({name: TEST_NAMES[base] for name, (base, _) in BROKEN.items()})
TEST_NAMES["pytest-lib"] = ("test_add", "test_sub")
PY_FRAMEWORKS += tuple(name for name, base in BASE_FRAMEWORK.items() if base == "pytest")
NODE_FRAMEWORKS += tuple(
    name for name, base in BASE_FRAMEWORK.items() if base in ("vitest", "jest")
)


def build_broken_problems(base: Path) -> dict[str, Path]:
    problems: dict[str, Path] = {}
    sources = {
        "pytest": base / "hostile_calc",
        "vitest": base / "hostile_vitest",
        "jest": base / "hostile_jest",
    }
    for framework, (origin, files) in BROKEN.items():
        root = base / f"hostile_{framework.replace('-', '_')}"
        shutil.copytree(sources[origin], root)
        config = yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8"))
        config.update(name=root.name, checkpoints={"checkpoint_1": {"version": 1}})
        (root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        for name in [
            p.name
            for p in (root / "tests").iterdir()
            if p.name.startswith(("test_checkpoint_2", "checkpoint_2"))
        ]:
            (root / "tests" / name).unlink()
        _write(root / "tests", files)
        problems[framework] = root
    lib = base / "hostile_lib"
    _config(
        lib,
        {
            "name": "hostile_lib",
            "entry_file": "main",
            "timeout": 20,
            "checkpoints": {"checkpoint_1": {"version": 1}},
        },
    )
    _write(lib / "tests", {"conftest.py": PY_CONFTEST, "test_checkpoint_1.py": LIB_TESTS})
    problems["pytest-lib"] = lib
    return problems


# ---- case-based problems (framework `cases`): a CLI, an HTTP API and a web page ----------------
# The same arithmetic as hostile_calc. Every case file carries the session's hidden marker (the
# checkpoint-2 one too, never copied into a checkpoint-1 run): a submission that can read the
# case files, or the expected outputs in them, finds it.

CASES_CLI = {
    "checkpoint_1/core/add_cli.yaml": "# @@HIDDEN@@\ncase: {args: [add, '2', '3']}\nexpected: "
    '{status_code: 0, output: "5\\n"}\n',
    "checkpoint_1/core/sub_cli.yaml": "# @@HIDDEN@@\ncase: {args: [sub, '5', '3']}\nexpected: "
    '{status_code: 0, output: "2\\n"}\n',
    "checkpoint_1/errors/rejects_words.yaml": "# @@HIDDEN@@\n"
    "case: {args: [add, two, '3']}\n"
    "expected: {status_code: 2}\n",
    "checkpoint_2/core/multiply.yaml": "# @@HIDDEN@@\ncase: {args: [mul, '2', '3']}\nexpected: "
    '{output: "6\\n"}\n',
}
CASES_API = {
    "checkpoint_1/core/add_api.yaml": "# @@HIDDEN@@\n"
    "case: {path: /add, query: {a: 2, b: 3}}\n"
    "expected: {status_code: 200, output: {result: 5}}\n",
    "checkpoint_1/core/sub_api.yaml": "# @@HIDDEN@@\n"
    "case: {path: /sub, query: {a: 5, b: 3}}\n"
    "expected: {status_code: 200, output: {result: 2}}\n",
    "checkpoint_1/errors/rejects_words_api.yaml": "# @@HIDDEN@@\n"
    "case: {path: /add, query: {a: two, b: "
    "3}}\n"
    "expected: {status_code: 400}\n",
    "checkpoint_2/core/mul_api.yaml": "# @@HIDDEN@@\n"
    "case: {path: /mul, query: {a: 2, b: 3}}\n"
    "expected: {output: {result: 6}}\n",
}
_SUM_STEPS = (
    "case:\n"
    "  steps:\n"
    "    - fill: {{selector: '#a', value: '{a}'}}\n"
    "    - fill: {{selector: '#b', value: '{b}'}}\n"
    "    - click: '#go'\n"
    "    - wait: {{selector: '#out', text: '{s}'}}\n"
    "    - text: {{selector: '#out', as: sum}}\n"
    "expected: {{output: {{sum: '{s}'}}}}\n"
)
CASES_WEB = {
    "checkpoint_1/core/sum_page.yaml": "# @@HIDDEN@@\n" + _SUM_STEPS.format(a=2, b=3, s=5),
    "checkpoint_1/core/sum_negative.yaml": "# @@HIDDEN@@\n" + _SUM_STEPS.format(a=-2, b=3, s=1),
    "checkpoint_2/core/sum_hidden.yaml": "# @@HIDDEN@@\n" + _SUM_STEPS.format(a=7, b=7, s=14),
}
TEST_NAMES.update(
    {
        "cases-cli": ("add_cli", "sub_cli", "rejects_words"),
        "cases-api": ("add_api", "sub_api", "rejects_words_api"),
        "cases-browser": ("sum_page", "sum_negative"),
    }
)
CASE_ADAPTERS = {
    "cases-cli": ("main", {"type": "cli"}, 10, CASES_CLI),
    "cases-api": (
        "server",
        {
            "type": "api",
            "health_path": "/healthz",
            "startup_timeout_s": 5,
            "response_is_json": True,
        },
        3,
        CASES_API,
    ),
    "cases-browser": (
        "app",
        {
            "type": "browser",
            "health_path": "/healthz",
            "startup_timeout_s": 5,
            "default_timeout_ms": 3000,
        },
        20,
        CASES_WEB,
    ),
}


def build_case_problems(base: Path, hidden: str) -> dict[str, Path]:
    problems: dict[str, Path] = {}
    for framework, (entry, adapter, timeout, files) in CASE_ADAPTERS.items():
        root = base / f"hostile_{framework.replace('-', '_')}"
        groups = (
            {"core": {"type": "Core"}, "errors": {"type": "Error"}}
            if framework != "cases-browser"
            else {"core": {"type": "Core"}}
        )
        _config(
            root,
            {
                "name": root.name,
                "entry_file": entry,
                "framework": "cases",
                "timeout": timeout,
                "adapter": adapter,
                "checkpoints": {
                    "checkpoint_1": {"version": 1, "groups": groups},
                    "checkpoint_2": {"version": 1, "groups": {"core": {"type": "Core"}}},
                },
            },
        )
        _write(root, {rel: text.replace("@@HIDDEN@@", hidden) for rel, text in files.items()})
        problems[framework] = root
    return problems
