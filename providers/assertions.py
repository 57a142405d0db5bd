"""Promptfoo assertion: grade one row from the test-run result the provider put into its metadata.

    defaultTest:
      assert:
        - type: python
          value: file://providers/assertions.py      # get_assert(output, context)
          config: {pass_policy: all-cases}           # optional; default: the provider's policy

Returns a GradingResult:

- `pass`: the pass policy (assertion `config.pass_policy`, else the one the provider used);
- `score`: the pass rate over every test (Regression included), 0 on an infrastructure failure;
- `reason`: one line, shown in red on a failing row: "[Error] bad_input: expected exit 2, got 0
  (+3 more)" (the first failing test in its own words, without the harness's paths), or the
  infrastructure failure's first line; "policy all-cases met" on a pass;
- `namedScores` and `namedScoreWeights`: per group (`core`, `functionality`, `error`,
  `regression`) and over every test (`tests`), the row's pass rate weighted by its number of
  tests. promptfoo then sums score × weight and the weights over a column, so the column header
  reads in tests: `core 91.67% (22.00/24.00)` is 22 of the 24 Core tests of every row of that
  agent, not a sum of per-row rates (`14.99/22.00`). A group without tests in the row is left
  out. (The assertion has no `metric:` of its own: promptfoo would then average `tests` per row.)
- `namedScores` also holds four code-quality figures of the submission where they were measured
  (docs/quality.md), as shares: `code_growth` (lines of code added since the previous checkpoint,
  over its lines), `code_dup` (duplicated lines over lines of code),
  `code_complex` (functions of cyclomatic complexity over 10, over functions),
  `code_lint` (lint findings per line of code), each weighted by its divisor (the header then
  adds whole lines and functions). They describe the code, not the grade:
  `score` and `pass` never read them. Assertion `config: {quality: false}` leaves them out.

A row of the agent provider (providers/agent_runner.py) whose agent step failed does not pass,
and its reason is the step's failure.

No `componentResults`: the viewer's cell badge counts them ("3 FAIL 2 PASS"), and promptfoo adds
the assertion itself to them, so no count of them can be a count of tests. With one result per
row the badge is the row's verdict (PASS or FAIL), the test counts are in the row's text, and the
column's `Asserts:` counts rows (as `passing` does).

promptfoo runs every file-based Python assertion in a fresh interpreter, so this file imports
only the standard library: the provider precomputes every policy's verdict (`policies`) and the
reason's line (`headline`), and `runners` is imported only for metadata that lacks them.
"""

from __future__ import annotations

import difflib
from typing import Any

GROUPS = ("Core", "Functionality", "Error", "Regression")
GROUP_SCORES = tuple(group.lower() for group in GROUPS)
#: The code-quality named scores: name -> (figure, what it is divided by), from
#: ExecutionResult.quality.metrics; `code_growth` divides the growth of `loc` by the previous `loc`.
QUALITY = {
    "code_dup": ("duplicated_lines", "loc"),
    "code_complex": ("complex_functions", "functions"),
    "code_lint": ("lint_findings", "loc"),
}
POLICIES = (
    "any",
    "any-case",
    "all-cases",
    "all-non-error-cases",
    "core-cases",
    "all-core-cases",
    "any-core-cases",
)


