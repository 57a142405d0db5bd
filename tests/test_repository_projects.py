"""kind: repository as real projects are set up, each shown on a small repository of the same shape
(found by grading humanize, mlly, jest-extended and snapshot-diff with no glue file; see
bench/RESULTS.md section 10):

- a hatchling project (its backend asks for `editables` to build editable) installs;
- pytest settings kept in pyproject.toml, jest's in package.json#jest: the problem's copy is read,
  never laid over the submission's manifest (its dependencies, version, name stay);
- a trusted jest config naming watch plugins (a dev tool) runs; a problem can turn colours on;
- test fixtures that are symbolic links or `node_modules` packages are laid as they are;
- a Yarn 2+ lock installs the repository's dependencies;
- a trusted preset or ts-jest option that hands files to babel-jest never reads the submission's
  Babel config (package.json#babel).
"""

from __future__ import annotations

import json
import os

import pytest
from support import write_files
from test_repository_runs import need_backend, repo_problem, run, statuses

from runners import EnvironmentSpec

PY_SUBMISSION = {
    "pyproject.toml": """
        [build-system]
        requires = ["hatchling>=1.25"]
        build-backend = "hatchling.build"

        [project]
        name = "wordcount"
        version = "1.2.3"
        dependencies = ["tomli-w==1.2.0"]

        [tool.hatch.build.targets.wheel]
        packages = ["src/wordcount"]
        """,
    "src/wordcount/__init__.py": """
        def count(text):
            return len(text.split())


        def dump(data):
            import tomli_w

            return tomli_w.dumps(data)
        """,
}
PY_OVERLAY = {
    # upstream's pyproject.toml as the problem copied it: another version, no dependency, and the
    # pytest settings (warnings are errors, a helper folder on pythonpath, strict markers)
    "pyproject.toml": """
        [project]
        name = "wordcount"
        version = "0.0.0"

        [tool.pytest.ini_options]
        addopts = "--strict-markers"
        filterwarnings = ["error"]
        pythonpath = ["tests/helpers"]
        markers = ["slow: a slow test"]
        """,
    "tests/helpers/sample.py": 'TEXT = "one two three"\n',
    "tests/test_count.py": """
        import importlib.metadata
        import warnings

        import pytest
        from sample import TEXT

        import wordcount


        def test_imported_by_name():
            assert wordcount.count(TEXT) == 3


        def test_the_submission_s_own_metadata():
            assert importlib.metadata.version("wordcount") == "1.2.3"


        def test_the_submission_s_own_dependency():
            assert wordcount.dump({"a": 1}) == "a = 1\\n"


        @pytest.mark.slow
        def test_a_warning_is_an_error():
            warnings.warn("old", DeprecationWarning)
        """,
}


def test_a_hatchling_project_with_its_pytest_settings_in_pyproject(tmp_path):
    need_backend("bubblewrap")
    problem = repo_problem(
        tmp_path,
        PY_OVERLAY,
        {"checkpoint_1": {"version": 1, "tests": ["tests/"]}},
        repository={"config": "pyproject.toml"},
    )
    sub = tmp_path / "repo"
    write_files(sub, PY_SUBMISSION)
    result = run(problem, "checkpoint_1", sub)
    assert statuses(result) == {
        "tests/test_count.py::test_imported_by_name": "passed",
        "tests/test_count.py::test_the_submission_s_own_metadata": "passed",
        "tests/test_count.py::test_the_submission_s_own_dependency": "passed",
        "tests/test_count.py::test_a_warning_is_an_error": "failed",
    }, result.errors
    assert result.flags == [] and result.errors == []
    assert (sub / "pyproject.toml").read_text().count(
        "1.2.3"
    ) == 1  # the submission's own, never replaced


