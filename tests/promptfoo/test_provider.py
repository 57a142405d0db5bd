"""The promptfoo provider, assertion and test generator, called directly (no Node needed).

Real test runs (sandbox `none`) of a tiny two-checkpoint problem: the provider's output, metadata
and error rows, and the assertion's pass/score/namedScores/componentResults against the counts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pf_support import PROBLEM, PROVIDERS, ROOT, build_world, load_provider_module

from runners import ExecutionResult
from runners.promptfoo.output import MAX_HEADLINE_CHARS

provider = load_provider_module("test_runner")
assertions = load_provider_module("assertions")
generator = load_provider_module("tests_from_problems")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return build_world(tmp_path_factory.mktemp("pf-unit"))


def options(world, agent="good", base="", **config):
    cfg = {
        "agent": agent,
        "submissions": str(world[agent]),
        "problems": str(world["problems"]),
        "sandbox": "none",
        "basePath": base,
        "output": str(world["problems"].parent / "runs"),
        **config,
    }
    return {"id": "file://providers/test_runner.py", "config": cfg}


def context(checkpoint="checkpoint_1", problem=PROBLEM, **extra):
    return {
        "vars": {"problem": problem, "checkpoint": checkpoint, "__evalId": "eval-unit", **extra}
    }


@pytest.fixture(scope="module")
def partial_cp2(world):
    return provider.call_api(
        "mini checkpoint_2", options(world, "partial"), context("checkpoint_2")
    )


# ---- provider: results --------------------------------------------------------------------------


def test_provider_returns_output_metadata_and_latency(world):
    started = time.monotonic()
    response = provider.call_api("mini checkpoint_1", options(world), context())
    elapsed_ms = (time.monotonic() - started) * 1000
    assert "error" not in response, response.get("error")
    assert set(response) == {"output", "metadata", "latencyMs"}
    meta = response["metadata"]
    result = ExecutionResult.model_validate(
        {k: v for k, v in meta.items() if k in ExecutionResult.model_fields}
    )
    assert result.summary == "Core 1/1, Functionality 1/1, Error 1/1"
    assert (meta["agent"], meta["problem"], meta["checkpoint"]) == ("good", PROBLEM, "checkpoint_1")
    assert meta["policy"] == "all-cases" and meta["passed"] is True
    assert meta["policies"]["all-cases"] is True and set(meta["policies"]) >= {"any", "core-cases"}
    assert meta["sandbox"] == "none" and "unsandboxed" in meta["flags"]
    assert 0 < response["latencyMs"] <= elapsed_ms + 1
    # Artifacts of the run, grouped by eval, agent, problem, checkpoint.
    artifacts = Path(meta["artifacts_dir"])
    assert artifacts.parts[-4:] == ("eval-unit", "good", PROBLEM, "checkpoint_1")
    assert (artifacts / "result.json").is_file()
    # The code-quality figures are the row's named scores and metadata, not a line of the cell.
    assert response["output"].splitlines() == [
        "mini · checkpoint_1: PASS 3/3 tests",
        "flags: unsandboxed",
    ]
    assert response["metadata"]["quality"]["metrics"]["loc"] == 8
    assert meta["headline"] is None  # nothing failed: no reason line


def test_provider_output_is_a_verdict_and_the_counts_per_group(partial_cp2):
    """A cell is a glance: the viewer sizes a row to its tallest cell, and a list of failing tests
    made every row 350-460 px tall. The tests and their messages are in the metadata."""
    assert partial_cp2["output"].splitlines() == [
        "mini · checkpoint_2: FAIL 4/6 tests",
        "Core 1/2 · Regression 2/3",  # the groups not passed whole (Error 1/1 is)
        "flags: unsandboxed",
    ]
    failing = [t for t in partial_cp2["metadata"]["tests"] if t["status"] != "passed"]
    assert {t["name"] for t in failing} == {"test_upper_words", "test_no_args_fails"}
    assert all(t["failure_message"] for t in failing)
    # The row's one reason line: the first failing test (Core first), its own message.
    assert partial_cp2["metadata"]["headline"] == (
        "[Core] test_upper_words: every word upper-cased (+1 more)"
    )


def test_a_real_failure_quoting_its_command_shows_no_harness_path(world):
    """partial's checkpoint_1 fails the test whose message quotes the command it ran, which under
    `none` is the cached toolchain's python and the workspace copy's main.py (host paths)."""
    response = provider.call_api("x", options(world, "partial"), context("checkpoint_1"))
    [failing] = [t for t in response["metadata"]["tests"] if t["status"] != "passed"]
    assert (
        "/runners-" in failing["failure_message"] and "/bin/python" in failing["failure_message"]
    )  # kept in full
    line = response["metadata"]["headline"]
    assert line.startswith("[Error] test_no_args_fails: no arguments must be an error: [")
    assert line.endswith("'main.py']") and "/" not in line.split(": ", 2)[2], line


def test_the_reason_line_drops_the_harness_paths_and_keeps_the_tests_words():
    """What a failing inventory_cli row showed: a command made of sandbox paths, and no room left
    for what the test says."""
    from runners.promptfoo.output import headline

    message = (
        "AssertionError: stderr is not one JSON object\n"
        "command: ['/cache/subenv-81666def57c21f703496/bin/python',"
        " '/workspace/main.py', 'add', 'bolt', '1', '--db', "
        "'/tmp/pytest-of-runner/pytest-0/test_corrupt_database_add_0/stock.db']"
    )
    command = (
        "AssertionError: command: ['/cache/subenv-81666def57c21f703496/bin/python', "
        "'/workspace/main.py', 'add', 'Bolt', '1', '--db', "
        "'/tmp/pytest-of-runner/pytest-0/test_invalid_name_uppercase_0/stock.db']\n"
        "exit code: 0"
    )
    tests = [
        {
            "id": "a",
            "name": "test_corrupt_database[add]",
            "group_type": "Error",
            "status": "failed",
            "failure_message": message,
        },
        {
            "id": "b",
            "name": "test_invalid_name[uppercase]",
            "group_type": "Core",
            "status": "failed",
            "failure_message": command,
        },
        *(
            {
                "id": f"c{i}",
                "name": f"test_{i}",
                "group_type": "Error",
                "status": "failed",
                "failure_message": "x" * 500,
            }
            for i in range(30)
        ),
    ]
    line = headline({"tests": tests})
    assert (
        line
        == "[Core] test_invalid_name[uppercase]: command: ['python', 'main.py', 'add',… (+31 more)"
    )
    assert "/cache/" not in line and "/workspace" not in line and "pytest-of" not in line
    assert len(line) == MAX_HEADLINE_CHARS  # two lines of the cell's red reason at most
    assert (
        headline({"tests": tests[:1]})
        == "[Error] test_corrupt_database[add]: stderr is not one JSON object"
    )
    assert len(headline({"tests": tests[2:]})) <= MAX_HEADLINE_CHARS
    # jest's and vitest's matcher line says nothing: what was expected and what came does.
    jest = {
        "id": "j",
        "name": "rejects 1 +",
        "group_type": "Error",
        "status": "failed",
        "failure_message": (
            "Error: expect(received).toEqual(expected) // deep equality\n\n- Expected  - 1\n"
            '+ Received  + 1\n\n  Object {\n-   "code": 2,\n+   "code": 1,\n  }'
        ),
    }
    assert (
        headline({"tests": [jest]}) == '[Error] rejects 1 +: expected "code": 2, received "code": 1'
    )
    vitest = {
        **jest,
        "failure_message": (
            "AssertionError: expected 5 to be 6 // Object.is equality\n\nExpected: 6"
        ),
    }
    assert (
        headline({"tests": [vitest]})
        == "[Error] rejects 1 +: expected 5 to be 6 // Object.is equality"
    )
    go = {
        **jest,
        "failure_message": "checkpoint_1_test.go:32: unitconv ten km m: exit 0, want exit 2",
    }
    assert (
        headline({"tests": [go]}) == "[Error] rejects 1 +: unitconv ten km m: exit 0, want exit 2"
    )
    # A case of a case-based problem: its first line, and the first line of its diff.
    case = {
        "id": "error/missing_file",
        "name": "missing_file",
        "group_type": "Error",
        "status": "failed",
        "failure_message": "status_code wrong (score 0.00)\nstatus_code: expected 2, got 1",
        "attributes": [],
        "diff": "status_code: expected 2, got 1",
    }
    assert headline({"tests": [case]}) == (
        "[Error] missing_file: status_code wrong (score 0.00); status_code: expected 2, got 1"
    )


def test_provider_infrastructure_failure_is_a_normal_response(world, tmp_path):
    # A test file that collects no tests: the harness reports an infrastructure failure.
    from support import make_problem

    problems = tmp_path / "problems"
    make_problem(problems, {"test_checkpoint_1.py": "# no tests here\n"}, name=PROBLEM)
    response = provider.call_api("x", options(world, problems=str(problems)), context())
    assert "error" not in response
    meta = response["metadata"]
    assert meta["infrastructure_failure"] is True and meta["passed"] is False
    assert "no tests collected" in meta["infrastructure_reason"]
    assert response["output"] == "mini · checkpoint_1: INFRASTRUCTURE FAILURE"
    assert "no tests collected" in meta["headline"]
    grade = assertions.get_assert(response["output"], {"metadata": meta, "config": {}})
    assert grade["pass"] is False and grade["score"] == 0
    assert (
        grade["reason"].startswith("infrastructure failure:")
        and "no tests collected" in grade["reason"]
    )
    # No group scores (no tests ran); the code's figures are still the code's.
    assert set(grade["namedScores"]) == {"code_dup", "code_lint"}
    assert "componentResults" not in grade
    # `any` passes even an infrastructure failure (the policy's definition), still with score 0.
    lax = assertions.get_assert("", {"metadata": meta, "config": {"pass_policy": "any"}})
    assert lax["pass"] is True and lax["score"] == 0


def test_provider_infrastructure_failure_carries_the_tools_own_words(world, tmp_path):
    """The row's output and the assertion's reason say what pytest said, not only its exit code."""
    from support import make_problem

    problems = tmp_path / "problems"
    make_problem(
        problems,
        {"test_checkpoint_1.py": "def test_a():\n    pass\n"},
        name=PROBLEM,
        conftest="def pytest_addoption(parser):\n    parser.addoption('--entrypoint')\n",
    )
    response = provider.call_api("x", options(world, problems=str(problems)), context())
    cause = "error: unrecognized arguments: --checkpoint=checkpoint_1"
    headline = response["metadata"]["headline"]
    assert (
        "pytest exited 4 (usage error)" in headline and cause in headline and "\n" not in headline
    )
    assert cause in response["metadata"]["infrastructure_reason"]
    grade = assertions.get_assert(
        response["output"], {"metadata": response["metadata"], "config": {}}
    )
    assert grade["pass"] is False and cause in grade["reason"]


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        ("infra", "no sandbox is usable here"),  # raised by the sandbox choice, before any result
        ("bug", "harness error RuntimeError: boom"),
    ],
)
def test_provider_reports_raised_harness_failures_as_infrastructure(
    world, monkeypatch, exc, reason
):
    import runners.api
    from runners.model.errors import InfrastructureError

    def failing(*args, **kwargs):
        raise (
            InfrastructureError("no sandbox is usable here")
            if exc == "infra"
            else RuntimeError("boom")
        )

    monkeypatch.setattr(runners.api, "run_checkpoint", failing)
    response = provider.call_api("x", options(world), context())
    assert "error" not in response
    meta = response["metadata"]
    assert meta["infrastructure_failure"] is True and meta["infrastructure_reason"] == reason
    assert (meta["problem_name"], meta["checkpoint_name"], meta["framework"]) == (
        PROBLEM,
        "checkpoint_1",
        "pytest",
    )
    assert meta["passed"] is False and meta["policies"]["any"] is True
    assert response["output"] == "mini · checkpoint_1: INFRASTRUCTURE FAILURE"
    assert (
        assertions.get_assert(response["output"], {"metadata": meta})["reason"]
        == f"infrastructure failure: {reason}"
    )


def test_provider_overall_cap_returns_an_infrastructure_failure(world):
    meta_problems = world["problems"]
    slow = options(world, overall_timeout=0.2, problems=str(meta_problems))
    started = time.monotonic()
    response = provider.call_api("x", slow, context())
    assert time.monotonic() - started < 5
    assert response["metadata"]["infrastructure_failure"] is True
    assert "overall cap of 0.2 s" in response["metadata"]["infrastructure_reason"]
    assert "INFRASTRUCTURE FAILURE" in response["output"]


def test_provider_paths_are_relative_to_base_path(world):
    base = world["problems"].parent
    rel = options(
        world,
        base=str(base),
        submissions="submissions/good",
        problems="problems",
        output="runs-rel",
    )
    response = provider.call_api("x", rel, context())
    assert "error" not in response, response.get("error")
    assert Path(response["metadata"]["artifacts_dir"]).is_relative_to(base / "runs-rel")


# ---- provider: error rows -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"agent": None}, "provider config: field `agent`: required but missing"),
        ({"submissions": None}, "provider config: field `submissions`: required but missing"),
        (
            {"submissions": "/nonexistent/agent"},
            "provider config `submissions`: /nonexistent/agent is not a directory",
        ),
        (
            {"problems": "/nonexistent/problems"},
            "provider config `problems`: /nonexistent/problems is not a directory",
        ),
        (
            {"sandbox": "vm"},
            "provider config: field `sandbox`: 'vm' is not one of auto, docker, bubblewrap, none",
        ),
        ({"pass_policy": "most"}, "provider config: field `pass_policy`: 'most' is not one of"),
        (
            {"wall_timeout": -1},
            "provider config: field `wall_timeout`: Input should be greater than 0 (got -1)",
        ),
        (
            {"wall_timeout": "90"},
            "provider config: field `wall_timeout`: Input should be a valid number",
        ),
        ({"agent": 3}, "provider config: field `agent`: Input should be a valid string (got 3)"),
        ({"python": 3.1}, "provider config: field `python`: expected a quoted version"),
        ({"python": "snake"}, "provider config: field `python`:"),
        ({"wall_timeout": 400}, "provider config `wall_timeout`: 400 s does not fit"),
        (
            {"pass-policy": "any"},
            (
                "provider config: field `pass-policy`: unknown key (did you mean 'pass_policy'?) "
                "(allowed keys: agent, basePath,"
            ),
        ),
        ({"timeout": 10_000}, "provider config `timeout`: 10000 ms leaves no time"),
    ],
)
def test_bad_config_is_an_error_row(world, change, message):
    opts = options(world)
    for key, value in change.items():
        if value is None:
            opts["config"].pop(key, None)
        else:
            opts["config"][key] = value
    response = provider.call_api("x", opts, context())
    assert set(response) == {"error"}
    assert message in response["error"]


@pytest.mark.parametrize(
    ("ctx", "message"),
    [
        (context(problem="nope"), "test `problem`: unknown problem 'nope'"),
        (
            context(checkpoint="checkpoint_9"),
            (
                "test `checkpoint`: problem 'mini' has no checkpoint "
                "'checkpoint_9' (known: checkpoint_1, checkpoint_2)"
            ),
        ),
        (
            {"vars": {"checkpoint": "checkpoint_1"}},
            "test metadata `problem` (or var `problem`) is required",
        ),
        (context(problem="../mini"), "test var `problem`: '../mini' is not a plain name"),
        ({}, "test metadata `problem` (or var `problem`) is required"),
    ],
)
def test_bad_vars_are_error_rows(world, ctx, message):
    response = provider.call_api("x", options(world), ctx)
    assert set(response) == {"error"} and message in response["error"]


def test_the_cell_comes_from_the_generated_tests_metadata(world):
    # What promptfoo passes for a generated test: no vars, the cell in the test's metadata.
    test = generator.generate_tests(
        {"problems": str(world["problems"]), "checkpoints": ["checkpoint_2"]}
    )[0]
    response = provider.call_api("x", options(world), {"vars": {}, "test": test})
    assert "error" not in response, response.get("error")
    assert (response["metadata"]["problem"], response["metadata"]["checkpoint"]) == (
        PROBLEM,
        "checkpoint_2",
    )


def test_missing_submission_directory_is_an_error_row(world, tmp_path):
    (tmp_path / "agent" / PROBLEM / "checkpoint_1").mkdir(parents=True)
    opts = options(world, submissions=str(tmp_path / "agent"))
    response = provider.call_api("x", opts, context("checkpoint_2"))
    assert set(response) == {"error"}
    assert f"{tmp_path / 'agent' / PROBLEM / 'checkpoint_2'} does not exist" in response["error"]
    assert "agent 'good'" in response["error"]


def test_bad_options_never_raise(world):
    for opts, ctx in [(None, None), ({"config": "nope"}, {}), ({"config": {"agent": 3}}, {})]:
        response = provider.call_api("x", opts, ctx)
        assert set(response) == {"error"}


# ---- assertion ----------------------------------------------------------------------------------


def test_named_scores_and_reason_match_the_counts(partial_cp2):
    meta = partial_cp2["metadata"]
    grade = assertions.get_assert(partial_cp2["output"], {"metadata": meta, "config": {}})
    passed, total = meta["pass_counts"], meta["total_counts"]
    assert set(total) == {
        "Core",
        "Error",
        "Regression",
    }  # no Functionality in checkpoint_2's own tests
    rate = sum(passed.values()) / sum(total.values())
    groups = {
        name: value for name, value in grade["namedScores"].items() if not name.startswith("code_")
    }
    assert groups == {**{g.lower(): passed[g] / total[g] for g in total}, "tests": rate}
    assert groups == {
        "core": 0.5,
        "error": 1.0,
        "regression": pytest.approx(2 / 3),
        "tests": pytest.approx(4 / 6),
    }
    # Weighted by the number of tests, so promptfoo's column sums are counts of tests.
    weights = grade["namedScoreWeights"]
    assert {n: w for n, w in weights.items() if not n.startswith("code_")} == {
        "core": 2,
        "error": 1,
        "regression": 3,
        "tests": 6,
    }
    # ... and the code's figures by their divisors (nine lines, here and at checkpoint 1).
    assert {n: w for n, w in weights.items() if n.startswith("code_")} == {
        "code_dup": 9,
        "code_lint": 9,
        "code_growth": 9,
    }
    assert grade["score"] == pytest.approx(rate) == pytest.approx(4 / 6)
    assert grade["pass"] is False and grade["pass"] == meta["passed"]
    assert (
        grade["reason"] == "[Core] test_upper_words: every word upper-cased (+1 more)"
    )  # why, in one line
    passing = assertions.get_assert("", {"metadata": meta, "config": {"pass_policy": "any-case"}})
    assert passing["pass"] is True and passing["reason"] == "policy any-case met"
    # One result per row: the viewer's badge is the row's verdict, not a count of groups.
    assert "componentResults" not in grade


def test_named_scores_carry_the_code_quality_figures_and_not_the_score(partial_cp2):
    """The submission's figures, as shares (the viewer shows named scores as percentages), beside
    the groups'; the score and the verdict do not read them."""
    meta = partial_cp2["metadata"]
    quality = meta["quality"]
    assert quality["previous_checkpoint"] == "checkpoint_1"
    grade = assertions.get_assert("", {"metadata": meta, "config": {}})
    figures = {
        name: value
        for name, value in grade["namedScores"].items()
        if name not in (*assertions.GROUP_SCORES, "tests")
    }
    metrics = quality["metrics"]
    assert metrics["loc"] == 9 and metrics["functions"] == 0  # PARTIAL: a script of nine lines
    # No function: no share of complex ones; the same code as at checkpoint_1: no growth.
    assert figures == {"code_dup": 0.0, "code_lint": 0.0, "code_growth": 0.0}
    without = assertions.get_assert("", {"metadata": meta, "config": {"quality": False}})
    assert set(without["namedScores"]) == {"tests", "core", "error", "regression"}
    assert (without["score"], without["pass"]) == (grade["score"], grade["pass"])
    unmeasured = {**meta, "quality": None}
    assert assertions.get_assert("", {"metadata": unmeasured})["score"] == grade["score"]
    assert "code:" not in partial_cp2["output"]  # the pills show them; no extra line in the cell


