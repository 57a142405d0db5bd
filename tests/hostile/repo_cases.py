"""Hostile submissions to repository problems (kind: repository): the submission is a repository,
and the problem lays its tests and the configuration it trusts over it at their paths.

Each framework gets a control (an honest repository), a submission that ships its own
configuration at exactly the paths the problem overlays (and at the ones it does not: removed),
and one whose overlaid paths are symbolic links out of the repository (to a directory of hostile
configuration beside it) or into it. The wrong library must fail every test: nothing it ships
changes how it is graded.
"""

from __future__ import annotations

import os
from pathlib import Path

from .cases import (
    CJS_HONEST,
    CJS_WRONG,
    FAIL,
    FORCE_PASS_HOOK,
    HONEST_CALC,
    JEST_CONFIG,
    JEST_REPORTER,
    JEST_SETUP,
    JEST_TRANSFORM,
    MJS_HONEST,
    MJS_WRONG,
    PASS,
    PYTEST_PATCH_CALC,
    SKIP_ALL_HOOK,
    VITEST_CONFIG,
    VITEST_REPORTER,
    VITEST_SETUP,
    WRONG_CALC,
    Case,
)

PY_ALL_FAILED = {"test_add": "failed", "test_sub": "failed", "test_rejects_words": "failed"}
JS_ALL_FAILED = {"adds": "failed", "subtracts": "failed", "rejects words @error": "failed"}
# The tests the submission would like to be graded by: all pass whatever the library does.
OWN_PY_TESTS = (
    "def test_add():\n"
    "    pass\n\n\n"
    "def test_sub():\n"
    "    pass\n\n\n"
    "def test_rejects_words():\n"
    "    pass\n"
)
OWN_JS_TESTS = (
    'import { test } from "vitest";\n\ntest("adds", () => {});\ntest("subtracts", () => {});\n'
    'test("rejects words @error", () => {});\n'
)
OWN_JEST_TESTS = (
    'test("adds", () => {});\n'
    'test("subtracts", () => {});\n'
    'test("rejects words @error", () => {});\n'
)

PY_SHADOW = {
    "calc.py": WRONG_CALC,
    "hostile_plugin.py": FORCE_PASS_HOOK,
    # at the paths the problem overlays
    "pytest.ini": "[pytest]\naddopts = -p hostile_plugin -p no:json_report -k nothing\n",
    "tests/conftest.py": FORCE_PASS_HOOK,
    "tests/test_calc.py": OWN_PY_TESTS,
    # and where it overlays nothing (removed from the run's copy, or never read)
    "conftest.py": SKIP_ALL_HOOK,
    "tests/sub/conftest.py": FORCE_PASS_HOOK,
    "sitecustomize.py": PYTEST_PATCH_CALC,
    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p hostile_plugin'\n",
}
VITEST_SHADOW = {
    "calc.mjs": MJS_WRONG,
    "vitest.config.mjs": VITEST_CONFIG,
    "vite.config.mjs": VITEST_CONFIG,
    "vitest.config.ts": VITEST_CONFIG,
    "setup.mjs": VITEST_SETUP,
    "reporter.mjs": VITEST_REPORTER,
    "test/calc.test.mjs": OWN_JS_TESTS,
    "tsconfig.json": '{"compilerOptions": {"paths": {"vitest": ["./fake"]}}}\n',
    "package.json": '{"name": "calc", "type": "module", "vitest": {"include": ["none"]}}\n',
}
JEST_SHADOW = {
    "calc.js": CJS_WRONG,
    "jest.config.cjs": JEST_CONFIG,
    "jest.config.js": JEST_CONFIG,
    "setup.js": JEST_SETUP,
    "reporter.js": JEST_REPORTER,
    "transform.js": JEST_TRANSFORM,
    "__tests__/calc.test.js": OWN_JEST_TESTS,
    ".babelrc": '{"plugins": ["./transform.js"]}\n',
    "babel.config.js": 'module.exports = { plugins: ["./transform.js"] };\n',
    "package.json": '{"name": "calc", "jest": {"testMatch": ["**/nothing"]}}\n',
}

