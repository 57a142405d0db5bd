"""The code-quality figures of a submission (runners/quality, docs/quality.md): what they count,
that the submission's own settings and code never take part, that they stay within bounds, their
growth since the previous checkpoint, and that they never change the grade.

The tools are the real ones: lizard and ruff from the environment, ESLint and jscpd from the
project's node_modules (tests that need those are marked `node`).
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from fake_sandbox import Case, FakeSandbox, pytest_run
from support import make_problem, need, write_files

from runners import EnvironmentSpec, load_problem
from runners.engine.protocol import execute
from runners.frameworks.pytest_runner import PytestRunner
from runners.model.limits import ResourceLimits
from runners.model.results import ExecutionResult
from runners.quality import sources, tools
from runners.quality.measure import measure_directory

# 13 paths through one function: 11 `if`s, one `and`, and the way through.
BRANCHY = """
def classify(n, strict):
    if n < 0 and strict:
        return "negative"
    if n == 0:
        return "zero"
    if n == 1:
        return "one"
    if n == 2:
        return "two"
    if n == 3:
        return "three"
    if n == 4:
        return "four"
    if n == 5:
        return "five"
    if n == 6:
        return "six"
    if n == 7:
        return "seven"
    if n == 8:
        return "eight"
    if n == 9:
        return "nine"
    return "many"
"""

# Four lines of code, two comment lines, two blank lines; an unused import (F401, whose `noqa`
# is ignored).
SMALL = """
import os  # noqa: F401
# a comment

# another comment
def double(x):
    return x * 2

print(double(2))
"""

# The same twelve lines twice: one duplicated block for jscpd.
DUPLICATED = """
def load_a(rows):
    total = 0
    names = []
    for row in rows:
        if row.get("skip"):
            continue
        total += int(row["amount"]) * 3
        names.append(str(row["name"]).strip().lower())
    names.sort()
    return {"total": total, "names": names, "count": len(names)}


def load_b(rows):
    total = 0
    names = []
    for row in rows:
        if row.get("skip"):
            continue
        total += int(row["amount"]) * 3
        names.append(str(row["name"]).strip().lower())
    names.sort()
    return {"total": total, "names": names, "count": len(names)}