def test_quality_shares_from_the_figures():
    metrics = {
        "loc": 200,
        "functions": 8,
        "complex_functions": 2,
        "duplicated_lines": 30,
        "lint_findings": 5,
    }
    quality = {"metrics": metrics, "previous": {**metrics, "loc": 160}}
    assert assertions.quality_scores({"quality": quality}) == (
        {"code_dup": 0.15, "code_complex": 0.25, "code_lint": 0.025, "code_growth": 0.25},
        # each weighted by its divisor: a column header adds whole lines and functions
        {"code_dup": 200, "code_complex": 8, "code_lint": 200, "code_growth": 160},
    )
    unmeasured = {**metrics, "duplicated_lines": None, "lint_findings": None}
    assert assertions.quality_scores({"quality": {"metrics": unmeasured}}) == (
        {"code_complex": 0.25},
        {"code_complex": 8},
    )


def test_the_row_links_its_line_on_the_evals_report_page(world, tmp_path):
    from runners.outputs.report.links import row_anchor

    response = provider.call_api("", options(world, base=str(tmp_path), quality=False), context())
    meta = response["metadata"]
    page = tmp_path / ".runners" / "reports" / "eval-unit.html"
    assert meta["report"] == f"{page.as_uri()}#{row_anchor('good', PROBLEM, 'checkpoint_1')}"
    assert meta["quality"] is None and "code:" not in response["output"]
    elsewhere = provider.call_api("", options(world, base=str(tmp_path), report="pages"), context())
    assert elsewhere["metadata"]["report"].startswith(
        (tmp_path / "pages" / "eval-unit.html").as_uri() + "#row-"
    )


