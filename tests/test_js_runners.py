"""The vitest and jest runners end to end, on real vitest 4.1 and jest 30 runs.

Two parts:
- the example JS problems (`problems/text_layout`: a library tested by vitest in TypeScript;
  `problems/calc_cli`: a CLI tested by jest) give exactly the per-group counts recorded in
  `examples/expected.yaml` for every example agent and checkpoint, under `none`, `bubblewrap`
  and, when the node image exists, `docker`;
- small generated problems show how each framework's edge cases are normalized: files that fail
  to load, failing `beforeAll`, skips and todos, retries, tags, duplicate titles, lines, and a
  hostile submission (its own vitest/jest config, setup files, reporter, babel config,
  `process.exit(0)` at import) that must never turn a failure into a pass.

The toolchains (vitest, jest) are installed by the harness's prepare step from each example
problem's package.json + package-lock.json, once per cache (the npm registry is needed at the
first run only). Generated problems copy those two files, so they share the cached install.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from support import make_problem, make_submission, need, need_sandbox

from runners import EnvironmentSpec, load_problem, run_checkpoint
from runners import GroupType as G
from runners.model.errors import ConfigError, UserInputError
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult, TestResult
from runners.sandbox.docker.client import default_image
from runners.sandbox.registry import sandbox_class

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
SUBMISSIONS = ROOT / "examples" / "submissions"
JS_PROBLEMS = ("text_layout", "calc_cli")  # vitest, jest
AGENTS = ("alpha", "beta", "gamma")


def _expected() -> dict:
    return yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text(encoding="utf-8"))


def _counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts.get(g, 0), n] for g, n in result.total_counts.items()}


def _not_passed(result: ExecutionResult) -> list[tuple[str, str, str]]:
    return [(t.id, t.status, t.first_message_line) for t in result.tests if not t.passed]


def _need_node_image() -> None:
    need_sandbox("docker")
    from runners.images import docker_client, image_exists

    tag = default_image("node")
    need(
        image_exists(docker_client(), tag),
        (
            f"the image {tag} is missing: run scripts/ci-docker.sh "
            "(or `python -m runners image build`)"
        ),
    )


# ---- the example problems --------------------------------------------------------------------


def test_example_problems_are_what_the_expectations_cover():
    expected = _expected()
    for name in JS_PROBLEMS:
        problem = load_problem(PROBLEMS / name)
        assert set(expected[name]) == set(AGENTS)
        for agent in AGENTS:
            assert set(expected[name][agent]) == set(problem.checkpoints), (name, agent)
            for checkpoint in problem.checkpoints:
                assert (SUBMISSIONS / agent / name / checkpoint).is_dir()
        # Only the test toolchain, with a lock that names no registry.
        lock = (problem.path / "package-lock.json").read_text(encoding="utf-8")
        assert '"resolved"' not in lock


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap", "docker"])
@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("name", JS_PROBLEMS)
def test_example_agents_get_the_expected_counts(name, agent, sandbox, tmp_path):
    if sandbox == "docker":
        _need_node_image()
    elif sandbox != "none":
        need_sandbox(sandbox)
    problem = load_problem(PROBLEMS / name)
    env = EnvironmentSpec(sandbox=sandbox)
    expected = _expected()[name][agent]
    for checkpoint in problem.checkpoints:
        result = run_checkpoint(
            problem,
            checkpoint,
            SUBMISSIONS / agent / name / checkpoint,
            env,
            output_dir=tmp_path / checkpoint,
        )
        assert not result.infrastructure_failure, (
            checkpoint,
            result.infrastructure_reason,
            result.stderr[-3000:],
        )
        assert result.framework == problem.framework and result.sandbox == sandbox
        assert _counts(result) == expected[checkpoint], (checkpoint, _not_passed(result))
        # Every test has its file and line; no synthetic record in the example problems.
        assert all(t.file_path and t.line for t in result.tests), checkpoint
        assert not any(t.collection_error for t in result.tests)
        assert (tmp_path / checkpoint / "reports").is_dir()
        if agent == "alpha":
            assert PassPolicy("all-cases").check(result)


# ---- generated problems: vitest ----------------------------------------------------------------

VITEST_CASES = """
import { beforeAll, describe, expect, test } from "vitest";