"""

SCRIPT_JS = """
/* eslint-disable */
const unused = 1;
function f(a) { return a + notDefinedAnywhere; }
module.exports = f;
"""

SCRIPT_TS = """
// eslint-disable-next-line
export function g(y: any): number { return y; }
"""

LIMITS = ResourceLimits()


def need_node_tools() -> None:
    modules = tools.node_modules()
    need(
        (modules / "eslint" / "bin" / "eslint.js").is_file()
        and (modules / "jscpd" / "run-jscpd.js").is_file()
        and tools.node_binary() is not None,
        f"ESLint and jscpd are not installed in {modules} (run: bash scripts/setup-node.sh)",
    )


def submission(root: Path, files: dict[str, str]) -> Path:
    write_files(root, files)
    return root


def measure(path: Path, cache: Path | None = None, limits: ResourceLimits = LIMITS):
    return measure_directory(path, limits, cache)


def test_python_figures_lines_complexity_and_lint(tmp_path):
    measured = measure(submission(tmp_path / "s", {"small.py": SMALL, "pkg/branchy.py": BRANCHY}))
    metrics = measured.metrics
    assert metrics is not None, measured.notes
    assert metrics.files == 2 and metrics.languages == {"python": 2}
    small = measure(submission(tmp_path / "only-small", {"small.py": SMALL})).metrics
    assert small is not None and small.loc == 4  # comments and blank lines are not code
    assert metrics.functions == 2
    assert metrics.complexity_max == 13 and metrics.complex_functions == 1
    assert metrics.complexity_total == 14 and metrics.complexity_mean == 7.0
    assert metrics.hotspots == ["pkg/branchy.py:1 classify (CC 13)"]
    # The submission's noqa comment on the import is ignored: the finding counts.
    assert metrics.lint_rules == {"F401": 1} and metrics.lint_findings == 1
    assert measured.tools.keys() >= {"lizard", "ruff"}


@pytest.mark.node
def test_duplicated_blocks_and_javascript_typescript_lint(tmp_path):
    need_node_tools()
    measured = measure(
        submission(
            tmp_path / "s",
            {"rows.py": DUPLICATED, "web/app.js": SCRIPT_JS, "src/types.ts": SCRIPT_TS},
        )
    )
    metrics = measured.metrics
    assert metrics is not None and not measured.notes, measured.notes
    assert metrics.languages == {"javascript": 1, "python": 1, "typescript": 1}
    assert (
        metrics.duplicate_blocks == 1
        and metrics.duplicated_lines
        and metrics.duplicated_lines >= 10
    )
    # ESLint's recommended rules, `/* eslint-disable */` and `// eslint-disable-next-line` ignored.
    assert metrics.lint_rules == {
        "no-unused-vars": 1,
        "no-undef": 1,
        "@typescript-eslint/no-explicit-any": 1,
    }
    assert metrics.lint_findings == 3
    assert {"eslint", "typescript-eslint", "jscpd"} <= measured.tools.keys()


@pytest.mark.node
def test_the_submissions_own_settings_and_code_take_no_part(tmp_path):
    """Config files that would silence every tool, and code that would leave a mark if anything ran
    or loaded it: the figures are those of the bare sources, and nothing ran."""
    need_node_tools()
    marker = tmp_path / "ran"
    code = {
        "rows.py": DUPLICATED,
        "small.py": SMALL,
        "web/app.js": SCRIPT_JS,
        "src/types.ts": SCRIPT_TS,
    }
    bare = measure(submission(tmp_path / "bare", code)).metrics
    write = f"open({str(marker)!r}, 'w').write('x')\n"
    hostile = {
        **code,
        "ruff.toml": "[lint]\nignore = ['ALL']\n",
        "pyproject.toml": "[tool.ruff.lint]\nignore = ['ALL']\n[tool.jscpd]\nminTokens = 100000\n",
        "setup.py": write,
        "conftest.py": write,
        "sitecustomize.py": write,
        "eslint.config.js": (
            f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x'); module.exports = [];\n"
        ),
        "eslint.config.mjs": (
            f"import fs from 'node:fs'; fs.writeFileSync({json.dumps(str(marker))}, 'x'); "
            "export default [];\n"
        ),
        "eslint-suppressions.json": json.dumps({"web/app.js": {"no-undef": {"count": 1}}}),
        ".jscpd.json": json.dumps({"minTokens": 100000, "ignore": ["**/*"]}),
        "package.json": json.dumps({"jscpd": {"minTokens": 100000}, "eslintConfig": {"rules": {}}}),
        ".gitignore": "*.py\n*.js\n*.ts\n",
    }
    measured = measure(submission(tmp_path / "hostile", hostile))
    assert measured.metrics is not None and bare is not None
    # setup.py, conftest.py and the like are source too: only their own figures are added.
    assert measured.metrics.duplicate_blocks == bare.duplicate_blocks == 1
    assert measured.metrics.lint_rules["no-undef"] == 1 and measured.metrics.lint_rules["F401"] == 1
    assert measured.metrics.lint_findings == bare.lint_findings + measured.metrics.lint_rules.get(
        "SIM115", 0
    )
    assert not marker.exists()


def test_links_in_the_submission_are_never_followed(tmp_path):
    elsewhere = submission(tmp_path / "elsewhere", {"secret.py": BRANCHY, "lib/more.py": BRANCHY})
    sub = submission(tmp_path / "s", {"main.py": SMALL})
    (sub / "secret.py").symlink_to(elsewhere / "secret.py")
    (sub / "lib").symlink_to(elsewhere / "lib")
    metrics = measure(sub).metrics
    assert metrics is not None and metrics.files == 1 and metrics.complexity_max == 1


def test_dependencies_and_build_output_are_not_measured(tmp_path):
    files = {
        "main.py": SMALL,
        "node_modules/dep/index.js": SCRIPT_JS,
        ".venv/lib/site.py": BRANCHY,
        "env/lib/python3.12/site-packages/dep/mod.py": BRANCHY,
        "dist/bundle.min.js": SCRIPT_JS,
        "build/lib/main.py": BRANCHY,
        "types/index.d.ts": SCRIPT_TS,
    }
    metrics = measure(submission(tmp_path / "s", files)).metrics
    assert metrics is not None and metrics.files == 1


def test_over_the_submission_limits_nothing_is_read(tmp_path):
    """The inventory's limits come first: a submission over them is not measured, and says why."""
    sub = tmp_path / "s"
    write_files(sub, {f"f{i}.py": "x = 1\n" for i in range(80)})
    measured = measure(sub, limits=ResourceLimits(submission_files=50))
    assert measured.metrics is None
    assert "too large" in measured.notes[0] and "submission_files" in measured.notes[0]


