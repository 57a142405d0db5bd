"""The real open-source repositories `bench/repo_suites.py` grades as kind: repository problems.

Each is described by data only: which of its own files the problem owns (its tests, their data
and snapshots, the configuration it trusts: copied from the repository as they are, never written
by hand), which tests the checkpoint selects, the test toolchain (the versions its own lock file
pins), the command it runs its suite with upstream, and one deliberate bug for the broken copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "repos"


@dataclass(frozen=True)
class Project:
    name: str
    repo: str  # owner/name on GitHub
    commit: str
    license: str
    framework: str
    overlay: tuple[str, ...]  # globs of the repository's files the problem owns
    checkpoint: dict[str, list[str]]  # `tests:` (and `doctests:`) of its one checkpoint
    native: tuple[str, ...]  # the framework's arguments as the project runs its suite
    breaks: tuple[str, str, str]  # (file, text, replacement): the broken copy's bug
    settings: dict[str, Any] = field(default_factory=dict)  # more config.yaml fields
    toolchain: dict[str, str] = field(default_factory=dict)  # JS: the test toolchain's packages
    native_python: tuple[str, ...] = ()  # pytest: what the project's CI installs besides pytest
    native_extras: tuple[str, ...] = ()  # pytest: the extras its CI installs the project with
    # JS: the package manager the project installs itself with (pnpm, yarn-berry, yarn, npm): the
    # framework's own run then uses the project's full install, not the problem's toolchain.
    native_install: str = ""
    # JS: the project's own build (a toolchain bin and its arguments, and its environment), run in
    # the checkout before the suite, as its CI does: the submission is the built repository.
    build: tuple[str, ...] = ()
    build_env: dict[str, str] = field(default_factory=dict)
    vendored: bool = False  # a copy (with its license) is in tests/fixtures/repos/<name>
    covers: str = ""  # what of the list it exercises (for the table's notes)

    def source(self, mirror: Path) -> Path:
        """Where its files come from: the vendored copy, else a fetched mirror (git dir)."""
        if self.vendored:
            return FIXTURES / self.name
        return mirror / self.repo.replace("/", "+") / "repo"


PROJECTS: tuple[Project, ...] = (
    Project(
        name="inflection",
        repo="jpvanhal/inflection",
        commit="88eefaacf7d0caaa701af7c8ab2d0ab3f17086f1",
        license="MIT",
        framework="pytest",
        # tox.ini's [pytest] addopts = --doctest-modules: the module's examples are tests too.
        overlay=("test_inflection.py",),
        checkpoint={"tests": ["test_inflection.py"], "doctests": ["inflection/"]},
        native=("--doctest-modules", "test_inflection.py", "inflection"),
        breaks=(
            "inflection/__init__.py",
            'word = re.sub(r"_id$", "", word)',
            'word = re.sub(r"_ids$", "", word)',
        ),
        settings={"python": ">=3.10"},
        vendored=True,
        covers="a setup.py/setup.cfg project installed offline (setuptools-scm without .git), its "
        "requirements.txt, a test file at the root, the module's doctests",
    ),
    Project(
        name="tabulate",
        repo="astanin/python-tabulate",
        commit="268615a5c27dc40e5c22454c07b44d5c50410da0",
        license="MIT",
        framework="pytest",
        overlay=("test/*.py",),
        # pyproject's addopts: --doctest-modules --ignore=benchmark --doctest-glob=README.md
        checkpoint={"tests": ["test/"], "doctests": ["tabulate/", "README.md"]},
        native=(),  # plain `pytest`: its pyproject.toml's addopts (the harness never reads them)
        breaks=("tabulate/__init__.py", "MIN_PADDING = 2", "MIN_PADDING = 1"),
        settings={"python": ">=3.10", "repository": {"extras": ["widechars"]}},
        native_python=("wcwidth>=0.6.0",),
        covers="a flit_scm build, an extra (widechars), tests importing a sibling helper module "
        "(`common`), its module's 16 doctests and README.md's examples (the 17 doctests), 9 test "
        "files of a folder",
    ),
    Project(
        name="ufo",
        repo="unjs/ufo",
        commit="11308c0bb5cb4a4bc3bfcbdc5c03177b097423e6",
        license="MIT",
        framework="vitest",
        # Its tests import ../src; types.test-d.ts holds type tests (`vitest run --typecheck`).
        overlay=("test/**/*", "tsconfig.json"),
        checkpoint={"tests": ["test/"]},
        native=("run", "--typecheck"),
        breaks=("src/utils.ts", 'return input.endsWith("/");', 'return input.endsWith("//");'),
        toolchain={"vitest": "4.0.17", "typescript": "5.9.3", "@types/node": "25.0.8"},
        covers="TypeScript tests importing `../src`, 13 "
        "test files of a folder plus a type-test file (test-d.ts, checked by tsc), fixtures, a "
        "pnpm lock (no runtime dependency), vitest 4.0",
    ),
    Project(
        name="dedent",
        repo="dmnd/dedent",
        commit="bbce4c414fa2cf42503a953732852559cb47c8f2",
        license="MIT",
        framework="jest",
        # TypeScript through its .babelrc (babel-jest); setupFilesAfterEnv in jest.config.js;
        # snapshots; the macro's tests resolve its peer dependency babel-plugin-macros.
        # .prettierrc: babel-plugin-tester formats the macro's output with it before the snapshot.
        overlay=(
            "src/*.test.ts",
            "src/__snapshots__/*",
            "jest.config.js",
            ".babelrc",
            ".prettierrc",
        ),
        checkpoint={"tests": ["src/"]},
        native=("--ci",),
        breaks=("src/dedent.ts", "result = result.trim();", "result = result.trimEnd();"),
        toolchain={
            "jest": "29.7.0",
            "@babel/cli": "7.23.0",
            "@babel/core": "7.23.3",
            "@babel/preset-env": "7.23.3",
            "@babel/preset-typescript": "7.23.3",
            "babel-plugin-add-module-exports": "1.0.4",
            "babel-plugin-macros": "3.1.0",
            "babel-plugin-tester": "11.0.4",
            "console-fail-test": "0.2.3",
            "prettier": "3.0.3",
            "prettier-plugin-curly": "0.1.3",
            "prettier-plugin-packagejson": "2.4.6",
        },
        # package.json's build:legacy, which the macro (macro.js requires dist/dedent.js) needs.
        build=("@babel/cli/bin/babel.js", "src/dedent.ts", "--out-file", "dist/dedent.js"),
        build_env={"BABEL_ENV": "legacy"},
        covers="TypeScript through its .babelrc under jest 29, snapshots, setupFilesAfterEnv from "
        "jest.config.js, the macro's peer dependency (babel-plugin-macros) resolved from the "
        "repository's code, its .prettierrc (snapshot formatting) trusted",
    ),
)
# Added by the outside review of issue 15: each stresses what the README promises, set up from
# the README alone (see bench/RESULTS.md section 10 for what each needed).
PROJECTS += (
    Project(
        name="humanize",
        repo="python-humanize/humanize",
        commit="c3a124cdeb272d7f63bc0aa66f79c6fbafd2fc6d",
        license="MIT",
        framework="pytest",
        # Its pytest settings are in pyproject.toml ([tool.pytest]: filterwarnings = error, addopts,
        # testpaths): the problem trusts that file, read from the problem, never laid.
        overlay=("tests/**/*", "pyproject.toml"),
        checkpoint={"tests": ["tests/"]},
        native=(),  # plain `pytest`: its pyproject.toml's [tool.pytest]
        breaks=("src/humanize/number.py", "if not 0 <= value < 10:", "if not 0 <= value < 9:"),
        settings={
            "python": ">=3.10",
            "repository": {
                "config": "pyproject.toml",
                "extras": ["tests"],
                # the extra's plugins give the `benchmark` fixture (plugin autoloading is off)
                "plugins": ["pytest_benchmark.plugin", "pytest_codspeed.plugin"],
            },
        },
        native_extras=("tests",),
        covers="a src/ layout built by hatchling + hatch-vcs (its editable build asks for "
        "`editables`), pytest settings in pyproject.toml's [tool.pytest] (filterwarnings = error) "
        "trusted from the problem's copy, its `tests` extra with two plugins named in "
        "`repository.plugins`, 69 tests skipped without .mo files",
    ),
    Project(
        name="mlly",
        repo="unjs/mlly",
        commit="beece9be0a98bd170bfef6a4dca4cc84eb84cf74",
        license="MIT",
        framework="vitest",
        # Fixtures include symbolic links and packages under test/fixture/package/node_modules.
        overlay=("test/**/*", "tsconfig.json"),
        checkpoint={"tests": ["test/"]},
        native=("run",),
        breaks=("src/utils.ts", ".replace(/%../g, replacement);", ".replace(/%./g, replacement);"),
        # src/ imports a devDependency the build bundles (import-meta-resolve): the problem pins it.
        toolchain={
            "vitest": "4.1.6",
            "typescript": "5.9.3",
            "@types/node": "25.8.0",
            "import-meta-resolve": "4.2.0",
        },
        native_install="pnpm",
        covers="ES-module-only TypeScript with four runtime dependencies from its pnpm lock (pnpm "
        "10.33), fixture symbolic links and fixture packages in nested node_modules, a test "
        "importing a runtime dependency (ufo); the framework's own run on pnpm's full install",
    ),
    Project(
        name="jest_extended",
        repo="jest-community/jest-extended",
        commit="aef46108bec538d29542cb19ebc2f90e069052b8",
        license="MIT",
        framework="jest",
        # Its jest configuration is package.json#jest (ts-jest preset and transform with
        # tsconfig.test.json, moduleNameMapper for `src/...`, snapshot serializers and format,
        # watch plugins): trusted from the problem's copy of package.json, never laid.
        overlay=("test/**/*", "tsconfig.json", "tsconfig.test.json", "package.json"),
        checkpoint={"tests": ["test/"]},
        native=("--color=true", "--ci"),  # its `test` script
        breaks=("src/matchers/toBeEven.ts", "actual % 2 === 0)", "actual % 4 === 0)"),
        # its snapshots record colours (`jest --color=true`): the problem's env turns them on
        settings={"env": {"FORCE_COLOR": "1"}, "repository": {"config": "package.json"}},
        toolchain={
            "jest": "30.4.2",
            "ts-jest": "29.4.12",
            "typescript": "5.9.3",
            "jest-serializer-ansi-escapes": "5.0.0",
            "@jest/expect-utils": "30.4.1",
            "@types/jest": "30.0.0",
        },
        native_install="yarn-berry",
        covers="jest with ts-jest configured in package.json#jest, 76 snapshot files recorded in "
        "colour, a Yarn 4 lock (its runtime dependency jest-diff), tsconfig paths through "
        "moduleNameMapper, 155 test files; the framework's own run on Yarn's full install",
    ),
)
BY_NAME = {project.name: project for project in PROJECTS}
