"""Pass policies: SCBench names, and no pass for broken or empty runs (except `any`)."""

import pytest

from runners.model.policy import PassPolicy as P
from runners.model.results import ExecutionResult, TestResult
from runners.model.results import GroupType as G


def _result(spec: dict[G, tuple[int, int]], infra: bool = False) -> ExecutionResult:
    tests = []
    for group, (passed, total) in spec.items():
        for i in range(total):
            tests.append(
                TestResult(
                    id=f"{group.value}-{i}",
                    name=str(i),
                    checkpoint="checkpoint_1",
                    group_type=group,
                    status="passed" if i < passed else "failed",
                )
            )
    return ExecutionResult(
        problem_name="p",
        checkpoint_name="checkpoint_1",
        tests=tests,
        infrastructure_failure=infra,
        infrastructure_reason="x" if infra else None,
    )


ALL_PASS = {G.CORE: (3, 3), G.FUNCTIONALITY: (2, 2), G.ERROR: (1, 1), G.REGRESSION: (2, 2)}
ERROR_FAILS = {G.CORE: (3, 3), G.FUNCTIONALITY: (2, 2), G.ERROR: (0, 1), G.REGRESSION: (2, 2)}
CORE_FAILS = {G.CORE: (2, 3), G.FUNCTIONALITY: (2, 2)}
ONLY_FUNC = {G.FUNCTIONALITY: (2, 2)}
NOTHING_PASSES = {G.CORE: (0, 2)}


@pytest.mark.parametrize(
    ("policy", "spec", "expected"),
    [
        (P.ALL_CASES, ALL_PASS, True),
        (P.ALL_CASES, ERROR_FAILS, False),
        (P.ALL_NON_ERROR_CASES, ERROR_FAILS, True),
        (P.ALL_NON_ERROR_CASES, CORE_FAILS, False),
        (P.CORE_CASES, ERROR_FAILS, True),
        (P.CORE_CASES, CORE_FAILS, False),
        (P.CORE_CASES, ONLY_FUNC, False),  # no Core tests: not passed
        (P.ALL_CORE_CASES, ERROR_FAILS, True),
        (P.ANY_CORE_CASES, CORE_FAILS, True),
        (P.ANY_CORE_CASES, NOTHING_PASSES, False),
        (P.ANY_CASE, NOTHING_PASSES, False),
        (P.ANY_CASE, CORE_FAILS, True),
        (P.ANY, NOTHING_PASSES, True),
    ],
)
def test_policies(policy, spec, expected):
    assert policy.check(_result(spec)) is expected


@pytest.mark.parametrize("policy", [p for p in P if p is not P.ANY])
def test_no_tests_never_passes(policy):
    assert policy.check(_result({})) is False


@pytest.mark.parametrize("policy", [p for p in P if p is not P.ANY])
def test_infrastructure_failure_never_passes(policy):
    assert policy.check(_result(ALL_PASS, infra=True)) is False


def test_any_passes_even_an_infrastructure_failure():
    assert P.ANY.check(_result({}, infra=True)) is True


def test_skipped_tests_are_not_passes():
    result = ExecutionResult(
        problem_name="p",
        checkpoint_name="c",
        tests=[TestResult(id="a", name="a", checkpoint="c", group_type=G.CORE, status="skipped")],
    )
    assert result.pass_counts == {G.CORE: 0} and result.total_counts == {G.CORE: 1}
    assert not P.ALL_CASES.check(result)


def test_unknown_policy_name():
    with pytest.raises(ValueError):
        P("most-cases")