const load = () => import(process.env.RUNNERS_ENTRY_FILE!);

test("adds", async () => {
  const { add } = await load();
  expect(add(2, 3)).toBe(5);
});

describe("twins", () => {
  test("same title", () => {
    expect(1).toBe(1);
  });
  test("same title", () => {
    expect(1).toBe(2);
  });
});

test.skip("skipped for now", () => {
  throw new Error("never runs");
});
test.todo("written later");

let attempts = 0;
test("passes on the second attempt", { retry: 2 }, () => {
  attempts += 1;
  expect(attempts).toBeGreaterThan(1);
});

test("vitest tag", { tags: ["error"] }, () => {});
test("custom vitest tag", { tags: ["perf"] }, () => {});
test("title tag @functionality", () => {});
test("custom title tag before a builtin one @functionality @perf", () => {});
test("error tag wins @functionality", { tags: ["error"] }, () => {});
describe("tagged describe @regression", () => {
  test("inherits the tag", () => {});
});

describe("with a failing beforeAll", () => {
  beforeAll(() => {
    throw new Error("setup exploded");
  });
  test("needs the setup", () => {});
});
"""

# Fails to load because of the submission (the module it imports from it is missing): an error of
# that file, graded (a file of the problem's that fails to load is a problem error: test_blame.py).
VITEST_BROKEN = """
import { test } from "vitest";
const { helper } = await import(`${process.env.SUBMISSION_PATH}/does-not-exist.mjs`);

