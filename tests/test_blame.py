"""A grade blames the right party: a problem whose own files fail to load is a problem error (no
grade, its file and line named, exit 4), a submission that breaks the load stays a graded failure.

The rules are checked on the words each framework really uses (texts taken from real runs), then
end to end on real pytest, vitest and jest runs, hidden-suite and repository problems alike.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import SCBENCH_CONFTEST, make_problem, make_submission, need_sandbox, write_files

from runners import EnvironmentSpec, run_checkpoint
from runners.cli import main
from runners.engine.blame import Places, facts_from_text, problem_fault, problem_faults
from runners.model.policy import PassPolicy
from runners.model.records import LoadError, RawRecord
from runners.model.results import ExecutionResult

PROBLEMS = Path(__file__).resolve().parents[1] / "problems"
# As the sandbox sees a suite run under docker or bubblewrap.
SUITE = Places(
    submission="/workspace",
    problem={"/harness/tests": "tests", "/harness/config": "(config)"},
    bases=("/harness", "/workspace"),
)
REPO = Places(
    submission="/workspace",
    problem={
        "/harness/config": "(config)",
        "/workspace/tests/test_calc.py": "overlay/tests/test_calc.py",
    },
    bases=("/workspace", "/workspace"),
    repository=True,
)


def _record(
    text: str = "", facts: LoadError | None = None, raw: str = "collection_error"
) -> RawRecord:
    return RawRecord(
        id="tests/x",
        name="x",
        status="error",
        raw_status=raw,
        collection_error=True,
        message=text,
        load_error=facts,
    )


# ---- the rules, on the frameworks' own words -----------------------------------------------------

PYTEST_CONFTEST = """ImportError while loading conftest '/harness/tests/conftest.py'.
../harness/tests/conftest.py:19: in <module>
    import yaml_not_here
E   ModuleNotFoundError: No module named 'yaml_not_here'
"""

JEST_MISSING_HELPER = """  ● Test suite failed to run

    Cannot find module './helpers.js' from 'tests/checkpoint_1.test.js'

      at Resolver._throwModNotFoundError (../root/.cache/runners/bwrap/nodemods-f9/node_modules/jest-resolve/build/index.js:1031:11)
      at Object.require (tests/checkpoint_1.test.js:1:15)
"""  # noqa: E501

JEST_SUBMISSION_THROWS = """  ● Test suite failed to run

    submission broken at import

      at Object.<anonymous> (../workspace/calc.js:1:7)
      at Object.require (tests/checkpoint_1.test.js:1:11)