def test_over_the_source_bounds_nothing_is_measured_and_big_files_are_left_out(
    tmp_path, monkeypatch
):
    big = tmp_path / "big"
    write_files(big, {"main.py": SMALL})
    (big / "generated.py").write_text("x = 1\n" * (sources.MAX_FILE_BYTES // 6 + 10))
    measured = measure(big)
    assert measured.metrics is not None and measured.metrics.files == 1
    assert "1 source file(s) over 1 MiB left out: generated.py" in measured.notes
    many = tmp_path / "many"
    write_files(many, {f"m{i}.py": "x = 1\n" for i in range(25)})
    monkeypatch.setattr(sources, "MAX_SOURCE_FILES", 20)
    measured = measure(many)
    assert measured.metrics is None and "more than 20 source files" in measured.notes[0]


def test_a_tool_past_its_time_is_killed_and_the_figures_say_so(tmp_path, monkeypatch):
    """lizard reads about a MiB of Python per several seconds: 0.2 s is too short for it. Its
    whole process group is gone afterwards."""
    sub = tmp_path / "s"
    sub.mkdir()
    body = "".join(
        f"def f{i}(a):\n    if a > {i}:\n        return a\n    return -a\n\n" for i in range(14_000)
    )
    (sub / "long.py").write_text(body)
    assert len(body) < sources.MAX_FILE_BYTES
    monkeypatch.setattr(tools, "TOOL_TIMEOUT", 0.2)
    running = tools.Running()
    measured = measure_directory(sub, LIMITS, None, running)
    assert measured.metrics is None
    assert "lizard did not finish within 0.2 s" in " ".join(measured.notes)
    assert not running.groups
    leftovers = [
        p.name
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and _ppid(p) == os.getpid() and "lizard_json.py" in _cmdline(p)
    ]
    assert not leftovers


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ppid(proc: Path) -> int:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def test_figures_are_cached_by_content(tmp_path):
    cache = tmp_path / "cache"
    first = measure(submission(tmp_path / "a", {"small.py": SMALL, "branchy.py": BRANCHY}), cache)
    again = measure(submission(tmp_path / "b", {"small.py": SMALL, "branchy.py": BRANCHY}), cache)
    assert first.seconds > 0 and again.seconds == 0 and again.metrics == first.metrics
    changed = measure(
        submission(tmp_path / "c", {"small.py": SMALL, "branchy.py": BRANCHY + "\nx = 1\n"}), cache
    )
    assert (
        changed.seconds > 0
        and changed.metrics is not None
        and changed.metrics.loc == first.metrics.loc + 1
    )


# ---- through the engine ------------------------------------------------------------------------

CP1 = "tests/test_checkpoint_1.py::"
CP2 = "tests/test_checkpoint_2.py::"


@pytest.fixture
def problem(tmp_path):
    return load_problem(
        make_problem(
            tmp_path,
            {
                "test_checkpoint_1.py": "def test_a(): pass\n",
                "test_checkpoint_2.py": "def test_b(): pass\n",
            },
            checkpoints=2,
        )
    )


def run(problem, sub, tmp_path, checkpoint, cases, quality=True, previous=None):
    env = EnvironmentSpec(sandbox="none", cache_dir=tmp_path / "cache", quality=quality)
    runner = PytestRunner(problem=problem, checkpoint=checkpoint, environment=env)
    return execute(
        runner,
        sub,
        extra_args=[],
        select=[],
        output_dir=tmp_path / "out" / checkpoint,
        sandbox=FakeSandbox(pytest_run(cases)),
        previous=previous,
    )


def test_each_checkpoint_reports_its_growth_since_the_previous_one(problem, tmp_path):
    agent = tmp_path / "submissions" / "agent" / "demo"
    write_files(agent / "checkpoint_1", {"main.py": SMALL})
    write_files(agent / "checkpoint_2", {"main.py": SMALL, "branchy.py": BRANCHY})
    first = run(problem, agent / "checkpoint_1", tmp_path, "checkpoint_1", [Case(CP1 + "test_a")])
    second = run(
        problem,
        agent / "checkpoint_2",
        tmp_path,
        "checkpoint_2",
        [Case(CP1 + "test_a"), Case(CP2 + "test_b", outcome="failed")],
    )
    assert (
        first.quality is not None and first.quality.previous is None and first.quality.growth == {}
    )
    quality = second.quality
    assert quality is not None and quality.previous_checkpoint == "checkpoint_1"
    assert quality.previous == first.quality.metrics
    assert quality.growth["loc"] == quality.metrics.loc - first.quality.metrics.loc > 0
    assert quality.growth["complexity_max"] == 12 and quality.growth["complex_functions"] == 1
    assert quality.growth["lint_findings"] == 0
    # In the saved result, read back as written.
    saved = ExecutionResult.load(tmp_path / "out" / "checkpoint_2")
    assert saved.quality == quality and saved.schema_version == 4
    # An explicit previous submission (`runners run --previous DIR`) wins over the layout.
    other = submission(tmp_path / "elsewhere", {"main.py": SMALL, "branchy.py": BRANCHY})
    third = run(
        problem,
        agent / "checkpoint_2",
        tmp_path,
        "checkpoint_2",
        [Case(CP1 + "test_a")],
        previous=other,
    )
    assert third.quality is not None and third.quality.growth["loc"] == 0


def test_the_figures_never_change_the_grade_and_can_be_turned_off(problem, tmp_path):
    sub = submission(tmp_path / "s", {"main.py": BRANCHY})
    cases = [Case(CP1 + "test_a"), Case(CP1 + "test_c", outcome="failed")]
    on = run(problem, sub, tmp_path, "checkpoint_1", cases)
    off = run(problem, sub, tmp_path, "checkpoint_1", cases, quality=False)
    assert on.quality is not None and on.quality.metrics is not None and off.quality is None
    for name in ("pass_counts", "total_counts", "pass_rate", "infrastructure_failure", "summary"):
        assert getattr(on, name) == getattr(off, name)
    assert on.passes_policy("all-cases") == off.passes_policy("all-cases") is False


def test_a_result_written_before_the_figures_reads_back(problem, tmp_path):
    result = run(
        problem,
        submission(tmp_path / "s", {"main.py": SMALL}),
        tmp_path,
        "checkpoint_1",
        [Case(CP1 + "test_a")],
    )
    data = json.loads(result.model_dump_json())
    del data["quality"]
    data["schema_version"] = 2
    old = ExecutionResult.model_validate_json(json.dumps(data))
    assert old.quality is None and old.schema_version == 2 and old.pass_counts == result.pass_counts


def test_the_line_and_the_table_cells(problem, tmp_path):
    from runners.quality.text import cells
    from runners.quality.text import line as quality_line

    agent = tmp_path / "submissions" / "agent" / "demo"
    write_files(agent / "checkpoint_1", {"main.py": SMALL})
    write_files(agent / "checkpoint_2", {"main.py": SMALL, "branchy.py": BRANCHY})
    run(problem, agent / "checkpoint_1", tmp_path, "checkpoint_1", [Case(CP1 + "test_a")])
    result = run(problem, agent / "checkpoint_2", tmp_path, "checkpoint_2", [Case(CP1 + "test_a")])
    assert result.quality is not None
    loc = result.quality.metrics.loc
    line = quality_line(result.quality)
    assert line.startswith(
        f"code: {loc} LOC (+{int(result.quality.growth['loc'])}) · 2 functions (+1) · "
        "CC max 13 (+12), 1 over 10 (+1)"
    )
    assert textwrap.shorten(line, 400).endswith("lint findings (+0)")
    assert cells(result.quality)[:2] == [
        f"{loc} (+{int(result.quality.growth['loc'])})",
        "13 (+12)",
    ]


# ---- the command line --------------------------------------------------------------------------


def cli(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


def test_the_command_line_shows_the_figures_and_can_turn_them_off(tmp_path):
    """`runners run` prints the `code:` line (growth from the sibling checkpoint directory, or
    --previous); `runners evaluate` has a column per figure; --no-quality leaves them out."""
    tests = {
        "test_checkpoint_1.py": "def test_one(entrypoint_argv):\n    assert entrypoint_argv\n",
        "test_checkpoint_2.py": "def test_two(entrypoint_argv):\n    assert entrypoint_argv\n",
    }
    problem = make_problem(tmp_path / "problems", tests, checkpoints=2)
    root = tmp_path / "submission"
    write_files(root / "checkpoint_1", {"main.py": SMALL})
    write_files(root / "checkpoint_2", {"main.py": SMALL, "branchy.py": BRANCHY})
    common = ["--sandbox", "none", "--cache-dir", str(tmp_path / "cache")]
    run = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(root / "checkpoint_2"),
        *common,
        "--output",
        str(tmp_path / "out-run"),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    loc = measure(root / "checkpoint_2").metrics.loc
    grown = loc - measure(root / "checkpoint_1").metrics.loc
    assert (
        f"code: {loc} LOC (+{grown}) · 2 functions (+1) · CC max 13 (+12), 1 over 10 (+1)"
        in run.stdout
    )
    elsewhere = submission(tmp_path / "elsewhere", {"main.py": SMALL, "branchy.py": BRANCHY})
    explicit = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(elsewhere),
        *common,
        "--previous",
        str(root / "checkpoint_1"),
        "--output",
        str(tmp_path / "out-explicit"),
    )
    assert f"code: {loc} LOC (+{grown})" in explicit.stdout
    off = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(root / "checkpoint_2"),
        *common,
        "--no-quality",
        "--json",
        str(tmp_path / "off.json"),
        "--output",
        str(tmp_path / "out-off"),
    )
    assert off.returncode == 0 and "code:" not in off.stdout
    assert json.loads((tmp_path / "off.json").read_text())["quality"] is None
    bad = cli(
        "run",
        str(problem),
        "-c",
        "checkpoint_2",
        "-s",
        str(elsewhere),
        *common,
        "--previous",
        str(tmp_path / "nowhere"),
    )
    assert (
        bad.returncode == 2
        and "option --previous:" in bad.stderr
        and "is not a directory" in bad.stderr
    )
    evaluated = cli(
        "evaluate", str(problem), "-s", str(root), *common, "--output", str(tmp_path / "out-eval")
    )
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
    header = next(line for line in evaluated.stdout.splitlines() if "Checkpoint" in line)
    assert all(name in header for name in ("LOC", "CC max", "Dup", "Lint"))
    second = next(line for line in evaluated.stdout.splitlines() if "│ checkpoint_2" in line)
    assert f"{loc} (+{grown})" in second and "13 (+12)" in second