JEST_OVERLAY = {
    "package.json": json.dumps(
        {
            "name": "upstream",
            "jest": {
                "testEnvironment": "node",
                "setupFilesAfterEnv": ["<rootDir>/test/setup.js"],
                "watchPlugins": ["jest-watch-typeahead/filename"],
            },
        }
    ),
    "test/setup.js": "globalThis.SETUP_RAN = true;\n",
    "test/manifest.test.js": """
        const { RECEIVED_COLOR } = require("jest-matcher-utils");
        const pkg = require("../package.json");

        test("the submission's manifest stays", () => {
          expect(pkg.name).toBe("the-submission");
        });

        test("setupFilesAfterEnv of the trusted section ran", () => {
          expect(globalThis.SETUP_RAN).toBe(true);
        });

        test("colours as the problem's env asks", () => {
          expect(RECEIVED_COLOR("x")).toBe("\\u001b[31mx\\u001b[39m");
        });
        """,
}


def test_jest_settings_from_the_problem_s_package_json_with_watch_plugins_and_colours(tmp_path):
    need_backend("bubblewrap")
    problem = repo_problem(
        tmp_path,
        JEST_OVERLAY,
        {"checkpoint_1": {"version": 1, "tests": ["test/"]}},
        framework="jest",
        repository={"config": "package.json"},
        env={"FORCE_COLOR": "1"},
    )
    sub = tmp_path / "repo"
    write_files(
        sub, {"package.json": '{"name": "the-submission"}\n', "index.js": "module.exports = {};\n"}
    )
    result = run(problem, "checkpoint_1", sub)
    assert set(statuses(result).values()) == {"passed"} and len(result.tests) == 3, [
        (t.id, t.failure_message) for t in result.tests
    ]


VITEST_FIXTURES = {
    "test/resolve.test.mjs": """
        import { realpathSync } from "node:fs";
        import { createRequire } from "node:module";
        import { expect, test } from "vitest";

        test("a fixture link is laid as a link", () => {
          expect(realpathSync(new URL("./fixture/link.txt", import.meta.url)))
            .toMatch(/fixture\\/real\\.txt$/);
        });

        test("a fixture package under node_modules is laid", () => {
          const require = createRequire(new URL("./fixture/app/index.js", import.meta.url));
          expect(require.resolve("pkg")).toMatch(/fixture\\/app\\/node_modules\\/pkg\\/index\\.js$/);
          expect(require("pkg").answer).toBe(42);
        });
        """,
    "test/fixture/real.txt": "real\n",
    "test/fixture/app/index.js": "",
    "test/fixture/app/node_modules/pkg/package.json": '{"name": "pkg", "main": "index.js"}\n',
    "test/fixture/app/node_modules/pkg/index.js": "module.exports = { answer: 42 };\n",
}


