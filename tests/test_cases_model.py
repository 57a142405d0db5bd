"""The case-based model without a sandbox: matchers and their diffs, case files and their errors,
groups and regressions, scoring by SCBench's rules, the process control of the case program."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from runners.cases.casefile import CaseFileError, build_case
from runners.cases.jsondiff import JsonDiff, parse_path
from runners.cases.loading import CaseFileLoader
from runners.cases.matchers import parse_matcher
from runners.cases.model import CLIResult
from runners.cases.procs import run
from runners.cases.scoring import VerificationResult, score_case
from runners.cases.snapshot import Snapshot
from runners.cases.spec import GroupConfig, RegressionSpec, expand_groups
from runners.cases.verification import BuiltinVerifier

PACKAGE = Path(__file__).resolve().parent.parent / "runners" / "cases"
GROUP = GroupConfig(name="core", type="Core")


# ---- matchers ----------------------------------------------------------------------------------


def test_plain_values_are_exact_and_structures_json():
    assert parse_matcher("5\n").check("5\n") == (True, None)
    ok, diff = parse_matcher("5\n").check("6\n")
    assert not ok and diff == 'expected "5\\n", got "6\\n"'
    assert parse_matcher(0).check(0)[0] and not parse_matcher(0).check(False)[0]  # a bool is not 0
    ok, diff = parse_matcher({"a": [1, 2]}).check('{"a": [1, 3]}')
    assert not ok and diff == "$.a[1]: expected 2, got 3"


def test_multiline_text_gets_a_unified_diff():
    ok, diff = parse_matcher("a\nb\nc\n").check("a\nB\nc\n")
    assert not ok and "--- expected" in diff and "-b" in diff and "+B" in diff


def test_json_matcher_ignores_paths_tolerates_floats_and_unordered_lists():
    matcher = parse_matcher(
        {
            "json": {"id": 1, "items": [{"n": 1.0, "t": "x"}, {"n": 2, "t": "y"}], "at": "now"},
            "ignore": ["$.at", "$.items[*].t"],
            "tolerance": 0.01,
            "unordered": True,
        }
    )
    assert matcher.check(
        {"id": 1, "items": [{"n": 2.001, "t": "q"}, {"n": 1, "t": "z"}], "at": "later"}
    ) == (True, None)
    ok, diff = matcher.check({"id": 2, "items": [{"n": 3, "t": "q"}, {"n": 1, "t": "z"}], "at": 0})
    assert not ok and "$.id: expected 1, got 2" in diff and "no matching item" in diff
    ok, diff = matcher.check("not json")
    assert not ok and diff.startswith("not JSON")
    ordered = parse_matcher({"json": [1, 2, 3], "unordered": ["$.x"]})
    assert not ordered.check([3, 2, 1])[0]


def test_missing_and_unexpected_keys_are_named():
    lines = JsonDiff().diff({"a": 1, "b": 2}, {"a": 1, "c": 3})
    assert lines == ["$.b: missing (expected 2)", "$.c: unexpected (got 3)"]
    assert parse_path("$.items[*]['odd key']") == ("items", "*", "odd key")
    with pytest.raises(ValueError):
        parse_path("$.a[")


def test_regex_schema_contains_and_weights():
    assert parse_matcher({"regex": "^error: .*csv"}).check("error: nope.csv\n")[0]
    assert not parse_matcher({"regex": "^ERROR"}).check("error")[0]
    assert parse_matcher({"regex": "^ERROR", "flags": "i"}).check("error")[0]
    assert not parse_matcher({"regex": "abc", "full": True}).check("abcd")[0]
    schema = parse_matcher(
        {
            "schema": {
                "type": "object",
                "required": ["id"],
                "properties": {"id": {"type": "integer"}},
            }
        }
    )
    assert schema.check('{"id": 3}') == (True, None)
    ok, diff = schema.check({"id": "3"})
    assert not ok and "$.id" in diff and "integer" in diff
    assert parse_matcher({"contains": "total"}, weight=3).weight == 3
    assert parse_matcher({"contains": "total", "weight": 2}, weight=3).weight == 2


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"regex": "("}, "not a valid regular expression"),
        ({"regex": "a", "flags": "x"}, "unknown regex flags"),
        ({"json": 1, "ignore": ["$.a["]}, "not a JSON path"),
        ({"schema": {"type": 12}}, "not a valid JSON Schema"),
        ({"exact": 1, "json": 2}, "not exact and json"),
        ({"exact": 1, "bogus": 2}, "Extra inputs"),
    ],
)
def test_malformed_matchers_are_refused(bad, words):
    with pytest.raises(ValueError, match=words):
        parse_matcher(bad)


# ---- case files ---------------------------------------------------------------------------------


def _build(doc, adapter="cli"):
    return build_case(
        doc, adapter=adapter, case_id="c1", group=GROUP, checkpoint="checkpoint_1", file="g/c1.yaml"
    )


def test_a_cli_case_file_becomes_a_case_and_an_expected_result():
    case, expected = _build(
        {
            "case": {
                "args": "summary 'a b.csv'",
                "stdin": "x",
                "env": {"N": 2},
                "files": {"a b.csv": "n\n1\n", "d.json": {"k": 1}},
            },
            "expected": {
                "status_code": 0,
                "output": {"json": {"k": 1}},
                "files": {"out.txt": {"contains": "ok"}},
            },
            "weights": {"output": 3},
        }
    )
    assert (
        case.arguments == ["summary", "a b.csv"] and not case.shell_split and case.env == {"N": "2"}
    )
    assert [(str(f.path), f.file_type.value) for f in case.input_files] == [
        ("a b.csv", "text"),
        ("d.json", "json"),
    ]
    assert expected.output == {"k": 1} and expected.files == {"out.txt": "ok"}
    assert expected._matchers["output"].weight == 3 and set(expected._matchers) == {
        "status_code",
        "output",
        "files-out.txt",
    }


@pytest.mark.parametrize(
    "doc, words",
    [
        ({"case": {"argz": []}, "expected": {"output": ""}}, "field `case.argz`: unknown key"),
        ({"case": {}}, "field `expected`: required but missing"),
        (
            {"case": {}, "expected": {"exit_code": 0}},
            "expected.exit_code: not an attribute of a CLIResult",
        ),
        ({"case": {}, "expected": {"output": {"regex": "("}}}, "expected.output"),
        (
            {"case": {}, "expected": {"output": "x"}, "weights": {"stderr": 2}},
            "weights: stderr name no expected attribute",
        ),
        ({"case": {"timeout": -1}, "expected": {"output": "x"}}, "case.timeout"),
    ],
)
def test_malformed_case_files_name_the_file_the_case_and_the_field(doc, words):
    with pytest.raises(CaseFileError) as caught:
        _build(doc)
    assert str(caught.value).startswith("g/c1.yaml, case 'c1': ") and words in str(caught.value)


def _problem(tmp_path: Path, files: dict[str, str], adapter: str = "cli") -> SimpleNamespace:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    cp = SimpleNamespace(name="checkpoint_1", path=tmp_path / "checkpoint_1")
    return SimpleNamespace(
        adapter=SimpleNamespace(type=adapter), checkpoints={"checkpoint_1": cp}, path=tmp_path
    )


def test_the_builtin_loader_reads_group_folders_group_files_and_case_order(tmp_path):
    problem = _problem(
        tmp_path,
        {
            "checkpoint_1/core/b.yaml": "case: {args: [b]}\nexpected: {output: b}\n",
            "checkpoint_1/core/a.json": '{"case": {"args": ["a"]}, "expected": {"output": "a"}}',
            "checkpoint_1/errors.yaml": (
                "cases:\n  x: {case: {args: [x]}, expected: {status_code: 2}}\n"
                "  y: {case: {args: [y]}, expected: {status_code: 2}}\n"
            ),
        },
    )
    loader = CaseFileLoader(problem=problem, checkpoint=problem.checkpoints["checkpoint_1"])
    assert [c.id for c, _ in loader(GroupConfig(name="core"), None)] == ["a", "b"]
    assert [c.id for c, _ in loader(GroupConfig(name="core", case_order=["b", "a"]), None)] == [
        "b",
        "a",
    ]
    assert [c.id for c, _ in loader(GroupConfig(name="errors", type="Error"), None)] == ["x", "y"]
    with pytest.raises(
        CaseFileError, match="listed in case_order of group 'core' but there is no such case file"
    ):
        list(loader(GroupConfig(name="core", case_order=["zz"]), None))
    with pytest.raises(CaseFileError, match="no folder nope/ of case files"):
        list(loader(GroupConfig(name="nope"), None))


def test_a_case_file_that_is_not_yaml_names_its_line(tmp_path):
    problem = _problem(tmp_path, {"checkpoint_1/core/bad.yaml": "case: {args: [a]\nexpected: {}\n"})
    loader = CaseFileLoader(problem=problem, checkpoint=problem.checkpoints["checkpoint_1"])
    with pytest.raises(
        CaseFileError, match=r"bad\.yaml, case 'bad': line \d+, column \d+: not valid YAML"
    ):
        list(loader(GroupConfig(name="core"), None))


def test_browser_steps_are_checked(tmp_path):
    from runners.cases.adapters.steps import check_steps

    check_steps(
        [
            {"navigate": "/"},
            {"fill": {"selector": "#a", "value": "x"}},
            {"press": "Enter"},
            {"text": {"selector": "li", "as": "first"}},
            {"wait": {"ms": 10}},
        ]
    )
    for steps, words in (
        ([{"clik": "#a"}], "unknown action 'clik'"),
        ([{"fill": "#a"}], "expected a mapping"),
        ([{"press": "Hyper"}], "unknown key 'Hyper'"),
        ([{"attribute": {"selector": "a"}}], "needs"),
        ([{"click": {"selector": "a", "colour": 1}}], "colour: unknown key"),
    ):
        with pytest.raises(ValueError, match=words):
            check_steps(steps)


# ---- groups and regressions ----------------------------------------------------------------------


def _cp(groups, regressions=()):
    return SimpleNamespace(
        groups={k: GroupConfig.model_validate(v) for k, v in groups.items()},
        regressions=[RegressionSpec.model_validate(r) for r in regressions],
    )


def test_regressions_generate_groups_from_earlier_checkpoints_without_duplicates():
    one = _cp({"core": {"type": "Core", "case_order": ["a", "b"]}, "errors": {"type": "Error"}})
    two = _cp({"core": {"type": "Core"}}, [{"checkpoint": "checkpoint_1", "exclude": ["errors"]}])
    three = _cp({"new": {}}, [{"checkpoints": "*"}])
    expand_groups([("checkpoint_1", 1, one), ("checkpoint_2", 2, two), ("checkpoint_3", 3, three)])
    assert list(two.groups) == ["core", "checkpoint_1_core"]
    generated = two.groups["checkpoint_1_core"]
    assert (
        generated.type,
        generated.original_checkpoint,
        generated.original_group,
        generated.case_order,
    ) == ("Regression", "checkpoint_1", "core", ["a", "b"])
    # checkpoint_2's copy of checkpoint_1's core points at its origin and is not imported twice
    assert list(three.groups) == [
        "new",
        "checkpoint_1_core",
        "checkpoint_1_errors",
        "checkpoint_2_core",
    ]
    assert {
        (g.original_checkpoint, g.original_group) for g in three.groups.values() if g.original_group
    } == {("checkpoint_1", "core"), ("checkpoint_1", "errors"), ("checkpoint_2", "core")}


def test_a_regression_from_a_later_checkpoint_is_refused():
    with pytest.raises(
        ValueError, match="regression source 'checkpoint_2' is not a checkpoint declared before it"
    ):
        expand_groups([("checkpoint_1", 1, _cp({}, [{"checkpoint": "checkpoint_2"}]))])
    with pytest.raises(ValueError, match="only allowed in a group of type Regression"):
        GroupConfig(type="Core", original_checkpoint="c", original_group="g")


# ---- scoring -------------------------------------------------------------------------------------


def _result(**fields):
    return CLIResult(id="c", group="g", group_type="Core", **fields)


def test_score_weights_verified_attributes_and_pass_needs_all_of_them():
    verdicts = {
        "output": VerificationResult(diff="x", is_correct=False, weight=3),
        "status_code": VerificationResult(is_correct=True),
        "no_such": VerificationResult(is_correct=False),
    }
    score = score_case(
        verdicts,
        _result(output="a", status_code=0, stderr="warn"),
        _result(output="b", status_code=0),
    )
    assert score.score == 0.25 and not score.passed
    by_name = {a.name: a for a in score.attributes}
    assert "no_such" not in by_name  # a verdict naming no attribute is dropped (SCBench)
    assert by_name["stderr"].correct is None and by_name["stderr"].weight == 0  # informational
    assert score.diff_text() == "output: x"


def test_builtin_verifier_compares_what_a_scripted_loader_set():
    expected = _result(status_code=2, files={"o.txt": "hi"})
    verdicts = BuiltinVerifier()("g", "c", _result(status_code=2, files={"o.txt": "ho"}), expected)
    assert {k: v.is_correct for k, v in verdicts.items()} == {
        "status_code": True,
        "files-o.txt": False,
    }


# ---- the submission's processes ------------------------------------------------------------------


@pytest.mark.slow
def test_run_feeds_stdin_caps_output_and_times_out(tmp_path):
    env = {"PATH": os.environ["PATH"]}
    done = run(
        [sys.executable, "-c", "import sys; d = sys.stdin.read(); print(len(d)); sys.exit(3)"],
        cwd=str(tmp_path),
        env=env,
        stdin=b"x" * 300_000,
        timeout=20,
    )
    assert (done.exit_code, done.stdout, done.timed_out) == (3, b"300000\n", False)
    flood = run(
        [sys.executable, "-c", "import os\nwhile True: os.write(1, b'y' * 65536)"],
        cwd=str(tmp_path),
        env=env,
        stdin=None,
        timeout=1.5,
        cap=1000,
    )
    assert (
        flood.timed_out
        and flood.exit_code is None
        and len(flood.stdout) == 1000
        and flood.dropped > 0
    )


@pytest.mark.slow
def test_nothing_a_case_started_outlives_it(tmp_path):
    """A CLI that leaves a daemon (forked twice, own session) behind: the case program, a
    subreaper, kills it with the case. Run in a process of its own, as the case program is."""
    script = textwrap.dedent("""
        import os, sys
        from runners.cases.procs import descendants, harden, run
        harden()
        daemon = ("import os, time\\nif os.fork() == 0:\\n    os.setsid()\\n"
                  "    if os.fork() == 0:\\n"
                  "        open('daemon.pid', 'w').write(str(os.getpid()))\\n"
                  "        time.sleep(600)\\n"
                  "    os._exit(0)\\ntime.sleep(0.5)\\nprint('done')")
        done = run([sys.executable, "-c", daemon], cwd=".", env={"PATH": os.environ["PATH"]},
                   stdin=None, timeout=60)
        pid = int(open("daemon.pid").read())
        print(done.stdout, done.timed_out, descendants(), os.path.exists(f"/proc/{pid}"))
    """)
    out = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent.parent)},
    )
    assert out.stdout.split() == ["b'done\\n'", "False", "[]", "False"], out.stdout + out.stderr


def test_snapshot_restores_the_workspace_in_place(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("one")
    (tmp_path / "link").symlink_to("src/a.py")
    snap = Snapshot(tmp_path)
    (tmp_path / "src" / "a.py").write_text("two")
    (tmp_path / "new.txt").write_text("x")
    (tmp_path / "link").unlink()
    (tmp_path / "link").mkdir()
    (tmp_path / "src" / "deep").mkdir()
    snap.restore()
    assert (tmp_path / "src" / "a.py").read_text() == "one" and os.readlink(
        tmp_path / "link"
    ) == "src/a.py"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.py", "link", "src"]


# ---- the case program's library ------------------------------------------------------------------


def test_the_case_program_imports_only_its_library():
    """runners/cases runs inside the sandbox from a copy of itself alone
    (runners.frameworks.cases_files.copy_library)."""
    allowed_runners: set[str] = set()
    # What the case toolchain pins (runners/toolchains/case-tools.txt), by import name.
    third_party = {"pydantic", "yaml", "jsonschema", "deepdiff", "numpy", "pandas", "pyarrow"}
    tools = (PACKAGE.parent / "toolchains" / "case-tools.txt").read_text().splitlines()
    pinned = {line.split("==")[0] for line in tools if "==" in line and not line.startswith("#")}
    assert {"pyyaml" if name == "yaml" else name for name in third_party} <= pinned, pinned
    for path in PACKAGE.rglob("*.py"):
        if "compat" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top == "runners":
                    assert name.startswith("runners.cases") or name in allowed_runners, (
                        f"{path}: {name}"
                    )
                else:
                    assert top in third_party or top in sys.stdlib_module_names, (
                        f"{path}: imports {name}"
                    )


# ---- how a failing case reads --------------------------------------------------------------------


def _case_result():
    from runners.model.results import ExecutionResult, TestResult

    diff = "output:\n  $.count: expected 2, got 3\n  $.min: expected 4, got 0"
    failing = TestResult(
        id="core/skips",
        name="skips",
        checkpoint="checkpoint_1",
        group_type="Core",
        status="failed",
        failure_message=f"output wrong (score 0.33)\n{diff}",
        score=1 / 3,
        diff=diff,
        attributes=[
            {
                "name": "output",
                "expected": {"count": 2},
                "actual": {"count": 3},
                "weight": 2,
                "correct": False,
                "diff": "$.count: expected 2, got 3",
            }
        ],
    )
    passing = TestResult(
        id="core/ok",
        name="ok",
        checkpoint="checkpoint_1",
        group_type="Core",
        status="passed",
        score=1.0,
    )
    return ExecutionResult(
        problem_name="p",
        checkpoint_name="checkpoint_1",
        framework="cases",
        tests=[failing, passing],
    )


def test_the_promptfoo_row_and_the_table_show_a_failing_case_s_diff():
    from rich.console import Console

    from runners.outputs.render import failures_table
    from runners.promptfoo.output import headline

    result = _case_result()
    line = headline(
        {
            **result.model_dump(mode="json"),
            "problem": "p",
            "checkpoint": "checkpoint_1",
            "passed": False,
            "policy": "all-cases",
        }
    )
    assert line == "[Core] skips: output wrong (score 0.33); output: $.count: expected 2, got 3"
    console = Console(width=160, record=True)
    console.print(failures_table(result))
    table = console.export_text()
    assert (
        "core/skips" in table
        and "$.count: expected 2, got 3" in table
        and "$.min: expected 4, got 0" in table
    )
    assert "core/ok" not in table


def test_case_results_keep_their_attributes_through_json_junit_ctrf_and_parquet(tmp_path):
    import json

    import pyarrow.parquet as pq

    from runners.batch.store import table_rows, write_parquet
    from runners.model.policy import PassPolicy
    from runners.model.results import ExecutionResult
    from runners.outputs.writers import write_ctrf, write_junit

    result = _case_result()
    again = ExecutionResult.model_validate_json(result.model_dump_json())
    assert again.tests[0].attributes[0].weight == 2 and again.tests[0].score == pytest.approx(1 / 3)
    assert (
        '"schema_version":4' in result.model_dump_json()
    )  # 2 added scores; 3 the problem error; 4 quality
    assert "$.count: expected 2, got 3" in write_junit(result, tmp_path / "j.xml").read_text()
    ctrf = json.loads(write_ctrf(result, tmp_path / "c.json").read_text())
    assert any("$.count" in (t.get("message") or "") for t in ctrf["results"]["tests"])
    cell = SimpleNamespace(agent="a", problem="p", checkpoint="checkpoint_1", order=1)
    record = SimpleNamespace(status="done")
    rows = table_rows(cell, record, result, policy=PassPolicy.ALL_CASES)  # type: ignore[arg-type]
    table = pq.read_table(write_parquet(rows, tmp_path / "r.parquet")).to_pylist()
    assert [(r["test_id"], round(r["score"], 3), r["diff"] is not None) for r in table] == [
        ("core/skips", 0.333, True),
        ("core/ok", 1.0, False),
    ]
