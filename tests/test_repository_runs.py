"""kind: repository on real pytest, vitest and jest runs.

- The three example repository problems give exactly the counts of `examples/expected.yaml` for
  every agent and checkpoint under bubblewrap, and the same tests and statuses under `none` and
  docker.
- What the issue asked for, each shown on a small repository: its dependencies installed from its
  own manifests (pyproject.toml; a pnpm and a Yarn 1 lock) and cached by them, test-side
  dependencies pinned by the problem, ES modules under jest, `--select`, doctests counted only
  from the files named, later checkpoints' tests never in the copy, the laid files read-only.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from support import need, need_sandbox, write_files

from runners import EnvironmentSpec, load_problem, run_checkpoint
from runners.model.errors import UserInputError
from runners.model.results import ExecutionResult
from runners.sandbox.docker.client import default_image

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ("rangeset_lib", "lru_cache_ts", "tree_render_ts")
AGENTS = ("alpha", "beta", "gamma")
JS_TOOLCHAIN = {
    "vitest": ROOT / "problems" / "lru_cache_ts",
    "jest": ROOT / "problems" / "calc_cli",
}


def _expected() -> dict:
    return yaml.safe_load((ROOT / "examples" / "expected.yaml").read_text(encoding="utf-8"))


def counts(result: ExecutionResult) -> dict[str, list[int]]:
    return {g.value: [result.pass_counts.get(g, 0), n] for g, n in result.total_counts.items()}


def shape(result: ExecutionResult) -> list[tuple]:
    return sorted((t.id, t.status, t.group_type.value, t.checkpoint) for t in result.tests)


def need_backend(sandbox: str) -> None:
    if sandbox == "docker":
        need_sandbox("docker")
        from runners.images import docker_client, image_exists

        for tag in (default_image("node"), default_image("python")):
            need(
                image_exists(docker_client(), tag),
                f"the image {tag} is missing: run scripts/ci-docker.sh",
            )
    elif sandbox != "none":
        need_sandbox(sandbox)


def run(
    problem: Path, checkpoint: str, submission: Path, sandbox: str = "bubblewrap", **kw
) -> ExecutionResult:
    result = run_checkpoint(problem, checkpoint, submission, EnvironmentSpec(sandbox=sandbox), **kw)
    assert not result.infrastructure_failure, (result.infrastructure_reason, result.stderr[-3000:])
    return result


# ---- the example problems ----------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_agents_get_the_expected_counts(name, agent):
    need_backend("bubblewrap")
    problem = load_problem(ROOT / "problems" / name)
    expected = _expected()[name][agent]
    assert set(expected) == set(problem.checkpoints)
    for checkpoint in problem.checkpoints:
        result = run(
            problem.path, checkpoint, ROOT / "examples" / "submissions" / agent / name / checkpoint
        )
        assert counts(result) == expected[checkpoint], (
            checkpoint,
            [(t.id, t.status) for t in result.tests if not t.passed],
        )
        assert result.flags == [], result.flags  # no false flag on ordinary repositories
        assert all(t.file_path for t in result.tests)


@pytest.mark.parametrize("sandbox", ["none", "docker"])
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_same_tests_and_statuses_under_every_backend(name, sandbox):
    need_backend(sandbox)
    need_backend("bubblewrap")
    submission = ROOT / "examples" / "submissions" / "beta" / name / "checkpoint_2"
    reference = run(ROOT / "problems" / name, "checkpoint_2", submission)
    other = run(ROOT / "problems" / name, "checkpoint_2", submission, sandbox)
    assert other.sandbox == sandbox and shape(other) == shape(reference)
    assert counts(other) == _expected()[name]["beta"]["checkpoint_2"]


# ---- small repositories -------------------------------------------------------------------------


def repo_problem(
    root: Path, overlay: dict[str, str], checkpoints: dict, framework: str = "pytest", **config
) -> Path:
    problem = root / "problem"
    data = {
        "name": "demo",
        "version": 1,
        "description": "d",
        "tags": ["t"],
        "kind": "repository",
        "framework": framework,
        "timeout": 30,
        "checkpoints": checkpoints,
        **config,
    }
    problem.mkdir(parents=True)
    (problem / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    write_files(problem / "overlay", overlay)
    if framework in JS_TOOLCHAIN:
        for name in ("package.json", "package-lock.json"):
            shutil.copy(JS_TOOLCHAIN[framework] / name, problem / name)
    return problem


def statuses(result: ExecutionResult) -> dict[str, str]:
    return {t.id: t.status for t in result.tests}


PY_TESTS = {
    "tests/test_deps.py": """
        import tabulate
        import tomli_w

        import shapes
        from shapes.area import square


        def test_the_package_imports_by_name_with_its_dependency():
            assert square(3) == 9 and shapes.table([[1, 2]]).startswith("-")


        def test_the_problem_pins_a_test_side_dependency():
            assert tomli_w.dumps({"a": 1}) == "a = 1\\n"


        def test_later_tests_are_not_in_the_copy():
            import os
            assert not os.path.exists("tests/test_later.py")


        def test_the_problem_s_files_are_read_only():
            import pytest
            with pytest.raises(OSError):
                open("tests/test_deps.py", "a").close()
        """,
    "tests/test_later.py": "def test_later():\n    pass\n",
}
PY_REPO = {
    "pyproject.toml": """
        [build-system]
        requires = ["flit_core>=3.9,<4"]
        build-backend = "flit_core.buildapi"

        [project]
        name = "shapes"
        version = "0.1.0"
        description = "shapes"
        dependencies = ["tabulate==0.9.0"]
        """,
    "src/shapes/__init__.py": (
        "from tabulate import tabulate\n\n\ndef table(rows):\n    return tabulate(rows)\n"
    ),
    "src/shapes/area.py": '''
        """Areas.

        >>> square(2)
        4
        """


        def square(side):
            return side * side


        def test_helper():
            raise AssertionError("a library function named like a test: never collected")
        ''',
    "src/shapes/__main__.py": (
        "import sys\n\nsys.exit(3)  # would stop pytest if it were imported as a test module\n"
    ),
}


@pytest.mark.parametrize("sandbox", ["bubblewrap", "docker"])
def test_a_python_repository_with_dependencies_doctests_and_checkpoints(tmp_path, sandbox):
    need_backend(sandbox)
    problem = repo_problem(
        tmp_path,
        PY_TESTS,
        {
            "checkpoint_1": {
                "version": 1,
                "tests": ["tests/test_deps.py"],
                "doctests": ["src/shapes/"],
            },
            "checkpoint_2": {"version": 1, "tests": ["tests/test_later.py"]},
        },
        test_dependencies=["tomli-w==1.2.0"],
    )
    sub = tmp_path / "repo"
    write_files(sub, PY_REPO)
    result = run(problem, "checkpoint_1", sub, sandbox)
    assert statuses(result) == {
        "tests/test_deps.py::test_the_package_imports_by_name_with_its_dependency": "passed",
        "tests/test_deps.py::test_the_problem_pins_a_test_side_dependency": "passed",
        "tests/test_deps.py::test_later_tests_are_not_in_the_copy": "passed",
        "tests/test_deps.py::test_the_problem_s_files_are_read_only": "passed",
        "src/shapes/area.py::shapes.area": "passed",
    }
    assert result.errors == [] and result.flags == []


def test_select_in_a_repository(tmp_path):
    need_backend("bubblewrap")
    agent = ROOT / "examples" / "submissions" / "alpha"
    picked = {
        "rangeset_lib": "tests/format/test_format.py::test_repr_round_trips",
        "lru_cache_ts": "test/cache.test.ts > LruCache > size counts entries",
        "tree_render_ts": "__tests__/render.test.ts > renderTree > a lone root is its label",
    }
    for name, test_id in picked.items():
        result = run(
            ROOT / "problems" / name,
            "checkpoint_1",
            agent / name / "checkpoint_1",
            select=[test_id],
        )
        assert statuses(result) == {test_id: "passed"}, name
    with pytest.raises(UserInputError, match="not a test file of this checkpoint"):
        run_checkpoint(
            ROOT / "problems" / "rangeset_lib",
            "checkpoint_1",
            agent / "rangeset_lib" / "checkpoint_1",
            EnvironmentSpec(sandbox="bubblewrap"),
            select=["tests/ops/test_union.py::test_union_merges"],
        )


JS_REPO_TESTS = """
import { expect, test } from "vitest";
import { longest } from "../src/index.js";