@pytest.mark.parametrize(
    "sandbox", ["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)]
)
def test_fixture_links_and_fixture_packages_are_laid_as_they_are(tmp_path, sandbox):
    need_backend(sandbox)
    problem = repo_problem(
        tmp_path,
        VITEST_FIXTURES,
        {"checkpoint_1": {"version": 1, "tests": ["test/"]}},
        framework="vitest",
    )
    os.symlink("real.txt", problem / "overlay" / "test" / "fixture" / "link.txt")
    sub = tmp_path / "repo"
    write_files(sub, {"package.json": '{"name": "x", "type": "module"}\n'})
    result = run(problem, "checkpoint_1", sub, sandbox=sandbox)
    assert statuses(result) == {
        "test/resolve.test.mjs > a fixture link is laid as a link": "passed",
        "test/resolve.test.mjs > a fixture package under node_modules is laid": "passed",
    }, [t.failure_message for t in result.tests]


YARN_BERRY_LOCK = """# This file is generated by running "yarn install" inside your project.
# Manual changes might be lost - proceed with caution!

__metadata:
  version: 10
  cacheKey: 10c0

"words@workspace:.":
  version: 0.0.0-use.local
  resolution: "words@workspace:."
  dependencies:
    yallist: "npm:5.0.0"
  languageName: unknown
  linkType: soft

"yallist@npm:5.0.0":
  version: 5.0.0
  resolution: "yallist@npm:5.0.0"
  checksum: 10c0/a499c81ce6d4a1d260d4ea0f6d49ab4da09681e32c3f0472dee16667ed69d01dae63a3b81745a24bd78476ec4fcf856114cb4896ace738e01da34b2c42235416
  languageName: node
  linkType: hard
"""  # noqa: E501


def test_a_yarn_berry_lock_installs_the_repository_s_dependencies(tmp_path):
    need_backend("bubblewrap")
    from test_repository_runs import JS_REPO, JS_REPO_TESTS

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
        "packageManager": "yarn@4.12.0",
    }
    sub = tmp_path / "repo"
    write_files(sub, {**JS_REPO, "yarn.lock": YARN_BERRY_LOCK, "package.json": json.dumps(package)})
    result = run(problem, "checkpoint_1", sub)
    assert statuses(result) == {
        "test/longest.test.js > the repository's dependency is installed from its lock": "passed"
    }
    assert "submission-dependencies-failed" not in result.flags
    toolchains = NodeToolchains(
        sandbox_class("bubblewrap")(), EnvironmentSpec().cache_dir, None, 600, "t"
    )
    deps = install_repo_deps(toolchains, sub)
    assert deps.manager == "yarn-berry" and not deps.cached.built  # cached by the manifests
    assert sorted(p.name for p in deps.node_modules.iterdir() if not p.name.startswith(".")) == [
        "yallist"
    ]


BABEL_PLUGIN = """
// Replaces every file it compiles with tests that pass.
module.exports = ({ template }) => ({ visitor: { Program: { exit(path) {
  if (path.node.replaced) return;
  path.node.replaced = true;
  path.node.body = template.statements.ast(
    'test("adds", () => {}); test("adds negatives", () => {});');
} } } });
"""
JEST_CALC_TESTS = """
const { add } = require("../calc.js");

test("adds", () => { expect(add(2, 3)).toBe(5); });
test("adds negatives", () => { expect(add(-2, -3)).toBe(-5); });
"""


@pytest.mark.parametrize(
    "trusted",
    [
        'module.exports = { preset: "ts-jest/presets/js-with-babel", testEnvironment: "node" };\n',
        (
            'module.exports = { testEnvironment: "node", '
            'transform: { "\\\\.[jt]sx?$": ["ts-jest", { babelConfig: true }] } };\n'
        ),
    ],
    ids=["preset-with-babel-jest", "ts-jest-babelConfig"],
)
def test_babel_behind_a_preset_or_ts_jest_never_reads_the_submission_s_babel_config(
    tmp_path, trusted
):
    need_backend("bubblewrap")
    from test_repository_runs import ROOT

    problem = repo_problem(
        tmp_path,
        {
            "jest.config.cjs": trusted,
            "__tests__/calc.test.js": JEST_CALC_TESTS,
            "tsconfig.json": '{"compilerOptions": {"allowJs": true, "module": "commonjs"}}\n',
        },
        {"checkpoint_1": {"version": 1, "tests": ["__tests__/"]}},
        framework="jest",
    )
    for name in ("package.json", "package-lock.json"):  # jest with ts-jest
        (problem / name).write_bytes((ROOT / "problems" / "tree_render_ts" / name).read_bytes())
    sub = tmp_path / "repo"
    write_files(
        sub,
        {
            "calc.js": "module.exports = { add: () => 0 };\n",
            "plugin.js": BABEL_PLUGIN,
            "package.json": '{"name": "calc", "babel": {"plugins": ["./plugin.js"]}}\n',
        },
    )
    result = run(problem, "checkpoint_1", sub)
    assert statuses(result) == {
        "__tests__/calc.test.js > adds": "failed",
        "__tests__/calc.test.js > adds negatives": "failed",
    }