def test_assertion_policy_from_config_overrides_the_providers(partial_cp2):
    meta = partial_cp2["metadata"]
    assert (
        assertions.get_assert("", {"metadata": meta, "config": {"pass_policy": "any-core-cases"}})[
            "pass"
        ]
        is True
    )
    assert (
        assertions.get_assert("", {"metadata": meta, "config": {"pass_policy": "core-cases"}})[
            "pass"
        ]
        is False
    )
    bad = assertions.get_assert("", {"metadata": meta, "config": {"pass_policy": "most"}})
    assert bad["pass"] is False and "'most' is not one of" in bad["reason"]


def test_assertion_reads_provider_response_metadata_and_falls_back_to_runners(partial_cp2):
    meta = dict(partial_cp2["metadata"])
    via_response = assertions.get_assert("", {"providerResponse": {"metadata": meta}})
    assert via_response["namedScores"]["core"] == 0.5
    # A bare ExecutionResult (e.g. a saved result.json): runners decides the policy.
    bare = {
        k: v
        for k, v in meta.items()
        if k in ExecutionResult.model_fields or k in ("summary", "pass_rate")
    }
    assert (
        assertions.get_assert("", {"metadata": bare, "config": {"pass_policy": "any-case"}})["pass"]
        is True
    )
    assert assertions.get_assert("", {"metadata": bare})["pass"] is False  # default all-cases


