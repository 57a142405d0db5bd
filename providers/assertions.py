"""Promptfoo assertion: grade one row from the test-run result the provider put into its metadata.

    defaultTest:
      assert:
        - type: python
          value: file://providers/assertions.py      # get_assert(output, context)
          metric: tests                              # the row's pass rate, averaged per column
          config: {pass_policy: all-cases}           # optional; default: the provider's policy

Returns a GradingResult:

- `pass`: the pass policy (assertion `config.pass_policy`, else the one the provider used);
- `score`: the pass rate over every test (Regression included), 0 on an infrastructure failure;
- `reason`: the verdict and the test counts, e.g. "policy all-cases not met: 4/6 tests passed
  (Core 1/2, Error 1/1, Regression 2/3)", or the infrastructure failure's reason;
- `namedScores`: `core`, `functionality`, `error`, `regression`: the pass rate of each group this
  row has (a group without tests in the row is left out, so it does not drag the column down);
  and four code-quality figures of the submission where they were measured (docs/quality.md),
  as shares, because the viewer shows every named score as a percentage and lists only the first
  ten of a column (alphabetically) before "Show more": `code_growth` (lines of code added since
  the previous checkpoint, over its lines), `code_duplication` (duplicated lines over lines of
  code), `code_complex_functions` (functions of cyclomatic complexity over 10, over functions),
  `code_lint_per_line` (lint findings per line of code). They describe the code, not the grade:
  `score` and `pass` never read them. Assertion `config: {quality: false}` leaves them out.

A row of the agent provider (providers/agent_runner.py) whose agent step failed does not pass,
and its reason starts with the step's failure.

No `componentResults`: the viewer's cell badge counts them ("3 FAIL 2 PASS"), which reads as a
count of tests although it would count groups. With one result per row the badge is the row's
verdict (PASS or FAIL), the test counts are in the reason and the output, and the per-group
rates are the named-score pills.

promptfoo runs every file-based Python assertion in a fresh interpreter, so this file imports
only the standard library: the provider precomputes every policy's verdict (`policies`) and
`runners` is imported only for metadata that lacks it.
"""

from __future__ import annotations

from typing import Any

GROUPS = ("Core", "Functionality", "Error", "Regression")
GROUP_SCORES = tuple(group.lower() for group in GROUPS)
#: The code-quality named scores: name -> (figure, what it is divided by), from
#: ExecutionResult.quality.metrics; `code_growth` divides the growth of `loc` by the previous `loc`.
QUALITY = {"code_duplication": ("duplicated_lines", "loc"),
           "code_complex_functions": ("complex_functions", "functions"),
           "code_lint_per_line": ("lint_findings", "loc")}
POLICIES = ("any", "any-case", "all-cases", "all-non-error-cases", "core-cases", "all-core-cases",
            "any-core-cases")


def get_assert(output: Any, context: dict[str, Any]) -> dict[str, Any]:
    context = context if isinstance(context, dict) else {}
    metadata = _metadata(context)
    if metadata is None:
        return _fail("no test-run result in the provider's metadata (the provider must be "
                     "providers/test_runner.py)")
    config = context.get("config") if isinstance(context.get("config"), dict) else {}
    policy = config.get("pass_policy") or metadata.get("policy") or "all-cases"
    if policy not in POLICIES:
        return _fail(f"assertion config `pass_policy`: {policy!r} is not one of {', '.join(POLICIES)}")
    try:
        passed = _policy_verdict(metadata, policy)
    except Exception as exc:  # noqa: BLE001 - a broken result must fail the row, readably
        return _fail(f"cannot apply pass policy {policy!r} to the result: {type(exc).__name__}: {exc}")

    graded = with_agent_step(metadata, grade(metadata, policy, passed))
    if config.get("quality", True) is not False:
        graded["namedScores"] = {**graded.get("namedScores", {}), **quality_scores(metadata)}
    return graded


