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
  row has (a group without tests in the row is left out, so it does not drag the column down).

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

    runs = metadata.get("repeat_runs")
    if isinstance(runs, list) and runs:
        return with_repeats(runs, policy, grade(metadata, policy, passed))
    return with_agent_step(metadata, grade(metadata, policy, passed))


def with_repeats(runs: list[Any], policy: str, first: dict[str, Any]) -> dict[str, Any]:
    """A row of an agent with `repeat: N`: it passes when every repeat met the policy (its agent
    step included); its score is the share that did (pass@1); the named scores stay the first
    repeat's groups, and `pass@1`/`pass@N` are added."""
    verdicts = [bool((run.get("policies") or {}).get(policy)) and not run.get("agent_failure")
                for run in runs if isinstance(run, dict)]
    n, c = len(verdicts), sum(verdicts)
    named = dict(first.get("namedScores") or {})
    named["pass@1"] = c / n if n else 0.0
    named[f"pass@{n}"] = 1.0 if n - c < n else 0.0  # at least one of the n repeats passed
    failed = [f"{run.get('agent')}: {run.get('agent_failure') or run.get('summary')}"
              for run, ok in zip(runs, verdicts) if not ok]
    reason = f"{c}/{n} repeats met policy {policy}" + (f"; not: {'; '.join(failed)}" if failed else "")
    return {"pass": c == n and n > 0, "score": c / n if n else 0.0, "reason": reason, "namedScores": named}


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
    if metadata.get("problem_error"):  # the provider answers these as ERROR rows; a saved result may not
        reason = f"problem error (no grade): {metadata.get('problem_error_reason') or 'unknown'}"
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