# Start-up hooks in every form Python imports (a package, not only a module), config files with
# addopts pytest would find on its own, and a .pth file: none may load the hostile plugin.
PY_STARTUP = {
    "calc.py": WRONG_CALC,
    "hostile_plugin.py": FORCE_PASS_HOOK,
    "sitecustomize/__init__.py": 'import os\nos.environ["PYTEST_PLUGINS"] = "hostile_plugin"\n',
    "usercustomize/__init__.py": 'import os\nos.environ["PYTEST_ADDOPTS"] = "-p hostile_plugin"\n',
    "hostile.pth": "import hostile_plugin\n",
    "tox.ini": "[pytest]\naddopts = -p hostile_plugin\n",
    "setup.cfg": "[tool:pytest]\naddopts = -p hostile_plugin\n",
    "pytest.toml": "[pytest]\naddopts = ['-p', 'hostile_plugin']\n",
}
VITEST_MORE = {
    "calc.mjs": MJS_WRONG,
    "setup.mjs": VITEST_SETUP,
    "vitest.workspace.mjs": 'export default [{ test: { setupFiles: ["./setup.mjs"] } }];\n',
    "vitest.projects.mjs": 'export default [{ test: { setupFiles: ["./setup.mjs"] } }];\n',
    # a shipped vitest whose expect passes everything: never copied into the run
    "node_modules/vitest/package.json": '{"name": "vitest", "type": "module", "exports": '
    '"./index.mjs"}\n',
    "node_modules/vitest/index.mjs": "export const test = (n, f) => {};\n"
    "export const expect = () => ({ toBe() {}, toThrow() "
    "{} });\n",
}
JEST_MORE = {
    "calc.js": CJS_WRONG,
    "setup.js": JEST_SETUP,
    "plugin.js": "module.exports = () => ({ visitor: {} });\n",
    "jest.config.ts": JEST_CONFIG,
    "jest.config.json": '{"setupFilesAfterEnv": ["./setup.js"]}\n',
    ".swcrc": '{"jsc": {"transform": {"optimizer": {"globals": {"vars": {"expect": '
    '"undefined"}}}}}}\n',
    "package.json": '{"name": "calc", "jest": {"setupFilesAfterEnv": ["./setup.js"]}, '
    '"babel": {"plugins": ["./plugin.js"]}}\n',
}


def _linked_out(outside: dict[str, str], links: dict[str, str]):  # type: ignore[no-untyped-def]
    """A build step: `outside` written beside the submission (out of the repository), then each
    of `links` (path -> target, `@OUT@` for that directory) made a symbolic link."""

    def build(sub: Path) -> None:
        out = sub.parent / f"{sub.name}-outside"
        for rel, text in outside.items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for rel, target in links.items():
            link = sub / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target.replace("@OUT@", str(out)), link)

    return build


