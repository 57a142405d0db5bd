"""kind: repository without running a framework: its configuration and the errors a user sees,
which files a checkpoint's patterns select, what is laid into the copy (and what is not), and
what the scan skips. Real runs are in test_repository_runs.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from support import write_files

from runners import load_problem
from runners.frameworks.registry import builtin_protected
from runners.model.errors import ConfigError
from runners.repository import overlay, selection
from runners.repository.python_env import repo_requirements
from runners.scan import scan_submission

ROOT = Path(__file__).resolve().parent.parent


def repo_problem(
    root: Path, files: dict[str, str], checkpoints: dict, framework: str = "pytest", **config
) -> Path:
    problem = root / "problem"
    data = {
        "name": "demo",
        "version": 1,
        "description": "a repository problem",
        "tags": ["t"],
        "kind": "repository",
        "framework": framework,
        "checkpoints": checkpoints,
        **config,
    }
    problem.mkdir(parents=True)
    (problem / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    write_files(problem / "overlay", files)
    return problem


def error_of(problem: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_problem(problem)
    return str(caught.value)


# ---- configuration ------------------------------------------------------------------------------


def test_the_example_repository_problems_load():
    for name in ("rangeset_lib", "lru_cache_ts", "tree_render_ts"):
        problem = load_problem(ROOT / "problems" / name)
        assert problem.kind == "repository" and problem.entry_file == ""
        assert all(cp.tests for cp in problem.checkpoints.values())


def test_a_checkpoint_without_tests_names_the_field(tmp_path):
    problem = repo_problem(
        tmp_path, {"tests/test_a.py": "def test_a(): pass\n"}, {"checkpoint_1": {"version": 1}}
    )
    message = error_of(problem)
    assert (
        "config.yaml" in message
        and "field `checkpoints.checkpoint_1.tests`: required for kind: repository" in message
    )


def test_patterns_that_select_nothing_and_a_missing_overlay_are_named(tmp_path):
    problem = repo_problem(
        tmp_path,
        {"tests/test_a.py": "def test_a(): pass\n", "tests/helper.py": ""},
        {"checkpoint_1": {"version": 1, "tests": ["tests/", "spec/**/*.py", "tests/helper*.py"]}},
        repository={"config": "pytest.ini"},
    )
    message = error_of(problem)
    assert (
        "field `checkpoints.checkpoint_1.tests`: 'spec/**/*.py' "
        "selects none of the pytest test files"
    ) in message
    assert "'tests/helper*.py' selects none" in message  # a glob selects test files only
    assert "field `repository.config`: overlay/pytest.ini does not exist" in message
    (problem / "overlay").rename(problem / "elsewhere")
    assert "directory `overlay/` is missing next to config.yaml" in error_of(problem)


def test_kind_specific_fields_are_refused_where_they_mean_nothing(tmp_path):
    problem = repo_problem(
        tmp_path,
        {"test/a.test.ts": ""},
        {"checkpoint_1": {"version": 1, "tests": ["test/"], "doctests": ["src/"]}},
        framework="vitest",
        repository={"extras": ["x"], "install": True},
    )
    message = error_of(problem)
    assert "field `checkpoints.checkpoint_1.doctests`: only for framework pytest" in message
    assert "field `repository.install`: only for framework pytest" in message
    assert "field `repository.extras`: only for framework pytest" in message
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "tests").mkdir()
    (suite / "config.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "s",
                "version": 1,
                "description": "d",
                "tags": ["t"],
                "entry_file": "main",
                "repository": {"config": "x"},
                "checkpoints": {"checkpoint_1": {"version": 1, "tests": ["a"]}},
            }
        )
    )
    message = error_of(suite)
    assert "field `repository`: only for kind: repository" in message
    assert "field `checkpoints.checkpoint_1.tests`: only for kind: repository" in message
    go = repo_problem(
        tmp_path / "go",
        {"a_test.go": ""},
        {"checkpoint_1": {"version": 1, "tests": ["a_test.go"]}},
        framework="go",
    )
    assert "field `framework`: kind: repository runs pytest, vitest, jest (got 'go')" in error_of(
        go
    )


@pytest.mark.parametrize("pattern", ["/abs/test_a.py", "../test_a.py", "tests/../../x", " "])
def test_patterns_must_stay_inside_the_repository(tmp_path, pattern):
    problem = repo_problem(
        tmp_path, {"tests/test_a.py": ""}, {"checkpoint_1": {"version": 1, "tests": [pattern]}}
    )
    assert "expected a path or glob relative to the repository root, without '..'" in error_of(
        problem
    )


@pytest.mark.parametrize(
    "framework, name, text, expected",
    [
        (
            "jest",
            "package.json",
            '{"name": "x"}',
            (
                "overlay/package.json: field `jest`: expected an object (the jest "
                "configuration `repository.config` trusts)"
            ),
        ),
        (
            "pytest",
            "pyproject.toml",
            "[project]\nname = 'x'\n",
            (
                "overlay/pyproject.toml: table `[tool.pytest.ini_options]` "
                "(or `[tool.pytest]`) is missing"
            ),
        ),
        (
            "pytest",
            "pyproject.toml",
            "[tool.pytest.ini_options\n",
            "overlay/pyproject.toml: cannot be read (TOMLDecodeError",
        ),
        (
            "pytest",
            "setup.cfg",
            "[metadata]\nname = x\n",
            "overlay/setup.cfg: section `[tool:pytest]` is missing",
        ),
    ],
)
def test_a_trusted_manifest_without_the_framework_s_section_is_refused(
    tmp_path, framework, name, text, expected
):
    tests = {"jest": ("test/a.test.js", "test/"), "pytest": ("tests/test_a.py", "tests/")}[
        framework
    ]
    problem = repo_problem(
        tmp_path,
        {tests[0]: "", name: text},
        {"checkpoint_1": {"version": 1, "tests": [tests[1]]}},
        framework=framework,
        repository={"config": name},
    )
    assert expected in error_of(problem)


def test_a_trusted_manifest_is_read_never_laid(tmp_path):
    problem = repo_problem(
        tmp_path,
        {"tests/test_a.py": "", "setup.cfg": "[tool:pytest]\nxfail_strict = true\n"},
        {"checkpoint_1": {"version": 1, "tests": ["tests/"]}},
    )
    loaded = load_problem(problem)
    assert overlay.trusted_config(loaded) == "setup.cfg"  # found on its own, as before
    assert overlay.laid_files(loaded, loaded.checkpoints["checkpoint_1"]) == ["tests/test_a.py"]


@pytest.mark.parametrize("target", ["/etc/passwd", "../../config.yaml", "missing.txt", "."])
def test_an_overlay_symlink_out_of_the_overlay_is_refused(tmp_path, target):
    problem = repo_problem(
        tmp_path, {"tests/test_a.py": ""}, {"checkpoint_1": {"version": 1, "tests": ["tests/"]}}
    )
    os.symlink(target, problem / "overlay" / "tests" / "conftest.py")
    assert (
        "overlay/tests/conftest.py: a symbolic link that leaves overlay/ or points nowhere "
        "(a link must be "
        "relative, to a file of the overlay)"
    ) in error_of(problem)


def test_an_overlay_symlink_to_an_overlay_file_is_a_fixture(tmp_path):
    problem = repo_problem(
        tmp_path,
        {"tests/test_a.py": "", "tests/data/real.txt": "x"},
        {"checkpoint_1": {"version": 1, "tests": ["tests/"]}},
    )
    os.symlink("real.txt", problem / "overlay" / "tests" / "data" / "link.txt")
    assert "tests/data/link.txt" in overlay.overlay_files(load_problem(problem))


def test_a_node_modules_at_the_overlay_root_is_refused_deeper_it_is_test_data(tmp_path):
    problem = repo_problem(
        tmp_path,
        {
            "test/a.test.js": "",
            "test/fixture/node_modules/pkg/index.js": "",
            "test/fixture/node_modules/pkg/b.test.js": "",
            "node_modules/x/index.js": "",
        },
        {"checkpoint_1": {"version": 1, "tests": ["test/"]}},
        framework="vitest",
    )
    assert (
        "overlay/node_modules: not allowed "
        "(the repository's node_modules holds its own dependencies"
    ) in error_of(problem)
    shutil.rmtree(problem / "overlay" / "node_modules")
    loaded = load_problem(problem)
    files = overlay.overlay_files(loaded)
    assert "test/fixture/node_modules/pkg/index.js" in files
    # a folder selects no test file of a fixture package, as vitest and jest never collect there
    assert selection.selected_tests(loaded, loaded.checkpoints["checkpoint_1"], files) == {
        "test/a.test.js": "checkpoint_1"
    }


# ---- selection ---------------------------------------------------------------------------------

FILES = [
    "tests/test_a.py",
    "tests/unit/test_b.py",
    "tests/unit/helpers.py",
    "tests/data/x_test.py",
    "README.md",
    "test/a.test.ts",
    "test/deep/b.spec.mjs",
    "test/types.test-d.ts",
    "test/util.ts",
    "src/__tests__/c.js",
    "src/__tests__/fixture.json",
]


@pytest.mark.parametrize(
    ("pattern", "wanted", "expected"),
    [
        ("tests/", "pytest", ["tests/test_a.py", "tests/unit/test_b.py", "tests/data/x_test.py"]),
        ("tests/unit", "pytest", ["tests/unit/test_b.py"]),
        ("tests/**/test_*.py", "pytest", ["tests/test_a.py", "tests/unit/test_b.py"]),
        ("tests/*/test_*.py", "pytest", ["tests/unit/test_b.py"]),
        ("tests/unit/helpers.py", "pytest", ["tests/unit/helpers.py"]),  # named literally: selected
        ("README.md", "pytest", ["README.md"]),
        ("test/", "vitest", ["test/a.test.ts", "test/deep/b.spec.mjs", "test/types.test-d.ts"]),
        ("test/", "jest", ["test/a.test.ts", "test/deep/b.spec.mjs"]),  # type tests are vitest's
        ("src/", "jest", ["src/__tests__/c.js"]),  # any script under __tests__
        (".", "pytest", ["tests/test_a.py", "tests/unit/test_b.py", "tests/data/x_test.py"]),
    ],
)
def test_what_a_pattern_selects(pattern, wanted, expected):
    assert selection.match(pattern, FILES, wanted) == expected


def test_doctest_patterns_select_modules_and_text():
    files = [
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "src/pkg/data.json",
        "README.md",
        "docs/guide.rst",
    ]
    assert selection.match("src/pkg/", files, "doctest") == [
        "src/pkg/__init__.py",
        "src/pkg/core.py",
    ]
    assert selection.match("docs/*.rst", files, "doctest") == ["docs/guide.rst"]
    assert selection.match("README.md", files, "doctest") == ["README.md"]


def checkpoints_problem(tmp_path: Path) -> Path:
    return repo_problem(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "tests/conftest.py": "",
            "tests/test_one.py": "",
            "tests/two/test_two.py": "",
            "tests/two/test_more.py": "",
            "tests/three/test_three.py": "",
            "tests/data.json": "{}",
            "docs/usage.md": ">>> 1\n1\n",
        },
        {
            "checkpoint_1": {
                "version": 1,
                "tests": ["tests/test_one.py"],
                "doctests": ["src/pkg/"],
            },
            "checkpoint_2": {"version": 1, "tests": ["tests/two/", "docs/usage.md"]},
            "checkpoint_3": {"version": 1, "tests": ["tests/**/test_*.py"]},
        },
    )


def test_each_test_file_belongs_to_the_first_checkpoint_that_selects_it(tmp_path):
    problem = load_problem(checkpoints_problem(tmp_path))
    files = overlay.overlay_files(problem)
    assert selection.selected_tests(problem, problem.checkpoint("checkpoint_3"), files) == {
        "tests/test_one.py": "checkpoint_1",
        "tests/two/test_more.py": "checkpoint_2",
        "tests/two/test_two.py": "checkpoint_2",
        "docs/usage.md": "checkpoint_2",
        "tests/three/test_three.py": "checkpoint_3",
    }
    assert (
        selection.checkpoint_of(problem, "tests/two/test_two.py", "checkpoint_3") == "checkpoint_2"
    )
    assert (
        selection.checkpoint_of(problem, "src/pkg/core.py", "checkpoint_3") == "checkpoint_1"
    )  # its doctests
    assert selection.checkpoint_of(problem, "elsewhere.py", "checkpoint_3") == "checkpoint_3"


def test_a_run_lays_no_test_of_a_later_checkpoint_nor_its_snapshots(tmp_path):
    problem = load_problem(
        repo_problem(
            tmp_path,
            {
                "vitest.config.mjs": "",
                "test/a.test.ts": "",
                "test/b.test.ts": "",
                "test/helpers.ts": "",
                "test/__snapshots__/a.test.ts.snap": "",
                "test/__snapshots__/b.test.ts.snap": "",
            },
            {
                "checkpoint_1": {"version": 1, "tests": ["test/a.test.ts"]},
                "checkpoint_2": {"version": 1, "tests": ["test/b.test.ts"]},
            },
            framework="vitest",
        )
    )
    assert overlay.laid_files(problem, problem.checkpoint("checkpoint_1")) == [
        "test/__snapshots__/a.test.ts.snap",
        "test/a.test.ts",
        "test/helpers.ts",
        "vitest.config.mjs",
    ]
    assert len(overlay.laid_files(problem, problem.checkpoint("checkpoint_2"))) == 6


def test_the_trusted_configuration_is_found_at_the_overlay_root(tmp_path):
    problem = load_problem(checkpoints_problem(tmp_path))
    assert overlay.trusted_config(problem) == "pytest.ini"


# ---- laying the overlay --------------------------------------------------------------------------


def test_the_overlay_replaces_files_links_and_linked_directories_and_removes_owned_config(tmp_path):
    problem = load_problem(checkpoints_problem(tmp_path))
    sub = tmp_path / "copy"
    outside = tmp_path / "outside"
    write_files(outside, {"conftest.py": "EVIL\n", "test_one.py": "EVIL\n"})
    write_files(
        sub,
        {
            "pkg.py": "x = 1\n",
            "conftest.py": "EVIL\n",
            "src/pkg/conftest.py": "EVIL\n",
            "sitecustomize.py": "EVIL\n",
            "pytest.ini": "EVIL\n",
            "docs/usage.md": "EVIL\n",
            "setup.cfg": "[tool:pytest]\n",
        },
    )
    os.symlink(outside, sub / "tests")  # the overlaid directory is a link out of the repository
    os.symlink(outside / "conftest.py", sub / "docs" / "conftest.py")
    keep = tmp_path / "keep"
    files = overlay.laid_files(problem, problem.checkpoint("checkpoint_2"))
    notes = overlay.lay(problem, files, sub, keep)
    for rel in files:
        assert (
            (sub / rel).read_text()
            == (problem.overlay_dir / rel).read_text()
            == (keep / rel).read_text()
        )
    assert not (sub / "tests").is_symlink() and (outside / "test_one.py").read_text() == "EVIL\n"
    for gone in ("conftest.py", "src/pkg/conftest.py", "sitecustomize.py", "docs/conftest.py"):
        assert not os.path.lexists(sub / gone), gone
    assert (sub / "pkg.py").read_text() == "x = 1\n" and (
        sub / "setup.cfg"
    ).exists()  # never read by pytest
    assert not (sub / "tests" / "three").exists()  # a later checkpoint's tests
    assert notes and "conftest.py" in notes[0] and "sitecustomize.py" in notes[0]


def test_repository_requirements_come_from_its_files(tmp_path):
    from runners.model.config import RepositoryConfig

    write_files(
        tmp_path,
        {
            "requirements.txt": "tomli-w==1.2.0  # toml\n-r other.txt\n",
            "requirements-test.txt": "pytest-mock\n",
            "pyproject.toml": "[project]\nname = 'x'\ndependencies = ['attrs>=23']\n"
            "[project.optional-dependencies]\nfast = ['orjson']\n",
        },
    )
    assert repo_requirements(tmp_path, RepositoryConfig()) == (
        ["tomli-w==1.2.0", "attrs>=23"],
        "requirements.txt and pyproject.toml",
    )
    chosen = RepositoryConfig(requirements=["requirements*.txt"], extras=["fast"])
    assert repo_requirements(tmp_path, chosen)[0] == [
        "pytest-mock",
        "tomli-w==1.2.0",
        "attrs>=23",
        "orjson",
    ]


def test_the_scan_skips_the_problem_s_files_but_not_the_submission_s(tmp_path):
    write_files(tmp_path, {"src/laid.py": "import _pytest\n", "lib.py": "import _pytest\n"})
    flags = scan_submission(tmp_path, "", builtin_protected(), skip={"src/laid.py"})
    assert len(flags) == 1 and flags[0].startswith("grader-touching: lib.py:1 imports _pytest"), (
        flags
    )