test("the repository's dependency is installed from its lock", () => {
  expect(longest(["a", "bbb", "cc"])).toBe("bbb");
});
"""
JS_REPO = {
    "src/index.js": 'import { Yallist } from "yallist";\n\nexport function longest(words) {\n'
    "  return Yallist.create(words).reduce((a, b) => (b.length > a.length ? b : a));\n}\n",
}
PNPM_LOCK = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      yallist:
        specifier: 5.0.0
        version: 5.0.0

packages:

  yallist@5.0.0:
    resolution: {integrity: sha512-YgvUTfwqyc7UXVMrB+SImsVYSmTS8X/tSrtdNZMImM+n7+QTriRXyXim0mBrTXNeqzVF0KWGgHPeiyViFFrNDw==}
    engines: {node: '>=18'}

snapshots:

  yallist@5.0.0: {}
"""  # noqa: E501
YARN_LOCK = """# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


yallist@5.0.0:
  version "5.0.0"
  integrity sha512-YgvUTfwqyc7UXVMrB+SImsVYSmTS8X/tSrtdNZMImM+n7+QTriRXyXim0mBrTXNeqzVF0KWGgHPeiyViFFrNDw==
"""  # noqa: E501


@pytest.mark.parametrize("manager", ["pnpm", "yarn"])
def test_a_js_repository_s_dependencies_come_from_its_lock_and_are_cached(tmp_path, manager):
    need_backend("bubblewrap")
    from runners.repository.node_deps import install_repo_deps
    from runners.sandbox.registry import sandbox_class
    from runners.toolchains.node import NodeToolchains

    problem = repo_problem(
        tmp_path,
        {"test/longest.test.js": JS_REPO_TESTS},
        {"checkpoint_1": {"version": 1, "tests": ["test/"]}},
        framework="vitest",
    )
    package = {
        "name": "words",
        "version": "1.0.0",
        "type": "module",
        "dependencies": {"yallist": "5.0.0"},
    }
    if manager == "pnpm":
        package["packageManager"] = "pnpm@10.28.0"
    sub = tmp_path / "repo"
    lock = {"pnpm-lock.yaml": PNPM_LOCK} if manager == "pnpm" else {"yarn.lock": YARN_LOCK}
    write_files(sub, {**JS_REPO, **lock, "package.json": json.dumps(package)})
    result = run(problem, "checkpoint_1", sub)
    assert statuses(result) == {
        "test/longest.test.js > the repository's dependency is installed from its lock": "passed"
    }
    # Cached by the manifests: a second install of the same lock builds nothing.
    toolchains = NodeToolchains(
        sandbox_class("bubblewrap")(), EnvironmentSpec().cache_dir, None, 600, "t"
    )
    deps = install_repo_deps(toolchains, sub)
    assert deps.manager == manager and deps.cached is not None and not deps.cached.built
    assert (deps.node_modules / "yallist" / "package.json").is_file()


