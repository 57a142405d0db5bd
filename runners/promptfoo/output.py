"""The readable text of a Promptfoo row: verdict, per-group passed/total, the failing tests."""

from __future__ import annotations

from typing import Any

from runners.excerpt import terminal_safe
from runners.groups import GroupType

MAX_FAILURES_SHOWN = 10
MAX_MESSAGE_CHARS = 160
MAX_DIFF_LINES = 6
MAX_REASON_CHARS = 2_400


def summarize(metadata: dict[str, Any]) -> str:
    """The row's short text: verdict, per-group passed/total, then the failing tests (capped)."""
    # The row's name: the viewer has no name column (see tests_from_problems.py), the column is the agent.
    head = f"{metadata.get('problem')} · {metadata.get('checkpoint')}"
    if metadata.get("infrastructure_failure"):
        reason = (metadata.get("infrastructure_reason") or "unknown").strip()
        # The reason's lines after the first are the tool's own output (bounded by the harness).
        lines = [f"{head}: INFRASTRUCTURE FAILURE", _clip(reason, MAX_REASON_CHARS)]
        return terminal_safe("\n".join(lines))
    if metadata.get("problem_error"):
        reason = (metadata.get("problem_error_reason") or "unknown").strip()
        return terminal_safe("\n".join([f"{head}: PROBLEM ERROR (the problem's own files failed to load; no grade)",
                          _clip(reason, MAX_REASON_CHARS)]))
    verdict = "PASS" if metadata.get("passed") else "FAIL"
    lines = [f"{head}: {verdict} (policy {metadata.get('policy')})"]
    passed_counts = metadata.get("pass_counts") or {}
    total_counts = metadata.get("total_counts") or {}
    groups = [f"{g.value} {passed_counts.get(g.value, 0)}/{total_counts[g.value]}"
              for g in GroupType if g.value in total_counts]
    all_passed, all_total = sum(passed_counts.values()), sum(total_counts.values())
    if groups:
        lines.append(f"{', '.join(groups)} (all {all_passed}/{all_total})")
    else:
        lines.append("no tests were run")
    flags = metadata.get("flags") or []
    if flags:
        lines.append(f"flags: {', '.join(flags)}")
    failing = [t for t in metadata.get("tests") or [] if t.get("status") != "passed"]
    if failing:
        lines.append(f"failing ({len(failing)}):")
        for test in failing[:MAX_FAILURES_SHOWN]:
            message = _first_line(test.get("failure_message")) or test.get("status", "")
            lines.append(f"- [{test.get('group_type')}] {test.get('name') or test.get('id')}: "
                         f"{_clip(message, MAX_MESSAGE_CHARS)}")
            diff = _case_details(test).splitlines()  # a case of a case-based problem: why, and the diff
            lines += [f"    {_clip(line, MAX_MESSAGE_CHARS)}" for line in diff[:MAX_DIFF_LINES]]
            if len(diff) > MAX_DIFF_LINES:
                lines.append(f"    ... {len(diff) - MAX_DIFF_LINES} more lines")
        if len(failing) > MAX_FAILURES_SHOWN:
            lines.append(f"... and {len(failing) - MAX_FAILURES_SHOWN} more")
    # promptfoo prints the row's text in its own terminal table: the submission's words made safe
    return terminal_safe("\n".join(lines))


def _case_details(test: dict[str, Any]) -> str:
    """The message of a case after its first line (TestResult.case_details, on the dumped test)."""
    if test.get("attributes") is None and test.get("diff") is None:
        return ""
    lines = (test.get("failure_message") or "").strip().splitlines()
    return "\n".join(lines[1:]).strip()


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
