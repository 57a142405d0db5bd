"""SCBench compatibility: problems written in SCBench's case-based format (tests/fixtures/
scbench_cases: config.yaml without `framework`, loader.py and verifier.py importing `slop_code`
names) run unmodified, their reference solutions get full marks, a wrong one the grade SCBench's
scoring rules give, and between them the scripts use every name of the reference's table.

The grade SCBench's own evaluator gives on the same problems is compared outside the suite (its
code is not in this repository): bench/scbench_compare.py, recorded in docs/CASES.md."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from support import need, need_sandbox

from runners import EnvironmentSpec, load_problem, run_checkpoint
from runners.model.case_config import CaseProblemConfig

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "scbench_cases"
COMPAT = Path(__file__).resolve().parent.parent / "runners" / "cases" / "compat"

# ../shared/reference/scbench-cases.md §3.8: every (module, name) binding problem scripts import...
BINDINGS = {
    ("slop_code.evaluation", "CheckpointConfig"),
    ("slop_code.evaluation.config", "CheckpointConfig"),
    ("slop_code.evaluation", "GroupConfig"),
    ("slop_code.evaluation.config", "GroupConfig"),
    ("slop_code.evaluation.config", "ProblemConfig"),
    ("slop_code.evaluation", "GroupType"),
    ("slop_code.evaluation.adapters", "GroupType"),
    ("slop_code.evaluation.adapters", "CLICase"),
    ("slop_code.evaluation.adapters", "CLIResult"),
    ("slop_code.evaluation.adapters", "APICase"),
    ("slop_code.evaluation.adapters", "APIResult"),
    ("slop_code.evaluation.adapters", "cli"),
    ("slop_code.evaluation.adapters", "api"),
    ("slop_code.evaluation.loaders", "BaseLoader"),
    ("slop_code.evaluation.loaders", "CaseStore"),
    ("slop_code.evaluation.loaders", "NoOpStore"),
    ("slop_code.evaluation.loaders", "LoaderError"),
    ("slop_code.evaluation.loaders", "helpers"),
    ("slop_code.evaluation", "verifiers"),
    ("slop_code.evaluation.verifiers", "verifiers"),
    ("slop_code.evaluation.verifiers", "parsers"),
    ("slop_code.evaluation.verifiers", "VerificationResult"),
    ("slop_code.evaluation.verifiers.models", "VerificationResult"),
    ("slop_code.evaluation.verifiers", "VerifierReturnType"),
    ("slop_code.evaluation.verifiers.models", "VerifierReturnType"),
    ("slop_code.evaluation.verifiers", "VerifierError"),
    ("slop_code.evaluation.verifiers", "validate_format"),
    ("slop_code.execution.file_ops", "InputFile"),
    ("slop_code.execution.file_ops", "FileType"),
    ("slop_code.logging", "get_logger"),
}
# ... and the functions, constants and members used through them.
THROUGH = {
    "helpers": {"get_group_path", "get_chkpt_path", "discover_dir_cases", "get_actual_checkpoint"},
    "parsers": {
        "parse_json",
        "parse_jsonl",
        "extract_actual_output",
        "parse_markdown_table",
        "ensure_expected_is_not_none",
        "parse_csv_content",
        "maybe_split_string",
    },
    "verifiers": {
        "deepdiff_verify",
        "matches_status_code",
        "matches_regex",
        "jsonschema_verify",
        "DEFAULT_DEEPDIFF_KWARGS",
        "VerificationResult",
        "VerifierReturnType",
        "VerifierError",
        "parsers",
    },
    "InputFile": {"model_validate", "from_path", "from_absolute", "resolve_suffix"},
    "FileType": {"TEXT", "JSON", "JSONL", "CSV", "YAML", "BINARY"},
    "VerificationResult": {"create"},
    "GroupType": {"ERROR"},
    "EvalGroupType": {
        "REGRESSION"
    },  # slop_code.evaluation's GroupType, imported under another name
}


def _scripts() -> list[Path]:
    return sorted(FIXTURES.glob("*/loader.py")) + sorted(FIXTURES.glob("*/verifier.py"))


def test_the_fixture_scripts_use_every_name_of_the_reference_table():
    imported: set[tuple[str, str]] = set()
    used: dict[str, set[str]] = {}
    for script in _scripts():
        tree = ast.parse(script.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("slop_code"):
                imported |= {(node.module or "", alias.name) for alias in node.names}
            elif isinstance(node, ast.Attribute) and isinstance(
                node.value, (ast.Name, ast.Attribute)
            ):
                owner = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
                used.setdefault(owner, set()).add(node.attr)
    assert BINDINGS <= imported, sorted(BINDINGS - imported)
    for name, members in THROUGH.items():
        assert members <= used.get(name, set()), (name, sorted(members - used.get(name, set())))


def test_every_name_of_the_table_resolves_in_the_compatibility_package():
    sys.path.insert(0, str(COMPAT))
    try:
        import importlib

        for module, name in sorted(BINDINGS):
            assert hasattr(importlib.import_module(module), name), (module, name)
        parsers = importlib.import_module("slop_code.evaluation.verifiers.parsers")
        verifiers = importlib.import_module("slop_code.evaluation.verifiers.verifiers")
        helpers = importlib.import_module("slop_code.evaluation.loaders.helpers")
        for module, names in (
            (helpers, THROUGH["helpers"]),
            (parsers, THROUGH["parsers"]),
            (verifiers, THROUGH["verifiers"] - {"parsers", "VerifierReturnType", "VerifierError"}),
        ):
            assert all(hasattr(module, n) for n in names), module
    finally:
        sys.path.remove(str(COMPAT))


def test_scbench_configs_load_with_their_groups_and_regressions():
    ledger = load_problem(FIXTURES / "ledger_cli")
    assert isinstance(ledger, CaseProblemConfig) and ledger.framework == "cases"
    groups = ledger.checkpoints["checkpoint_2"].groups
    assert list(groups) == ["core", "c1_core_again", "old_errors", "old_formats"]
    assert groups["c1_core_again"].case_order == ["two_accounts", "jsonl_format", "markdown_format"]
    assert (groups["old_errors"].type, groups["old_errors"].original_group) == (
        "Regression",
        "errors",
    )
    assert ledger.checkpoints["checkpoint_2"].env == {
        "LEDGER_CURRENCY": "EUR",
        "LEDGER_PRECISION": "2",
    }
    counter = load_problem(FIXTURES / "counter_api")
    assert list(counter.checkpoints["checkpoint_2"].groups) == [
        "reset",
        "checkpoint_1_lifecycle",
    ]  # type_filter: Core


CELLS = [(p, c) for p in ("ledger_cli", "counter_api") for c in ("checkpoint_1", "checkpoint_2")]


def solution(problem: str) -> Path:
    """The reference solution (SCBench keeps one per checkpoint; the last one solves them all)."""
    return FIXTURES / problem / "checkpoint_2" / "solution"


@pytest.mark.parametrize(("problem", "checkpoint"), CELLS)
def test_reference_solutions_get_full_marks(problem, checkpoint):
    need_sandbox("bubblewrap")
    result = run_checkpoint(
        FIXTURES / problem, checkpoint, solution(problem), EnvironmentSpec(sandbox="bubblewrap")
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.tests and all(t.passed and t.score == 1.0 for t in result.tests), [
        (t.id, t.failure_message) for t in result.tests if not t.passed
    ]
    assert result.flags == []


@pytest.mark.slow
def test_scbench_style_scripts_import_its_environment_and_the_solution_runs_on_312():
    """SCBench's own problems: loaders and verifiers import structlog, jinja2, numpy and pandas
    (its environment had them), reference solutions use 3.12 syntax with no `python` in the
    config, cases give parquet input files, parse_csv_content reads `true` as a boolean (pandas),
    and loaders name input files by relative paths (`InputFile.from_path("app.db", relative_to=
    case_dir)`). wordfreq does all of it: before, its loader failed to import, its solution to
    parse, its parquet file to be written, `true` stayed text, and state/b_second read the file
    state/a_first had left in the workspace instead of its own."""
    need_sandbox("bubblewrap")
    from runners.toolchains.which_python import host_interpreters

    need(any(v.startswith("3.12.") for _, v in host_interpreters()), "no Python 3.12 on this host")
    problem = FIXTURES / "wordfreq"
    result = run_checkpoint(
        problem,
        "checkpoint_1",
        problem / "checkpoint_1" / "solution",
        EnvironmentSpec(sandbox="bubblewrap"),
    )
    assert not result.infrastructure_failure, result.infrastructure_reason
    assert result.python and result.python.startswith("3.12.")
    assert sorted(t.id for t in result.tests) == [
        "core/top_one",
        "core/two_words",
        "state/a_first",
        "state/b_second",
        "tables/mixed_values",
    ]
    assert all(t.passed and t.score == 1.0 for t in result.tests), [
        (t.id, t.failure_message) for t in result.tests
    ]


def test_a_wrong_submission_gets_the_grade_of_scbench_scoring(tmp_path):
    """Two places wrong: the markdown table prints 2 decimals, the bad-amount message differs.
    SCBench's rules: status_code right (weight 1) and stderr wrong (weight 0.5) scores 1/1.5;
    output wrong with status right scores 1/2; a case passes only when all verified are right."""
    need_sandbox("bubblewrap")
    source = (solution("ledger_cli") / "ledger.py").read_text()
    wrong = source.replace('print(f"| {name} | {value:g} |")', 'print(f"| {name} | {value:.2f} |")')
    wrong = wrong.replace(
        'fail(f"bad amount on line {number}")', 'fail(f"amount on line {number} is not a number")'
    )
    assert wrong.count("value:.2f") == 1 and "is not a number" in wrong
    (tmp_path / "ledger.py").write_text(wrong)
    result = run_checkpoint(
        FIXTURES / "ledger_cli", "checkpoint_2", tmp_path, EnvironmentSpec(sandbox="bubblewrap")
    )
    graded = {t.id: (t.status, round(t.score or 0, 4)) for t in result.tests if not t.passed}
    assert graded == {
        "c1_core_again/markdown_format": ("failed", 0.5),
        "old_errors/bad_amount": ("failed", 0.6667),
    }, graded
    stderr = next(a for a in result.tests if a.id == "old_errors/bad_amount").attributes or []
    assert {a.name: (a.weight, a.correct) for a in stderr if a.correct is not None} == {
        "status_code": (1.0, True),
        "stderr": (0.5, False),
    }
