"""A grade blames the right party (issue 24): a broken problem is a problem error, never every
agent's failure; a submission cannot pass its own failure off as the problem's.

- `problem-*`: the honest submission against a problem whose own files are broken (a test file's
  syntax error, a module its tests import that is not installed, a data file it reads that is
  missing, a conftest that fails as pytest starts, a vitest file that does not parse, a jest file
  that requires a missing helper). Each run is a PROBLEM (no grade) naming the file and line.
- `fake-*`: submissions of `hostile_lib`, whose test file imports the submission as it loads. A
  failing submission makes that load fail and dresses the failure up as the problem's (a
  SyntaxError naming the test file, a missing data file of the tests, a missing test dependency):
  each must stay a graded failure of the test file (FAIL), with the submission's frames showing.
"""

from __future__ import annotations

from .cases import FAIL, HONEST, PASS, PROBLEM, Case

HONEST_JS = {
    "vitest": {
        "calc.mjs": "export function add(a, b) {\n"
        "  if (typeof a !== 'number') throw new TypeError('a');\n"
        "  return a + b;\n"
        "}\n"
        "export function sub(a, b) { return a - b; }\n"
    },
    "jest": {
        "calc.js": "function add(a, b) {\n  if (typeof a !== 'number') throw new TypeError('a');\n"
        "  return a + b;\n}\nfunction sub(a, b) { return a - b; }\nmodule.exports = { add, sub };\n"
    },
}

# Raised from the submission's module as the problem's test file imports it. It finds the real
# path of the test file that imports it (a frame up the stack), as an adversary would.
FAKE_PRELUDE = """
import sys


def _test_file():
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_filename.endswith("test_checkpoint_1.py"):
            return frame.f_code.co_filename
        frame = frame.f_back
    return "tests/test_checkpoint_1.py"


_TEST_FILE = _test_file()
"""
FAKES = {
    "fake-problem-syntax-error": (
        "raises a SyntaxError that names the problem's test file, line 1",
        'raise SyntaxError("invalid syntax", (_TEST_FILE, 1, 1, "def test(:"))\n',
    ),
    "fake-missing-data-file": (
        "raises FileNotFoundError for a data file beside the problem's tests",
        (
            "import os\nraise FileNotFoundError(2, 'No such file or directory', "
            "os.path.join(os.path.dirname(_TEST_FILE), 'data', 'cases.json'))\n"
        ),
    ),
    "fake-missing-test-dependency": (
        "raises ModuleNotFoundError for a module the tests would need",
        "raise ModuleNotFoundError(\"No module named 'hypothesis'\", name='hypothesis')\n",
    ),
}
LOAD_FAILED = {"tests/test_checkpoint_1.py (collection error)": "error"}

BLAME_CASES = [
    Case(
        "problem-test-syntax-error",
        "issue 24",
        "the honest submission; the problem's test file has a syntax error",
        dict(HONEST),
        frozenset({PROBLEM}),
        "runners.engine.blame: the SyntaxError names a file of the problem's "
        "(our pytest plugin records it); no grade, the file and line named",
        framework="pytest-broken-syntax",
        reason=r"tests/test_checkpoint_1\.py, line \d+: SyntaxError",
        wall=60,
    ),
    Case(
        "problem-missing-module",
        "issue 24",
        "the honest submission; the problem's tests import a module that is not installed",
        dict(HONEST),
        frozenset({PROBLEM}),
        "runners.engine.blame: a missing module the submission "
        "could not have provided (it was not on sys.path) is the problem's",
        framework="pytest-broken-import",
        reason=r"tests/test_checkpoint_1\.py, line 1: ModuleNotFoundError: No module named "
        r"'hypothesis_not_installed'",
        wall=60,
    ),
    Case(
        "problem-missing-data-file",
        "issue 23 (I)",
        "the honest submission; the problem's tests read a data file "
        "the problem lacks (SCBench's trajectory_api 4-5)",
        dict(HONEST),
        frozenset({PROBLEM}),
        "runners.engine.blame: every frame is the problem's; no graded placeholder",
        framework="pytest-broken-data",
        reason=r"tests/test_checkpoint_1\.py, line 2: FileNotFoundError: .*tests/data/cases\.json",
        wall=60,
    ),
    Case(
        "problem-conftest-error",
        "issue 24",
        "the honest submission; the problem's conftest fails as pytest "
        "starts (pytest exits 4 before any report)",
        dict(HONEST),
        frozenset({PROBLEM}),
        "our plugin records the conftest's failure beside the report; runners.engine.blame",
        framework="pytest-broken-conftest",
        reason=r"tests/conftest\.py, line \d+: ModuleNotFoundError: No module named "
        r"'yaml_not_installed'",
        wall=60,
    ),
    Case(
        "problem-vitest-syntax-error",
        "issue 24",
        "the honest submission; the problem's vitest file does not parse",
        HONEST_JS["vitest"],
        frozenset({PROBLEM}),
        "our vitest reporter keeps the load error's file and line; runners.engine.blame",
        framework="vitest-broken-syntax",
        reason=r"tests/checkpoint_1\.test\.js, line 1",
        wall=90,
    ),
    Case(
        "problem-jest-missing-helper",
        "issue 24",
        "the honest submission; the problem's jest file requires a helper the problem lacks",
        HONEST_JS["jest"],
        frozenset({PROBLEM}),
        "jest's message names the importer and the path; runners.engine.blame",
        framework="jest-broken-import",
        reason=r"helpers-missing\.js",
        wall=90,
    ),
    Case(
        "lib-honest",
        "issue 24",
        "the control: a correct library, imported as the test file loads",
        {
            "main.py": "print('unused')\n",
            "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        },
        frozenset({PASS}),
        "",
        framework="pytest-lib",
        wall=60,
    ),
    Case(
        "lib-syntax-error",
        "issue 24",
        "a library with a syntax error (merely broken)",
        {"main.py": "print('unused')\n", "calc.py": "def add(a, b:\n    return a + b\n"},
        frozenset({FAIL}),
        "its file is the submission's: a graded error of the test file",
        framework="pytest-lib",
        statuses=LOAD_FAILED,
        broken=True,
        wall=60,
    ),
    *(
        Case(
            case_id,
            "issue 24",
            f"a failing library that {title}",
            {"main.py": "print('unused')\n", "calc.py": FAKE_PRELUDE + body},
            frozenset({FAIL}),
            "the traceback runs through the submission's module (our plugin records every frame; "
            "a missing module counts as the submission's while it is on sys.path): graded, not a "
            "problem error",
            framework="pytest-lib",
            statuses=LOAD_FAILED,
            wall=60,
        )
        for case_id, (title, body) in FAKES.items()
    ),
]