def get_assert(output: Any, context: dict[str, Any]) -> dict[str, Any]:
    context = context if isinstance(context, dict) else {}
    metadata = _metadata(context)
    if metadata is None:
        return _fail(
            "no test-run result in the provider's metadata (the provider must be "
            "providers/test_runner.py)"
        )
    config = context.get("config") if isinstance(context.get("config"), dict) else {}
    policy = config.get("pass_policy") or metadata.get("policy") or "all-cases"
    if policy not in POLICIES:
        close = difflib.get_close_matches(str(policy), POLICIES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return _fail(
            f"assertion config `pass_policy`: {policy!r} is not one of {', '.join(POLICIES)}{hint}"
        )
    try:
        passed = _policy_verdict(metadata, policy)
    except Exception as exc:  # noqa: BLE001 - a broken result must fail the row, readably
        return _fail(
            f"cannot apply pass policy {policy!r} to the result: {type(exc).__name__}: {exc}"
        )

    runs = metadata.get("repeat_runs")
    if isinstance(runs, list) and runs:
        graded = with_repeats(runs, policy, grade(metadata, policy, passed))
    else:
        graded = with_agent_step(metadata, grade(metadata, policy, passed))
    if config.get("quality", True) is not False:
        scores, weights = quality_scores(metadata)
        graded["namedScores"] = {**graded.get("namedScores", {}), **scores}
        graded["namedScoreWeights"] = {**graded.get("namedScoreWeights", {}), **weights}
    return graded


def quality_scores(metadata: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    """The code-quality figures of the row's submission, as shares (named scores), and their
    weights: each share's divisor (lines of code, functions, the previous checkpoint's lines), so
    that a column header adds up whole counts (`code_dup 2.1% (30.00/1,400.00)`: duplicated lines
    over lines, over the agent's rows), not a sum of per-row shares."""
    quality = metadata.get("quality")
    metrics = quality.get("metrics") if isinstance(quality, dict) else None
    if not isinstance(metrics, dict):
        return {}, {}
    scores: dict[str, float] = {}
    weights: dict[str, float] = {}
    for name, (part, whole) in QUALITY.items():
        if _number(metrics.get(part)) and _number(metrics.get(whole)) and metrics[whole] > 0:
            scores[name], weights[name] = metrics[part] / metrics[whole], metrics[whole]
    previous = quality.get("previous") if isinstance(quality.get("previous"), dict) else {}
    if _number(metrics.get("loc")) and _number(previous.get("loc")) and previous["loc"] > 0:
        scores["code_growth"] = (metrics["loc"] - previous["loc"]) / previous["loc"]
        weights["code_growth"] = previous["loc"]
    return scores, weights


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def with_repeats(runs: list[Any], policy: str, first: dict[str, Any]) -> dict[str, Any]:
    """A row of an agent with `repeat: N`: it passes when every repeat met the policy (its agent
    step included); its score is the share that did (pass@1); the named scores stay the first
    repeat's groups, and `pass@1`/`pass@N` are added."""
    verdicts = [
        bool((run.get("policies") or {}).get(policy)) and not run.get("agent_failure")
        for run in runs
        if isinstance(run, dict)
    ]
    n, c = len(verdicts), sum(verdicts)
    named = dict(first.get("namedScores") or {})
    named["pass@1"] = c / n if n else 0.0
    named[f"pass@{n}"] = 1.0 if n - c < n else 0.0  # at least one of the n repeats passed
    failed = [
        f"{run.get('agent')}: {run.get('agent_failure') or run.get('summary')}"
        for run, ok in zip(runs, verdicts)
        if not ok
    ]
    reason = f"{c}/{n} repeats met policy {policy}" + (
        f"; not: {'; '.join(failed)}" if failed else ""
    )
    return {
        "pass": c == n and n > 0,
        "score": c / n if n else 0.0,
        "reason": reason,
        "namedScores": named,
    }


def with_agent_step(metadata: dict[str, Any], graded: dict[str, Any]) -> dict[str, Any]:
    """A row of the agent provider whose agent step failed (timed out, exited non-zero, reported
    an error) fails, whatever the tests of what it left say, and the reason says why."""
    step = metadata.get("agent_step")
    failure = step.get("failure") if isinstance(step, dict) else None
    if not failure or metadata.get("infrastructure_failure"):
        return graded
    return {**graded, "pass": False, "reason": _clip(f"agent step failed: {_first_line(failure)}")}


def grade(metadata: dict[str, Any], policy: str, passed: bool) -> dict[str, Any]:
    """The GradingResult for a result dict (ExecutionResult JSON) and a policy verdict."""
    line = metadata.get("headline") if "headline" in metadata else _headline(metadata)
    if metadata.get("infrastructure_failure"):
        return {
            "pass": bool(passed),
            "score": 0.0,
            "reason": f"infrastructure failure: {line or 'unknown'}",
            "namedScores": {},
        }
    if metadata.get(
        "problem_error"
    ):  # the provider answers these as ERROR rows; a saved result may not
        return {
            "pass": bool(passed),
            "score": 0.0,
            "reason": f"problem error (no grade): {line or 'unknown'}",
            "namedScores": {},
        }
    pass_counts: dict[str, int] = metadata.get("pass_counts") or {}
    total_counts: dict[str, int] = metadata.get("total_counts") or {}
    all_passed, all_total = sum(pass_counts.values()), sum(total_counts.values())
    named: dict[str, float] = {}
    weights: dict[str, int] = {}
    for group in GROUPS:
        if total_counts.get(group):
            named[group.lower()] = pass_counts.get(group, 0) / total_counts[group]
            weights[group.lower()] = total_counts[group]
    if all_total:
        named["tests"], weights["tests"] = all_passed / all_total, all_total
    # A failing row's reason is its one red line in the viewer: why, not the policy's name again.
    if passed:
        reason = f"policy {policy} met"
    elif line:
        reason = line
    else:
        reason = (
            f"policy {policy} not met: {'no tests were run' if not all_total else 'see the tests'}"
        )
    return {
        "pass": bool(passed),
        "score": all_passed / all_total if all_total else 0.0,
        "reason": reason,
        "namedScores": named,
        "namedScoreWeights": weights,
    }


def _headline(metadata: dict[str, Any]) -> str | None:
    """The reason's line for metadata without `headline` (e.g. a saved result.json): the
    infrastructure failure's or the first failing test's first line, as is."""
    if metadata.get("infrastructure_failure"):
        return _clip(_first_line(metadata.get("infrastructure_reason")))
    for test in metadata.get("tests") or []:
        if isinstance(test, dict) and test.get("status") != "passed":
            return _clip(
                f"[{test.get('group_type')}] {test.get('name') or test.get('id')}: "
                f"{_first_line(test.get('failure_message')) or test.get('status')}"
            )
    return None


def _first_line(text: Any) -> str:
    for line in str(text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _metadata(context: dict[str, Any]) -> dict[str, Any] | None:
    for candidate in (
        context.get("metadata"),
        (context.get("providerResponse") or {}).get("metadata")
        if isinstance(context.get("providerResponse"), dict)
        else None,
    ):
        if (
            isinstance(candidate, dict)
            and "schema_version" in candidate
            and "total_counts" in candidate
        ):
            return candidate
    return None


def _policy_verdict(metadata: dict[str, Any], policy: str) -> bool:
    policies = metadata.get("policies")
    if isinstance(policies, dict) and isinstance(policies.get(policy), bool):
        return policies[policy]
    # Metadata from elsewhere (e.g. a saved result.json): let `runners` decide, slowly but exactly.
    from runners.model.policy import PassPolicy
    from runners.model.results import ExecutionResult

    known = set(ExecutionResult.model_fields)
    result = ExecutionResult.model_validate({k: v for k, v in metadata.items() if k in known})
    return PassPolicy(policy).check(result)


def _fail(reason: str) -> dict[str, Any]:
    return {"pass": False, "score": 0.0, "reason": reason}