def test_assertion_without_result_fails_readably():
    grade = assertions.get_assert("some text", {"metadata": {"foo": 1}})
    assert grade == {
        "pass": False,
        "score": 0.0,
        "reason": "no test-run result in the provider's metadata (the provider must be "
        "providers/test_runner.py)",
    }


def test_assertion_names_match_runners():
    """assertions.py stays stdlib-only (a fresh Python per row), so it keeps its own copy of the
    group and policy names: they must not drift from runners'."""
    from runners.model.groups import GroupType
    from runners.model.policy import PassPolicy

    assert assertions.GROUPS == tuple(g.value for g in GroupType)
    assert assertions.POLICIES == tuple(p.value for p in PassPolicy)


# ---- test generator -----------------------------------------------------------------------------


def test_generator_yields_one_test_per_problem_checkpoint_in_order(world, tmp_path):
    from support import make_problem

    problems = tmp_path / "problems"
    make_problem(
        problems,
        {"test_checkpoint_1.py": "def test_a(): pass\n"},
        name="zeta",
        checkpoints={
            "checkpoint_2": {"version": 1, "order": 2},
            "checkpoint_10": {"version": 2, "order": 3},
            "checkpoint_1": {"version": 1, "order": 1},
        },
    )
    make_problem(
        problems,
        {"test_checkpoint_1.py": "def test_a(): pass\n"},
        name="alpha_js",
        framework="junit",
        test_command=["true"],
        report_path="r.xml",
    )
    (problems / "not_a_problem").mkdir()
    tests = generator.generate_tests({"problems": str(problems)})
    assert [(t["metadata"]["problem"], t["metadata"]["checkpoint"]) for t in tests] == [
        ("alpha_js", "checkpoint_1"),
        ("zeta", "checkpoint_1"),
        ("zeta", "checkpoint_2"),
        ("zeta", "checkpoint_10"),
    ]
    # A var or a description would be one more column in the viewer, left of the agents.
    assert "vars" not in tests[3] and "description" not in tests[3]
    assert tests[3]["metadata"] == {
        "problem": "zeta",
        "checkpoint": "checkpoint_10",
        "checkpoint_order": 3,
        "framework": "pytest",
        "problem_version": 1,
        "checkpoint_version": 2,
    }
    assert tests[0]["metadata"]["framework"] == "junit"
    only = generator.generate_tests(
        {"problems": str(problems), "only": ["zeta"], "checkpoints": ["checkpoint_2"]}
    )
    assert [(t["metadata"]["problem"], t["metadata"]["checkpoint"]) for t in only] == [
        ("zeta", "checkpoint_2")
    ]