"""

VITEST_SYNTAX = """Error: Failed to parse source for import analysis because the content contains invalid JS syntax.
File: /harness/tests/checkpoint_1.test.js:1
Error: Failed to parse source for import analysis because the content contains invalid JS syntax.
    at TransformPluginContext._formatLog (file:///root/.cache/runners/bwrap/nodemods-cf/node_modules/vite/dist/node/chunks/node.js:8865:39)
"""  # noqa: E501


def test_the_frameworks_words_are_read_as_facts():
    facts = facts_from_text(PYTEST_CONFTEST)
    assert (
        facts.missing_module == "yaml_not_here"
        and ("../harness/tests/conftest.py", 19) in facts.frames
    )
    assert facts.error == "ModuleNotFoundError: No module named 'yaml_not_here'"
    jest = facts_from_text(JEST_MISSING_HELPER)
    assert jest.missing_module == "./helpers.js" and ("tests/helpers.js", None) in jest.files
    assert ("../workspace/calc.js", 1) in facts_from_text(JEST_SUBMISSION_THROWS).frames
    assert ("/harness/tests/checkpoint_1.test.js", 1) in facts_from_text(VITEST_SYNTAX).files
    missing = facts_from_text(
        "ENOENT: no such file or directory, open '/harness/tests/data/cases.json'"
    )
    assert missing.files == [("/harness/tests/data/cases.json", None)]


@pytest.mark.parametrize(
    "text, places, fault",
    [
        (
            PYTEST_CONFTEST,
            SUITE,
            "tests/conftest.py, line 19: ModuleNotFoundError: No module named 'yaml_not_here'",
        ),
        (
            JEST_MISSING_HELPER,
            SUITE,
            "tests/checkpoint_1.test.js, line 1: Cannot find module './helpers.js'",
        ),
        (VITEST_SYNTAX, SUITE, "tests/checkpoint_1.test.js, line 1: Error: Failed to parse source"),
        # The problem's path is written as the user finds it in the problem directory.
        (
            (
                "tests/checkpoint_1.test.js failed to load: ENOENT: no such file or directory, "
                "open "
                "'/harness/tests/data/cases.json'"
            ),
            SUITE,
            "no such file or directory, open 'tests/data/cases.json'",
        ),
        (JEST_SUBMISSION_THROWS, SUITE, None),  # a frame in the submission
        (
            (
                "SyntaxError: /workspace/calc.js: Unexpected token (1:16)\n"
                " at Object.require (tests/a.test.js:1:11)"
            ),
            SUITE,
            None,
        ),
        (
            "Error: Command failed: node /workspace/main.js\n    at /harness/tests/a.test.js:3:9",
            SUITE,
            None,
        ),  # it ran the submission
        ("collection error: something went wrong", SUITE, None),  # no evidence: the grade stands
        # A repository: a bare module is the repository's dependency; its laid test file is the
        # problem's.
        ("Cannot find module 'lodash' from 'tests/test_calc.py'", REPO, None),
        (
            'E     File "/workspace/tests/test_calc.py", line 16\nE   SyntaxError: invalid syntax',
            REPO,
            "overlay/tests/test_calc.py, line 16: SyntaxError: invalid syntax",
        ),
    ],
)
def test_who_broke_a_file_that_failed_to_load(text, places, fault):
    found = problem_fault(_record(text), places)
    assert (found is None) == (fault is None), found
    if fault is not None:
        assert fault in found


def test_a_missing_module_is_the_submissions_only_when_it_could_have_provided_it():
    def facts(on_path: bool) -> LoadError:
        return LoadError(
            error="ModuleNotFoundError: No module named 'calc'",
            frames=[("/harness/tests/test_checkpoint_1.py", 3)],
            missing_module="calc",
            submission_on_path=on_path,
        )

    assert (
        problem_fault(_record(facts=facts(True)), SUITE) is None
    )  # it was on sys.path: its failure
    assert "test_checkpoint_1.py, line 3" in problem_fault(_record(facts=facts(False)), SUITE)


def test_a_failing_hook_is_never_the_problems():
    """A suite's beforeAll may start the submission: its failure is a graded error, never blame."""
    record = _record("Error: boom\n    at /harness/tests/a.test.js:3:9", raw="suite_error")
    assert problem_faults([record], SUITE) == []


@pytest.mark.parametrize(
    "message, traceback, blamed",
    [
        # a fixture read one of the problem's files, and it is not there: the problem's
        (
            (
                "[setup] FileNotFoundError: [Errno 2] No such file or directory: "
                "'/harness/tests/data/orders.csv.gz'"
            ),
            (
                "tests/conftest.py:9: in orders\nE   FileNotFoundError: [Errno 2] No such file or "
                "directory: '/harness/tests/data/orders.csv.gz'"
            ),
            True,
        ),
        # the same file missed in a test's body: it may be named after the submission's output
        (
            (
                "FileNotFoundError: [Errno 2] No such file or directory: "
                "'/harness/tests/data/orders.csv.gz'"
            ),
            (
                "tests/test_a.py:9: in test_a\nE   FileNotFoundError: [Errno 2] No such file or "
                "directory: '/harness/tests/data/orders.csv.gz'"
            ),
            False,
        ),
        # a fixture that ran the submission and found no file it was to write: the submission's
        (
            (
                "[setup] FileNotFoundError: [Errno 2] No such file or directory: "
                "'/tmp/pytest-0/out.json'"
            ),
            (
                "tests/conftest.py:9: in report\nE   FileNotFoundError: [Errno 2] No such file or "
                "directory: '/tmp/pytest-0/out.json'"
            ),
            False,
        ),
        # the submission's own code (a library problem) missed the problem's file: its failure
        (
            (
                "[setup] FileNotFoundError: [Errno 2] No such file or directory: "
                "'/harness/tests/data/orders.csv.gz'"
            ),
            (
                "tests/conftest.py:9: in orders\n/workspace/calc.py:3: in load\nE   "
                "FileNotFoundError: [Errno 2] No such file or directory: "
                "'/harness/tests/data/orders.csv.gz'"
            ),
            False,
        ),
    ],
    ids=["fixture", "test-body", "submission-output", "submission-frame"],
)
def test_a_problem_file_missed_in_a_fixture_is_the_problems(message, traceback, blamed):
    record = RawRecord(
        id="tests/test_a.py::test_a",
        name="test_a",
        status="error",
        raw_status="error" if message.startswith("[setup]") else "failed",
        message=message,
        traceback=traceback,
    )
    faults = problem_faults([record], SUITE)
    assert bool(faults) == blamed, faults
    if blamed:
        assert "tests/data/orders.csv.gz" in faults[0] and "/harness" not in faults[0]


# ---- real runs -----------------------------------------------------------------------------------

CLI_TEST = """
import subprocess


def test_echo(entrypoint_argv):
    assert subprocess.run(
        [*entrypoint_argv, "hi"], capture_output=True, text=True
    ).stdout == "hi\\n"
"""
LIBRARY_TEST = """
import os
import sys

sys.path.insert(0, os.environ["SUBMISSION_PATH"])
from calc import add  # noqa: E402


def test_add():
    assert add(2, 3) == 5
"""
ECHO = "import sys\nprint(' '.join(sys.argv[1:]))\n"
FIXTURE_READING_DATA = """

@pytest.fixture(scope="session")
def orders():
    import gzip
    from pathlib import Path
    with gzip.open(Path(__file__).parent / "market_data" / "orders.csv.gz", "rt") as handle:
        return handle.read()
"""


@pytest.fixture(
    params=[
        "none",
        pytest.param("bubblewrap", marks=pytest.mark.bubblewrap),
        pytest.param("docker", marks=pytest.mark.docker),
    ]
)
def backend(request) -> str:
    need_sandbox(request.param)
    return request.param


@pytest.mark.parametrize(
    "tests, conftest, where",
    [
        (
            {"test_checkpoint_2.py": "def test_two(:\n    pass\n"},
            SCBENCH_CONFTEST,
            "tests/test_checkpoint_2.py, line 1: SyntaxError",
        ),
        (
            {
                "test_checkpoint_2.py": (
                    "import hypothesis_not_installed\n\ndef test_two():\n    pass\n"
                )
            },
            SCBENCH_CONFTEST,
            (
                "tests/test_checkpoint_2.py, line 1: ModuleNotFoundError: "
                "No module named 'hypothesis_not_installed'"
            ),
        ),
        (
            {
                "test_checkpoint_2.py": (
                    "import json, pathlib\n"
                    "CASES = json.loads((pathlib.Path(__file__).parent / 'data' / "
                    "'cases.json').read_text())\n\ndef test_two():\n    pass\n"
                )
            },
            SCBENCH_CONFTEST,
            (
                "tests/test_checkpoint_2.py, line 2: FileNotFoundError: [Errno 2] "
                "No such file or directory: "
                "'tests/data/cases.json'"
            ),
        ),
        # SCBench's eve_market_tools: a conftest fixture reads a data file the checkout lacks;
        # every test that uses it errors in its setup (a test that does not use it passes).
        (
            {
                "test_checkpoint_2.py": (
                    "def test_two(orders):\n    assert orders\n\n\n"
                    "def test_without_data():\n    pass\n"
                )
            },
            SCBENCH_CONFTEST + FIXTURE_READING_DATA,
            (
                "tests/conftest.py, line 24: FileNotFoundError: [Errno 2] "
                "No such file or directory: 'tests/market_data/orders.csv.gz'"
            ),
        ),
        # A conftest that fails as pytest starts: pytest ends the run before any report exists.
        (
            {"test_checkpoint_2.py": CLI_TEST},
            SCBENCH_CONFTEST + "\nimport yaml_not_installed\n",
            "tests/conftest.py, line 19: ModuleNotFoundError: No module named 'yaml_not_installed'",
        ),
    ],
    ids=[
        "syntax-error",
        "missing-module",
        "missing-data-file",
        "missing-data-at-setup",
        "conftest",
    ],
)
def test_a_broken_problem_is_a_problem_error_naming_its_file_and_line(
    tests, conftest, where, backend, tmp_path
):
    problem = make_problem(
        tmp_path, {"test_checkpoint_1.py": CLI_TEST, **tests}, checkpoints=2, conftest=conftest
    )
    sub = make_submission(tmp_path, {"main.py": ECHO})
    result = run_checkpoint(problem, "checkpoint_2", sub, EnvironmentSpec(sandbox=backend))
    assert result.status == "problem_error", result.summary
    assert result.problem_error and not result.infrastructure_failure
    assert where in result.problem_error_reason
    # No grade: no test counts, no policy is met, and checkpoint 1's tests are no Regression
    # failures.
    assert result.tests == [] and result.total_counts == {}
    assert not any(PassPolicy(p).check(result) for p in ("all-cases", "any-case", "core-cases"))
    assert result.summary.startswith("PROBLEM ERROR: ")
    assert (
        ExecutionResult.model_validate_json(result.model_dump_json()).problem_error_reason
        == result.problem_error_reason
    )


@pytest.mark.parametrize(
    "files, why",
    [
        (
            {"main.py": ECHO, "calc.py": "def add(a, b:\n    return a + b\n"},
            'File "/workspace/calc.py", line 1',
        ),
        (
            {"main.py": ECHO, "calc.py": "import numpy_not_there\n"},
            "No module named 'numpy_not_there'",
        ),
        ({"main.py": ECHO}, "No module named 'calc'"),  # the module it was to provide is missing
    ],
    ids=["syntax-error", "its-import-fails", "module-missing"],
)
def test_a_submission_that_breaks_the_load_is_still_a_graded_failure(files, why, tmp_path):
    need_sandbox("bubblewrap")
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": LIBRARY_TEST})
    sub = make_submission(tmp_path, files)
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap"))
    assert result.status == "graded", result.summary
    [broken] = result.tests
    assert (
        broken.collection_error
        and broken.status == "error"
        and why in (broken.failure_message or "")
    )


def test_the_cli_exits_4_and_says_which_file_broke(tmp_path, capsys):
    need_sandbox("bubblewrap")
    problem = make_problem(tmp_path, {"test_checkpoint_1.py": "def test_one(:\n    pass\n"})
    sub = make_submission(tmp_path, {"main.py": ECHO})
    code = main(
        [
            "run",
            str(problem),
            "-c",
            "checkpoint_1",
            "-s",
            str(sub),
            "--sandbox",
            "bubblewrap",
            "--output",
            str(tmp_path / "out"),
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 4, out
    assert "Problem error" in out and "tests/test_checkpoint_1.py, line 1: SyntaxError" in out
    assert "NO GRADE (problem error)" in out
    assert '"status": "problem_error"' in (tmp_path / "r.json").read_text()


JS_TESTS = {
    "vitest": (
        (
            'import { expect, test } from "vitest";\nimport { pathToFileURL } from "node:url";\n'
            "const { add } = await import(pathToFileURL(process.env.RUNNERS_ENTRY_FILE).href);\n"
            'test("adds", () => { expect(add(2, 3)).toBe(5); });\n'
        ),
        "calc.mjs",
        "text_layout",
        "export const add = (a, b) => a + b;\n",
    ),
    "jest": (
        (
            "const { add } = require(process.env.RUNNERS_ENTRY_FILE);\n"
            'test("adds", () => { expect(add(2, 3)).toBe(5); });\n'
        ),
        "calc.js",
        "calc_cli",
        "module.exports = { add: (a, b) => a + b };\n",
    ),
}
JS_BREAKS = {
    "syntax-error": ("const broken = (;\n", "tests/checkpoint_1.test.js, line 1"),
    "missing-package": ("{require} 'not-a-package-xyz'{end}\n", "not-a-package-xyz"),
    "missing-data-file": ("{read}\n", "tests/data/cases.json"),
}


def _js_problem(root: Path, framework: str, head: str) -> Path:
    test, entry, toolchain, _ = JS_TESTS[framework]
    esm = framework == "vitest"
    head = head.format(
        require="import" if esm else "require(",
        end=";" if esm else ");",
        read=(
            'import { readFileSync } from "node:fs";\nreadFileSync(new URL("./data/cases.json", '
            "import.meta.url));"
        )
        if esm
        else 'require("fs").readFileSync(__dirname + "/data/cases.json");',
    )
    problem = make_problem(
        root,
        {"checkpoint_1.test.js": head + test},
        conftest=None,
        framework=framework,
        entry_file=entry,
        timeout=20,
    )
    for name in ("package.json", "package-lock.json"):
        shutil.copy(PROBLEMS / toolchain / name, problem / name)
    return problem


@pytest.mark.node
@pytest.mark.parametrize("framework", ["vitest", "jest"])
@pytest.mark.parametrize("break_id", list(JS_BREAKS))
def test_a_broken_js_problem_is_a_problem_error(framework, break_id, tmp_path):
    need_sandbox("bubblewrap")
    head, where = JS_BREAKS[break_id]
    problem = _js_problem(tmp_path, framework, head)
    _, entry, _, good = JS_TESTS[framework]
    sub = make_submission(tmp_path, {entry: good})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap"))
    assert result.status == "problem_error", result.summary
    assert where in result.problem_error_reason and result.tests == []


@pytest.mark.node
@pytest.mark.parametrize("framework", ["vitest", "jest"])
@pytest.mark.parametrize(
    "code",
    ["throw new Error('broken at import');\n", "export const add = (a, b => a;\n"],
    ids=["throws", "syntax-error"],
)
def test_a_js_submission_that_breaks_the_load_is_a_graded_failure(framework, code, tmp_path):
    need_sandbox("bubblewrap")
    problem = _js_problem(tmp_path, framework, "")
    _, entry, _, _ = JS_TESTS[framework]
    sub = make_submission(
        tmp_path, {entry: code if framework == "vitest" else code.replace("export const", "const")}
    )
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="bubblewrap"))
    assert result.status == "graded", result.summary
    assert [t.collection_error for t in result.tests] == [True]


def test_a_repository_problems_laid_test_file_is_the_problems_and_its_module_the_repositorys(
    tmp_path,
):
    need_sandbox("bubblewrap")
    problem = tmp_path / "repo"
    write_files(
        problem,
        {
            "config.yaml": """
            name: repo
            version: 1
            description: a repository problem
            tags: [test]
            kind: repository
            framework: pytest
            timeout: 30
            checkpoints:
              checkpoint_1: {version: 1, tests: [tests/test_calc.py]}
        """,
            "overlay/tests/test_calc.py": (
                "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
            ),
        },
    )
    good = make_submission(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n"}, "good")
    broken = make_submission(tmp_path, {"calc.py": "def add(a, b:\n"}, "broken")
    env = EnvironmentSpec(sandbox="bubblewrap")
    assert run_checkpoint(problem, "checkpoint_1", good, env).status == "graded"
    result = run_checkpoint(problem, "checkpoint_1", broken, env)
    assert (
        result.status == "graded" and result.tests[0].collection_error
    )  # the repository's own module
    (problem / "overlay/tests/test_calc.py").write_text("def test_add(:\n")
    result = run_checkpoint(problem, "checkpoint_1", good, env)
    assert result.status == "problem_error"
    assert "overlay/tests/test_calc.py, line 1: SyntaxError" in result.problem_error_reason