def quality_scores(metadata: dict[str, Any]) -> dict[str, float]:
    """The code-quality figures of the row's submission, as shares (named scores)."""
    quality = metadata.get("quality")
    metrics = quality.get("metrics") if isinstance(quality, dict) else None
    if not isinstance(metrics, dict):
        return {}
    scores: dict[str, float] = {}
    for name, (part, whole) in QUALITY.items():
        if _number(metrics.get(part)) and _number(metrics.get(whole)) and metrics[whole] > 0:
            scores[name] = metrics[part] / metrics[whole]
    previous = quality.get("previous") if isinstance(quality.get("previous"), dict) else {}
    if _number(metrics.get("loc")) and _number(previous.get("loc")) and previous["loc"] > 0:
        scores["code_growth"] = (metrics["loc"] - previous["loc"]) / previous["loc"]
    return scores


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def with_agent_step(metadata: dict[str, Any], graded: dict[str, Any]) -> dict[str, Any]:
    """A row of the agent provider whose agent step failed (timed out, exited non-zero, reported
    an error) fails, whatever the tests of what it left say, and the reason says why first."""
    step = metadata.get("agent_step")
    failure = step.get("failure") if isinstance(step, dict) else None
    if not failure or metadata.get("infrastructure_failure"):
        return graded
    counts = graded["reason"].split(": ", 1)[-1]  # the counts, without the policy's verdict
    return {**graded, "pass": False, "reason": f"agent step failed: {failure}; what it left: {counts}"}


def grade(metadata: dict[str, Any], policy: str, passed: bool) -> dict[str, Any]:
    """The GradingResult for a result dict (ExecutionResult JSON) and a policy verdict."""
    if metadata.get("infrastructure_failure"):
        reason = f"infrastructure failure: {metadata.get('infrastructure_reason') or 'unknown'}"
        return {"pass": bool(passed), "score": 0.0, "reason": reason, "namedScores": {}}
    pass_counts: dict[str, int] = metadata.get("pass_counts") or {}
    total_counts: dict[str, int] = metadata.get("total_counts") or {}
    all_passed, all_total = sum(pass_counts.values()), sum(total_counts.values())
    score = all_passed / all_total if all_total else 0.0
    named: dict[str, float] = {}
    parts: list[str] = []
    for group in GROUPS:
        total = total_counts.get(group, 0)
        if not total:
            continue
        ok = pass_counts.get(group, 0)
        named[group.lower()] = ok / total
        parts.append(f"{group} {ok}/{total}")
    verdict = "met" if passed else "not met"
    if all_total:
        counts = f"{all_passed}/{all_total} tests passed ({', '.join(parts)})"
    else:
        counts = "no tests were run"
    return {"pass": bool(passed), "score": score, "reason": f"policy {policy} {verdict}: {counts}",
            "namedScores": named}


def _metadata(context: dict[str, Any]) -> dict[str, Any] | None:
    for candidate in (context.get("metadata"),
                      (context.get("providerResponse") or {}).get("metadata")
                      if isinstance(context.get("providerResponse"), dict) else None):
        if isinstance(candidate, dict) and "schema_version" in candidate and "total_counts" in candidate:
            return candidate
    return None


def _policy_verdict(metadata: dict[str, Any], policy: str) -> bool:
    policies = metadata.get("policies")
    if isinstance(policies, dict) and isinstance(policies.get(policy), bool):
        return policies[policy]
    # Metadata from elsewhere (e.g. a saved result.json): let `runners` decide, slowly but exactly.
    from runners.policy import PassPolicy
    from runners.results import ExecutionResult

    known = set(ExecutionResult.model_fields)
    result = ExecutionResult.model_validate({k: v for k, v in metadata.items() if k in known})
    return PassPolicy(policy).check(result)


def _fail(reason: str) -> dict[str, Any]:
    return {"pass": False, "score": 0.0, "reason": reason}