def test_generator_covers_the_example_problems():
    tests = generator.generate_tests({"problems": str(ROOT / "problems")})
    described = {(t["metadata"]["problem"], t["metadata"]["checkpoint"]) for t in tests}
    assert ("inventory_cli", "checkpoint_1") in described and (
        "inventory_cli",
        "checkpoint_3",
    ) in described
    for test in tests:
        assert test["metadata"]["problem"] and test["metadata"]["checkpoint"]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"problems": "/nonexistent"}, "config `problems`: /nonexistent is not a directory"),
        ({"problems": "problems", "colour": 1}, "unknown config key(s) 'colour'"),
        ({"problems": "problems", "only": ["nope"]}, "config `only`: no problem nope"),
    ],
)
def test_a_mistake_in_the_generators_config_is_one_error_row_not_an_aborted_eval(
    config, message, monkeypatch, world
):
    """promptfoo printed 60 lines of Python traceback and stored nothing; now the eval runs, and
    its one row per provider is an ERROR saying what to fix."""
    monkeypatch.chdir(ROOT)
    [test] = generator.generate_tests(config)
    assert message in test["metadata"]["config_error"]
    response = provider.call_api("x", options(world), {"vars": {}, "test": test})
    assert set(response) == {"error"} and message in response["error"]


def test_one_broken_problem_is_an_error_row_and_the_others_are_graded(world, tmp_path):
    from support import make_problem

    problems = tmp_path / "problems"
    shutil.copytree(world["problems"] / PROBLEM, problems / PROBLEM)
    broken = make_problem(problems, {"test_checkpoint_1.py": "def test_a(): pass\n"}, name="broken")
    (broken / "config.yaml").write_text(
        (broken / "config.yaml").read_text().replace("timeout: 30", "timeout: soon")
    )
    tests = generator.generate_tests({"problems": str(problems)})
    assert [(t["metadata"]["problem"], t["metadata"]["checkpoint"]) for t in tests] == [
        ("broken", "config.yaml"),
        (PROBLEM, "checkpoint_1"),
        (PROBLEM, "checkpoint_2"),
    ]
    opts = options(world, problems=str(problems))
    answer = provider.call_api("x", opts, {"vars": {}, "test": tests[0]})
    assert set(answer) == {"error"}
    assert f"{broken / 'config.yaml'}: invalid configuration" in answer["error"]
    assert "field `timeout`" in answer["error"] and "Traceback" not in answer["error"]
    graded = provider.call_api("x", opts, {"vars": {}, "test": tests[1]})
    assert "error" not in graded and graded["metadata"]["status"] == "graded"