def test_a_lock_out_of_date_is_the_submission_s_failure_not_the_harness_s(tmp_path):
    need_backend("bubblewrap")
    problem = repo_problem(
        tmp_path,
        {"test/longest.test.js": JS_REPO_TESTS},
        {"checkpoint_1": {"version": 1, "tests": ["test/"]}},
        framework="vitest",
    )
    sub = tmp_path / "repo"
    package = {
        "name": "words",
        "type": "module",
        "dependencies": {"yallist": "5.0.0", "left-pad": "1.3.0"},
        "packageManager": "pnpm@10.28.0",
    }
    write_files(sub, {**JS_REPO, "pnpm-lock.yaml": PNPM_LOCK, "package.json": json.dumps(package)})
    result = run(problem, "checkpoint_1", sub)
    assert [t.status for t in result.tests] == ["error"]  # the file cannot import yallist
    assert "submission-dependencies-failed" in result.flags
    assert any("could not be installed" in e and "pnpm" in e for e in result.errors), result.errors


def test_es_modules_under_jest_through_the_trusted_config(tmp_path):
    need_backend("bubblewrap")
    problem = repo_problem(
        tmp_path,
        {
            "jest.config.cjs": "module.exports = { transform: {}, testEnvironment: 'node' };\n",
            "__tests__/sum.test.js": (
                'import { sum } from "../src/sum.js";\n'
                'import { fileURLToPath } from "node:url";\n\n'
                'test("an ES module, imported natively", () => {\n  expect(sum(2, 3)).toBe(5);\n'
                "  expect(fileURLToPath(import.meta.url)).toMatch(/sum\\.test\\.js$/);\n});\n"
            ),
        },
        {"checkpoint_1": {"version": 1, "tests": ["__tests__/"]}},
        framework="jest",
    )
    sub = tmp_path / "repo"
    write_files(
        sub,
        {
            "package.json": '{"name": "sum", "type": "module"}\n',
            "src/sum.js": "export const sum = (a, b) => a + b;\n",
        },
    )
    result = run(problem, "checkpoint_1", sub)
    assert statuses(result) == {"__tests__/sum.test.js > an ES module, imported natively": "passed"}