def repo_cases() -> list[Case]:
    return [
        Case(
            "repo-pytest-honest",
            "control",
            "an honest repository (pytest, imported by name)",
            {"calc.py": HONEST_CALC},
            frozenset({PASS}),
            "control",
            framework="repo-pytest",
        ),
        Case(
            "repo-pytest-config-shadow",
            "§6.12, §6.16",
            "ships pytest.ini, tests/conftest.py and tests/test_calc.py at the paths the problem "
            "overlays, plus a root conftest, a nested one, sitecustomize.py and pyproject pytest "
            "settings",
            PY_SHADOW,
            frozenset({FAIL}),
            "overlaid paths replaced by the problem's files (read-only); other conftest.py and "
            "start-up hooks removed from the copy; -c the problem's ini",
            framework="repo-pytest",
            statuses=PY_ALL_FAILED,
            flags=(r"grader-touching: hostile_plugin\.py:\d+ pytest_runtest_makereport",),
        ),
        Case(
            "repo-pytest-config-symlinks",
            "§6.10, §6.16",
            "pytest.ini, tests/ and conftest.py are symbolic "
            "links out of the repository, to hostile configuration beside it",
            {"calc.py": WRONG_CALC},
            frozenset({FAIL}),
            "links copied as links, then replaced by the "
            "problem's files (a link on the way is removed, never followed)",
            framework="repo-pytest",
            statuses=PY_ALL_FAILED,
            build=_linked_out(
                {
                    "pytest.ini": PY_SHADOW["pytest.ini"],
                    "tests/conftest.py": FORCE_PASS_HOOK,
                    "tests/test_calc.py": OWN_PY_TESTS,
                    "conftest.py": SKIP_ALL_HOOK,
                },
                {
                    "pytest.ini": "@OUT@/pytest.ini",
                    "tests": "@OUT@/tests",
                    "conftest.py": "@OUT@/conftest.py",
                },
            ),
        ),
        Case(
            "repo-pytest-startup-hooks",
            "§6.12, §6.16",
            "ships sitecustomize/ and usercustomize/ packages (setting PYTEST_PLUGINS, "
            "PYTEST_ADDOPTS to a plugin of its own), a .pth file importing it, and tox.ini, "
            "setup.cfg and pytest.toml whose addopts load it",
            PY_STARTUP,
            frozenset({FAIL}),
            "an empty sitecustomize/usercustomize in the layered environment, found first on "
            "sys.path; .pth files run only from its own site-packages; -c the problem's ini",
            framework="repo-pytest",
            statuses=PY_ALL_FAILED,
            flags=(r"grader-touching: hostile_plugin\.py:\d+ pytest_runtest_makereport",),
        ),
        Case(
            "repo-vitest-honest",
            "control",
            "an honest repository (vitest, imported relatively)",
            {"calc.mjs": MJS_HONEST},
            frozenset({PASS}),
            "control",
            framework="repo-vitest",
        ),
        Case(
            "repo-vitest-config-shadow",
            "§6.16",
            "ships vitest.config.mjs and test/calc.test.mjs at the overlaid paths, plus "
            "vite.config.mjs, vitest.config.ts, a tsconfig remapping vitest and "
            "package.json#vitest",
            VITEST_SHADOW,
            frozenset({FAIL}),
            "overlaid paths replaced; other "
            "vitest/vite configs and tsconfig removed; our config loads the problem's",
            framework="repo-vitest",
            statuses=JS_ALL_FAILED,
        ),
        Case(
            "repo-vitest-config-symlinks",
            "§6.10, §6.16",
            "vitest.config.mjs and test/ are symbolic links out of the repository",
            {"calc.mjs": MJS_WRONG, "setup.mjs": VITEST_SETUP},
            frozenset({FAIL}),
            "links replaced by the problem's files, never followed",
            framework="repo-vitest",
            statuses=JS_ALL_FAILED,
            build=_linked_out(
                {"vitest.config.mjs": VITEST_CONFIG, "test/calc.test.mjs": OWN_JS_TESTS},
                {
                    "vitest.config.mjs": "@OUT@/vitest.config.mjs",
                    "test": "@OUT@/test",
                    "vite.config.mjs": "@OUT@/vitest.config.mjs",
                },
            ),
        ),
        Case(
            "repo-vitest-workspace-node-modules",
            "§6.16",
            "ships vitest.workspace.mjs and vitest.projects.mjs naming a setup file that makes "
            "every matcher pass, and a node_modules/vitest whose expect passes everything",
            VITEST_MORE,
            frozenset({FAIL}),
            "workspace and projects files removed from the copy (our "
            "config keeps one project); a shipped node_modules is never copied",
            framework="repo-vitest",
            statuses=JS_ALL_FAILED,
        ),
        Case(
            "repo-jest-honest",
            "control",
            "an honest repository (jest, required relatively)",
            {"calc.js": CJS_HONEST},
            frozenset({PASS}),
            "control",
            framework="repo-jest",
        ),
        Case(
            "repo-jest-config-shadow",
            "§6.16",
            "ships jest.config.cjs and __tests__/calc.test.js at the overlaid paths, plus "
            "jest.config.js, .babelrc and babel.config.js with a transform that replaces every "
            "test, and package.json#jest",
            JEST_SHADOW,
            frozenset({FAIL}),
            "overlaid paths replaced; "
            "other jest and babel configs removed; babel without the submission's config",
            framework="repo-jest",
            statuses=JS_ALL_FAILED,
        ),
        Case(
            "repo-jest-config-symlinks",
            "§6.10, §6.16",
            "jest.config.cjs, __tests__/ and .babelrc are symbolic links out of the repository",
            {"calc.js": CJS_WRONG, "transform.js": JEST_TRANSFORM},
            frozenset({FAIL}),
            "links replaced by the problem's files or removed, never followed",
            framework="repo-jest",
            statuses=JS_ALL_FAILED,
            build=_linked_out(
                {
                    "jest.config.cjs": JEST_CONFIG,
                    "__tests__/calc.test.js": OWN_JEST_TESTS,
                    ".babelrc": JEST_SHADOW[".babelrc"],
                },
                {
                    "jest.config.cjs": "@OUT@/jest.config.cjs",
                    "__tests__": "@OUT@/__tests__",
                    ".babelrc": "@OUT@/.babelrc",
                },
            ),
        ),
        Case(
            "repo-jest-more-config",
            "§6.16",
            "ships jest.config.ts, jest.config.json, .swcrc, and package.json with a jest "
            "section (setupFilesAfterEnv making every matcher pass) and a babel section naming a "
            "plugin",
            JEST_MORE,
            frozenset({FAIL}),
            "jest and swc configs removed from the copy; package.json#jest never read (--config "
            "is ours); babel-jest runs with babelrc off, so package.json#babel is never read",
            framework="repo-jest",
            statuses=JS_ALL_FAILED,
        ),
    ]