def test_a_problem_error_is_an_error_row_that_names_the_file(world, tmp_path):
    from support import make_problem

    problems = tmp_path / "problems"
    make_problem(problems, {"test_checkpoint_1.py": "def test_a(:\n    pass\n"}, name=PROBLEM)
    answer = provider.call_api("x", options(world, problems=str(problems)), context())
    assert "output" not in answer, answer.get("output")
    assert answer["error"].startswith(f"runners provider: {PROBLEM} · checkpoint_1: PROBLEM ERROR")
    assert "tests/test_checkpoint_1.py, line 1: SyntaxError" in answer["error"]
    assert (
        answer["metadata"]["problem_error"] is True
        and answer["metadata"]["status"] == "problem_error"
    )


# ---- import cost --------------------------------------------------------------------------------


def test_provider_and_assertion_import_fast_and_light():
    """promptfoo gives a worker 30 s to import the provider, and starts a fresh Python per
    assertion."""
    code = (
        "import sys, time; t = time.perf_counter(); "
        f"sys.path.insert(0, {str(PROVIDERS)!r}); import test_runner, assertions; "
        "dt = time.perf_counter() - t; "
        "heavy = sorted(m for m in ('runners', 'pydantic', 'yaml') if m in sys.modules); "
        "print(dt, ','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    seconds, heavy = out.stdout.split()[0], out.stdout.split()[1:]
    assert heavy == [], f"heavy modules imported at module level: {heavy}"
    assert float(seconds) < 0.5


def test_a_submission_over_its_limits_is_an_error_row_naming_the_limit(world, tmp_path):
    subs = tmp_path / "subs"
    sub = subs / PROBLEM / "checkpoint_1"
    shutil.copytree(world["good"] / PROBLEM / "checkpoint_1", sub)
    with open(sub / "big.bin", "wb") as handle:
        handle.truncate(64 << 30)  # sparse: 64 GiB that take no disk
    response = provider.call_api("x", options(world, submissions=str(subs)), context())
    assert set(response) == {"error"}, response
    assert "too large" in response["error"] and "submission_mb" in response["error"]
    assert "--max-submission-mb" in response["error"] and "big.bin: 64.0 GiB" in response["error"]