test("never collected", () => helper());
"""

GOOD_MJS = "export const add = (a, b) => a + b;\n"


def _copy_toolchain(problem: Path, source: str) -> Path:
    for name in ("package.json", "package-lock.json"):
        shutil.copy(PROBLEMS / source / name, problem / name)
    return problem


@pytest.fixture(scope="module")
def vitest_problem(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("vitest")
    problem = make_problem(
        root,
        {"checkpoint_1.test.ts": VITEST_CASES, "checkpoint_1.spec.ts": VITEST_BROKEN},
        conftest=None,
        framework="vitest",
        entry_file="main.mjs",
        timeout=10,
        markers={"perf": {"description": "slow paths", "group": "Regression"}},
    )
    return _copy_toolchain(problem, "text_layout")


@pytest.fixture(scope="module")
def vitest_honest(vitest_problem, tmp_path_factory) -> ExecutionResult:
    sub = make_submission(tmp_path_factory.mktemp("sub"), {"main.mjs": GOOD_MJS})
    return run_checkpoint(vitest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("package.json", '{"devDependencies": {"vitest": "4.0.0",}', "not valid JSON"),
        ("package-lock.json", "[]", "expected a JSON object"),
        ("package.json", '{"devDependencies": ["vitest"]}', "field `devDependencies`"),
    ],
)
def test_a_broken_npm_file_in_the_problem_is_a_config_error_naming_it(
    name, text, expected, tmp_path
):
    """Found before anything runs, with the file named (npm would fail or hang in the sandbox)."""
    problem = make_problem(
        tmp_path,
        {"checkpoint_1.test.ts": VITEST_CASES},
        conftest=None,
        framework="vitest",
        entry_file="main.mjs",
    )
    _copy_toolchain(problem, "text_layout")
    (problem / name).write_text(text)
    sub = make_submission(tmp_path, {"main.mjs": GOOD_MJS})
    with pytest.raises(ConfigError) as info:
        run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert str(problem / name) in str(info.value) and expected in str(info.value)


def test_a_problem_lock_out_of_date_is_a_config_error_naming_the_field(tmp_path):
    """npm ci would refuse it; its fallback (for locks missing other platforms' optional packages)
    would resolve the added package anew, unpinned."""
    problem = make_problem(
        tmp_path,
        {"checkpoint_1.test.ts": VITEST_CASES},
        conftest=None,
        framework="vitest",
        entry_file="main.mjs",
    )
    _copy_toolchain(problem, "text_layout")
    package = json.loads((problem / "package.json").read_text())
    package["devDependencies"]["left-pad"] = "1.3.0"
    (problem / "package.json").write_text(json.dumps(package))
    sub = make_submission(tmp_path, {"main.mjs": GOOD_MJS})
    with pytest.raises(ConfigError) as info:
        run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert str(problem / "package-lock.json") in str(info.value)
    assert (
        "out of date: package.json field `devDependencies.left-pad` is '1.3.0', "
        "the lock has no entry"
    ) in str(info.value)


def _line(source: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line of `source` (as make_problem writes it) containing `needle`."""
    hits = [n for n, text in enumerate(source.lstrip("\n").splitlines(), 1) if needle in text]
    return hits[nth - 1]


def _by_name(result: ExecutionResult) -> dict[str, TestResult]:
    return {t.id.split(" > ", 1)[1] if " > " in t.id else t.id: t for t in result.tests}


def test_vitest_outcomes_are_normalized(vitest_honest):
    result = vitest_honest
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.exit_code == 1
    tests = _by_name(result)
    assert {
        k: (t.status, t.raw_status)
        for k, t in tests.items()
        if k.startswith(("twins", "skipped", "written"))
    } == {
        "twins > same title": ("passed", "passed"),
        "twins > same title #2": ("failed", "failed"),  # duplicate titles get distinct ids
        "skipped for now": ("skipped", "skipped"),
        "written later": ("skipped", "todo"),
    }
    assert "expected 1 to be 2" in tests["twins > same title #2"].failure_message
    # Lines come from vitest's task locations (1-based).
    assert tests["adds"].line == _line(VITEST_CASES, 'test("adds"')
    assert tests["twins > same title #2"].line == _line(VITEST_CASES, 'test("same title"', 2)
    assert tests["adds"].status == "passed" and tests["adds"].duration_ms is not None
    flaky = tests["passes on the second attempt"]
    assert (flaky.status, flaky.flaky, flaky.attempts) == ("passed", True, 2)
    assert flaky.failure_message is None and "expected 1 to be greater than 1" in flaky.traceback


def test_vitest_tags_and_title_tags_map_to_groups(vitest_honest):
    groups = {k: t.group_type for k, t in _by_name(vitest_honest).items()}
    assert groups["adds"] is G.CORE
    assert groups["vitest tag"] is G.ERROR
    assert groups["custom vitest tag"] is G.REGRESSION  # the problem maps `perf` to Regression
    assert groups["title tag @functionality"] is G.FUNCTIONALITY
    assert groups["custom title tag before a builtin one @functionality @perf"] is G.REGRESSION
    assert groups["error tag wins @functionality"] is G.ERROR
    assert groups["tagged describe @regression > inherits the tag"] is G.REGRESSION
    markers = {k: t.markers for k, t in _by_name(vitest_honest).items()}
    assert markers["error tag wins @functionality"] == ["error", "functionality"]


def test_vitest_failing_before_all_is_visible(vitest_honest):
    tests = _by_name(vitest_honest)
    assert tests["with a failing beforeAll > needs the setup"].status == "skipped"
    hook = [t for t in vitest_honest.tests if t.raw_status == "suite_error"]
    assert len(hook) == 1 and hook[0].status == "error" and hook[0].collection_error
    assert "with a failing beforeAll" in hook[0].failure_message
    assert "beforeAll" in hook[0].failure_message


def test_vitest_file_that_fails_to_load_is_an_error_naming_it(vitest_honest):
    result = vitest_honest
    broken = {t.id: t for t in result.tests}["tests/checkpoint_1.spec.ts"]
    assert (broken.status, broken.collection_error, broken.group_type) == ("error", True, G.CORE)
    assert "tests/checkpoint_1.spec.ts" in broken.failure_message
    assert "does-not-exist" in broken.failure_message
    assert any("does-not-exist" in e for e in result.errors)
    assert not PassPolicy("all-cases").check(result)  # never "0 failed"


def test_vitest_syntax_error_in_the_submission_fails_the_tests_that_import_it(
    vitest_problem, tmp_path
):
    sub = make_submission(tmp_path, {"main.mjs": "export const add = (a, b) => { return a + ;\n"})
    result = run_checkpoint(vitest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    adds = _by_name(result)["adds"]
    # vite's parse error names no file in the JSON report; it says what is wrong.
    assert adds.status == "failed" and "invalid JS syntax" in adds.failure_message


def test_vitest_ignores_the_submissions_config_setup_and_reporters(
    vitest_problem, vitest_honest, tmp_path
):
    force_pass = """
        import { expect } from "vitest";
        expect.extend({ toBe: () => ({ pass: true, message: () => "" }) });
        (globalThis as any).__forced = true;
    """
    config = """
        export default {
          test: {
            setupFiles: ["./setup.ts"],
            globalSetup: ["./global.ts"],
            reporters: [{ onInit() { throw new Error("submission reporter loaded"); } }],
            include: ["**/nothing.test.ts"],
            retry: 5,
          },
        };
    """
    sub = make_submission(
        tmp_path,
        {
            "main.mjs": "export const add = (a, b) => a - b;\n",  # wrong on purpose
            "vitest.config.ts": config,
            "vite.config.ts": config,
            "vitest.workspace.ts": "export default ['./nowhere'];\n",
            "setup.ts": force_pass,
            "global.ts": (
                "export default () => { throw new Error('submission global setup loaded'); };\n"
            ),
            "tsconfig.json": '{"compilerOptions": {"paths": {"vitest": ["./fake-vitest.ts"]}}}\n',
            "package.json": '{"type": "module", "vitest": {"setupFiles": ["./setup.ts"]}}\n',
        },
    )
    result = run_checkpoint(vitest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    tests, honest = _by_name(result), _by_name(vitest_honest)
    assert tests["adds"].status == "failed"
    assert tests["twins > same title #2"].status == "failed"
    assert tests["passes on the second attempt"].attempts == 2  # no retry: 5 from its config
    assert {k: t.status for k, t in tests.items() if k != "adds"} == {
        k: t.status for k, t in honest.items() if k != "adds"
    }


def test_vitest_process_exit_at_import_is_never_a_pass(vitest_problem, tmp_path):
    sub = make_submission(
        tmp_path, {"main.mjs": "process.exit(0);\nexport const add = (a, b) => a + b;\n"}
    )
    result = run_checkpoint(vitest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    if not result.infrastructure_failure:
        adds = _by_name(result)["adds"]
        assert adds.status in ("failed", "error")
        assert "process.exit" in adds.failure_message
    assert not PassPolicy("all-cases").check(result)


# ---- generated problems: jest ------------------------------------------------------------------

JEST_CASES = """
jest.retryTimes(2);
const load = () => require(process.env.RUNNERS_ENTRY_FILE);

test("adds", () => {
  expect(load().add(2, 3)).toBe(5);
});

describe("twins", () => {
  test("same title", () => {
    expect(1).toBe(1);
  });
  test("same title", () => {
    expect(1).toBe(2);
  });
});

test.skip("skipped for now", () => {
  throw new Error("never runs");
});
test.todo("written later");

let attempts = 0;
test("passes on the second attempt", () => {
  attempts += 1;
  expect(attempts).toBeGreaterThan(1);
});

test("title tag @error", () => {});
test("custom title tag @perf", () => {});
test("custom tag before a builtin one @functionality @perf", () => {});
describe("tagged describe @functionality", () => {
  test("inherits the tag", () => {});
});

describe("with a failing beforeAll", () => {
  beforeAll(() => {
    throw new Error("setup exploded");
  });
  test("needs the setup", () => {});
});
"""

# Fails to compile because of the submission (the module it requires from it has a syntax error).
JEST_BROKEN = """
const helper = require(process.env.SUBMISSION_PATH + "/broken.js");

test("never collected", () => {
  expect(helper).toBe(1);
});
"""

GOOD_CJS = "module.exports = { add: (a, b) => a + b };\n"


@pytest.fixture(scope="module")
def jest_problem(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("jest")
    problem = make_problem(
        root,
        {"checkpoint_1.test.js": JEST_CASES, "checkpoint_1.spec.js": JEST_BROKEN},
        conftest=None,
        framework="jest",
        entry_file="main.js",
        timeout=10,
        markers={"perf": {"description": "slow paths", "group": "Regression"}},
    )
    return _copy_toolchain(problem, "calc_cli")


@pytest.fixture(scope="module")
def jest_honest(jest_problem, tmp_path_factory) -> ExecutionResult:
    sub = make_submission(
        tmp_path_factory.mktemp("sub"), {"main.js": GOOD_CJS, "broken.js": "module.exports = (;\n"}
    )
    return run_checkpoint(jest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))


def test_jest_outcomes_are_normalized(jest_honest):
    result = jest_honest
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.exit_code == 1
    tests = _by_name(result)
    assert {
        k: (t.status, t.raw_status)
        for k, t in tests.items()
        if k.startswith(("twins", "skipped", "written"))
    } == {
        "twins > same title": ("passed", "passed"),
        "twins > same title #2": ("failed", "failed"),
        "skipped for now": ("skipped", "pending"),
        "written later": ("skipped", "todo"),
    }
    assert "Expected: 2" in tests["twins > same title #2"].failure_message
    assert tests["twins > same title #2"].attempts == 3  # retried twice, failed every time
    assert tests["adds"].line == _line(JEST_CASES, 'test("adds"')
    assert tests["twins > same title #2"].line == _line(JEST_CASES, 'test("same title"', 2)
    flaky = tests["passes on the second attempt"]
    assert (flaky.status, flaky.flaky, flaky.attempts) == ("passed", True, 2)


def test_jest_title_tags_map_to_groups(jest_honest):
    groups = {k: t.group_type for k, t in _by_name(jest_honest).items()}
    assert groups["adds"] is G.CORE
    assert groups["title tag @error"] is G.ERROR
    assert groups["custom title tag @perf"] is G.REGRESSION
    assert groups["custom tag before a builtin one @functionality @perf"] is G.REGRESSION
    assert groups["tagged describe @functionality > inherits the tag"] is G.FUNCTIONALITY


def test_jest_failing_before_all_fails_its_tests(jest_honest):
    test = _by_name(jest_honest)["with a failing beforeAll > needs the setup"]
    assert test.status == "failed" and "setup exploded" in test.failure_message


def test_jest_file_that_fails_to_compile_is_an_error_naming_it(jest_honest):
    result = jest_honest
    broken = {t.id: t for t in result.tests}["tests/checkpoint_1.spec.js"]
    assert (broken.status, broken.collection_error, broken.raw_status) == (
        "error",
        True,
        "suite_failed_to_run",
    )
    assert "tests/checkpoint_1.spec.js" in broken.failure_message
    assert "SyntaxError" in broken.failure_message
    assert not PassPolicy("all-cases").check(result)


def test_jest_syntax_error_in_the_submission_fails_the_tests_that_require_it(
    jest_problem, tmp_path
):
    sub = make_submission(tmp_path, {"main.js": "module.exports = { add: (a, b) => a + };\n"})
    result = run_checkpoint(jest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    adds = _by_name(result)["adds"]
    assert adds.status == "failed" and "SyntaxError" in adds.failure_message
    assert "main.js" in adds.failure_message or "main.js" in (adds.traceback or "")


def test_jest_ignores_the_submissions_config_setup_reporter_and_babel_config(
    jest_problem, jest_honest, tmp_path
):
    force_pass = "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n"
    sub = make_submission(
        tmp_path,
        {
            "main.js": "module.exports = { add: (a, b) => a - b };\n",  # wrong on purpose
            "jest.config.js": """
            module.exports = {
              reporters: ["<rootDir>/reporter.js"],
              setupFiles: ["<rootDir>/setup.js"],
              setupFilesAfterEnv: ["<rootDir>/setup.js"],
              testMatch: ["**/nothing.test.js"],
            };
        """,
            "reporter.js": (
                "module.exports = class { constructor() { "
                "throw new Error('submission reporter loaded'); } };\n"
            ),
            "setup.js": force_pass,
            "package.json": '{"jest": {"setupFilesAfterEnv": ["./setup.js"]}}\n',
            "babel.config.js": (
                "module.exports = () => { throw new Error('submission babel config loaded'); };\n"
            ),
            ".babelrc": '{"plugins": ["./no-such-plugin"]}\n',
        },
    )
    result = run_checkpoint(jest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    assert not result.infrastructure_failure, result.infrastructure_reason
    tests, honest = _by_name(result), _by_name(jest_honest)
    assert tests["adds"].status == "failed"
    assert tests["twins > same title #2"].status == "failed"
    assert {k: t.status for k, t in tests.items() if k != "adds"} == {
        k: t.status for k, t in honest.items() if k != "adds"
    }


def test_jest_process_exit_at_require_is_never_a_pass(jest_problem, tmp_path):
    sub = make_submission(
        tmp_path, {"main.js": "process.exit(0);\nmodule.exports = { add: (a, b) => a + b };\n"}
    )
    result = run_checkpoint(jest_problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    if not result.infrastructure_failure:
        adds = _by_name(result)["adds"]
        assert adds.status in ("failed", "error")
    assert not PassPolicy("all-cases").check(result)


# ---- forged reports ----------------------------------------------------------------------------
# The reports directory is writable by the run (the framework writes there), so the submission can
# write there too; only the harness's signing reporter makes a report count.

FORGED_TEST = {
    "ancestorTitles": [],
    "title": "adds",
    "status": "passed",
    "failureMessages": [],
    "location": {"line": 2, "column": 1},
}
DECOY_TEST = {
    "ancestorTitles": [],
    "title": "decoy",
    "status": "failed",
    "failureMessages": ["x"],
    "location": {"line": 9, "column": 1},
}


def test_a_toolchain_without_jest_names_the_missing_module(tmp_path):
    """The problem's package.json forgot jest: node's own error is the reason, not only exit 1."""
    problem = make_problem(
        tmp_path,
        {"checkpoint_1.test.js": "test('a', () => {});\n"},
        conftest=None,
        framework="jest",
        entry_file="main.js",
    )
    (problem / "package.json").write_text('{"name": "t", "version": "1.0.0", "private": true}')
    (problem / "package-lock.json").write_text(
        json.dumps(
            {
                "name": "t",
                "version": "1.0.0",
                "lockfileVersion": 3,
                "requires": True,
                "packages": {"": {"name": "t", "version": "1.0.0"}},
            }
        )
    )
    sub = make_submission(tmp_path, {"main.js": GOOD_CJS})
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    head, *cause = result.infrastructure_reason.splitlines()
    assert head == "report jest-report.json was not written (jest exit code 1)"
    assert len(cause) == 1 and cause[0].strip().startswith("Error: Cannot find module '")
    assert cause[0].strip().endswith("/node_modules/jest/bin/jest.js'")


def _forged_report(test_file: str, tests: list[dict]) -> str:
    return json.dumps(
        {
            "numTotalTests": len(tests),
            "numFailedTestSuites": 0,
            "numRuntimeErrorTestSuites": 0,
            "testResults": [
                {"name": test_file, "status": "passed", "message": "", "assertionResults": tests}
            ],
        }
    )


def test_jest_report_forged_in_process_then_exit_0_is_refused(tmp_path):
    """jest runs a single test file in its own process: the submission, required by the test,
    writes an all-passing report where jest would and exits 0 before jest writes anything."""
    problem = _copy_toolchain(
        make_problem(
            tmp_path,
            {
                "checkpoint_1.test.js": """
        const { add } = require(process.env.RUNNERS_ENTRY_FILE);
        test("adds", () => { expect(add(2, 3)).toBe(5); });
    """
            },
            conftest=None,
            framework="jest",
            entry_file="main.js",
        ),
        "calc_cli",
    )
    forged = _forged_report("__ROOT__/tests/checkpoint_1.test.js", [FORGED_TEST])
    sub = make_submission(
        tmp_path,
        {
            "main.js": f"""
        const fs = require("fs"), path = require("path");
        const reports = path.dirname(process.env.RUNNERS_REPORT_KEY_FILE);
        const root = path.dirname(reports);
        fs.writeFileSync(path.join(reports, "jest-report.json"),
                         {forged!r}.replace("__ROOT__", root));
        fs.writeFileSync(path.join(reports, "jest-report.json.sig"), "0".repeat(64));
        process.exit(0);
    """
        },
    )
    for sandbox in ("none", "bubblewrap"):
        if sandbox != "none" and sandbox_class(sandbox).probe() is not None:
            continue
        result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox=sandbox))
        assert result.infrastructure_failure, (sandbox, result.summary)
        assert "does not carry the run's signature" in result.infrastructure_reason
        assert not PassPolicy("core-cases").check(result)


def test_vitest_report_rewritten_after_the_run_is_refused(tmp_path):
    """A process the submission leaves behind rewrites the report as soon as vitest wrote it,
    with a decoy failing test so that vitest's exit code 1 still looks consistent."""
    problem = _copy_toolchain(
        make_problem(
            tmp_path,
            {
                "checkpoint_1.test.ts": """
        import { expect, test } from "vitest";
        test("adds", async () => {
          const { add } = await import(process.env.RUNNERS_ENTRY_FILE!);
          expect(add(2, 3)).toBe(5);
        });
    """
            },
            conftest=None,
            framework="vitest",
            entry_file="main.mjs",
        ),
        "text_layout",
    )
    forged = _forged_report("__ROOT__/tests/checkpoint_1.test.ts", [FORGED_TEST, DECOY_TEST])
    watcher = f"""
        const fs = require("fs"), path = require("path");
        const reports = path.dirname(process.env.RUNNERS_REPORT_KEY_FILE);
        const out = path.join(reports, "vitest-report.json");
        const forged = {forged!r}.replace("__ROOT__", path.dirname(reports));
        setInterval(() => {{
          try {{
            if (fs.readFileSync(out, "utf8") !== forged) fs.writeFileSync(out, forged);
          }} catch {{}}
        }}, 1);
        setTimeout(() => process.exit(0), 8000);
    """
    sub = make_submission(
        tmp_path,
        {
            "main.mjs": f"""
        import {{ spawn }} from "node:child_process";
        spawn(process.execPath, ["-e", {watcher!r}], {{ detached: true, stdio: "ignore" }}).unref();
        export const add = () => 0;
    """
        },
    )
    result = run_checkpoint(problem, "checkpoint_1", sub, EnvironmentSpec(sandbox="none"))
    # Either the rewrite lost the race (an honest failure) or it is caught by the signature.
    if result.infrastructure_failure:
        assert "does not carry the run's signature" in result.infrastructure_reason
    else:
        assert {t.name: t.status for t in result.tests} == {"adds": "failed"}
    assert not PassPolicy("any-core-cases").check(result)


@pytest.mark.parametrize("framework", ["vitest", "jest"])
def test_select_runs_exactly_the_named_tests(framework, vitest_problem, jest_problem, tmp_path):
    """`--select` takes the result's ids: the same title in another describe, the file's other
    tests and the other test files are not run, and the result lists only what was selected."""
    problem, ext, main = (
        (vitest_problem, "ts", {"main.mjs": GOOD_MJS})
        if framework == "vitest"
        else (jest_problem, "js", {"main.js": GOOD_CJS})
    )
    file = f"tests/checkpoint_1.test.{ext}"
    tagged = (
        "tagged describe @regression" if framework == "vitest" else "tagged describe @functionality"
    )
    wanted = [
        f"{file} > adds",
        f"{file} > {tagged} > inherits the tag",
        f"{file} > twins > same title #2",
    ]
    sub = make_submission(tmp_path, main)
    env = EnvironmentSpec(sandbox="none")
    result = run_checkpoint(problem, "checkpoint_1", sub, env, select=wanted)
    assert not result.infrastructure_failure, result.infrastructure_reason
    # Both twins run (one title), but only the one asked for is in the result.
    assert sorted(t.id for t in result.tests) == sorted(wanted)
    assert {t.id: t.status for t in result.tests}[f"{file} > adds"] == "passed"

    whole = run_checkpoint(
        problem, "checkpoint_1", sub, env, select=[f"tests/checkpoint_1.spec.{ext}"]
    )
    assert {t.file_path for t in whole.tests} == {f"tests/checkpoint_1.spec.{ext}"}

    with pytest.raises(UserInputError, match="no such test"):
        run_checkpoint(problem, "checkpoint_1", sub, env, select=[f"{file} > does not exist"])
    with pytest.raises(UserInputError, match="not a test file of this checkpoint"):
        run_checkpoint(
            problem, "checkpoint_1", sub, env, select=["tests/checkpoint_9.test.js > adds"]
        )
    with pytest.raises(UserInputError, match="whole files or single tests"):
        run_checkpoint(problem, "checkpoint_1", sub, env, select=[file, f"{file} > adds"])
