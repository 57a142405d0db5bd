"""The text of a Promptfoo row, kept to a glance: the viewer sizes every row of a table to its
tallest cell, so a cell that lists its failing tests made 22 rows a 9,000 px page.

    inventory_cli · checkpoint_2: FAIL 57/65 tests
    Error 10/12 · Regression 28/36

The second line counts the groups that did not pass whole (the pills above it give every group's
rate); the row's reason (providers/assertions.py, shown in red on a failing row) adds the first
failing test in its own words (`headline`), without the harness's paths, in two lines at most.
Everything else (each test, its whole message, a case's diff, the run's output) is in the row's
metadata: the viewer's details (the magnifier icon), and the artifacts directory it names.
"""

from __future__ import annotations

import re
from typing import Any

from runners.engine.excerpt import terminal_safe
from runners.model.groups import GROUP_ORDER
from runners.util.short_paths import shorten

MAX_HEADLINE_CHARS = 86  # two lines of the viewer's bold red reason (480 px), word wrap included


def summarize(metadata: dict[str, Any], verdict: str | None = None) -> str:
    """The row's name and verdict with its test count, then the count of each group that did not
    pass whole (and the flags, which say how far the grade can be trusted). `verdict` replaces
    PASS/FAIL."""
    head = f"{metadata.get('problem')} · {metadata.get('checkpoint')}"
    if metadata.get("infrastructure_failure"):
        return f"{head}: INFRASTRUCTURE FAILURE"  # the reason is the row's one red line
    if metadata.get("problem_error"):  # an ERROR row: its text is all the viewer shows of it
        reason = _first_line(metadata.get("problem_error_reason")) or "unknown"
        return terminal_safe(
            f"{head}: PROBLEM ERROR (the problem's own files failed to load; no grade)\n"
            + _clip(shorten(reason), limit=2 * MAX_HEADLINE_CHARS)
        )
    verdict = verdict or ("PASS" if metadata.get("passed") else "FAIL")
    passed_counts: dict[str, int] = metadata.get("pass_counts") or {}
    total_counts: dict[str, int] = metadata.get("total_counts") or {}
    all_passed, all_total = sum(passed_counts.values()), sum(total_counts.values())
    lines = [
        f"{head}: {verdict} {all_passed}/{all_total} tests"
        if all_total
        else f"{head}: {verdict}, no tests were run"
    ]
    groups = [
        f"{g.value} {passed_counts.get(g.value, 0)}/{total}"
        for g in GROUP_ORDER
        if (total := total_counts.get(g.value, 0)) and passed_counts.get(g.value, 0) < total
    ]
    if groups:
        lines.append(" · ".join(groups))
    if metadata.get("flags"):
        lines.append(f"flags: {', '.join(metadata['flags'])}")
    # The code's figures are not in the cell: its named scores (pills) show them, the row's
    # metadata has them whole, and one more wrapped line made every row ~60 px taller.
    # promptfoo prints the row's text in its own terminal table: the submission's words made safe
    return terminal_safe("\n".join(lines))


def headline(metadata: dict[str, Any]) -> str | None:
    """One line on why the row did not pass: the infrastructure failure's first line, else the
    first test that did not pass (Core first) as `[Group] name: message`, the message's first
    line (a case's: and the first line of its diff). None when every test passed."""
    if metadata.get("problem_error"):
        reason = _first_line(metadata.get("problem_error_reason")) or "unknown"
        return terminal_safe(_clip(shorten(reason), limit=2 * MAX_HEADLINE_CHARS))
    if metadata.get("infrastructure_failure"):
        # The reason's first line, and the last line of the tool's output quoted under it (the
        # outcome: `error: unrecognized arguments: ...`), see runners.engine.excerpt.
        lines = [
            line.strip()
            for line in (metadata.get("infrastructure_reason") or "").splitlines()
            if line.strip()
        ]
        text = "; ".join(lines[:1] + lines[-1:] if len(lines) > 1 else lines) or "unknown"
        return terminal_safe(_clip(shorten(text), limit=2 * MAX_HEADLINE_CHARS))
    order = {g.value: i for i, g in enumerate(GROUP_ORDER)}
    failing = [t for t in metadata.get("tests") or [] if t.get("status") != "passed"]
    if not failing:
        return None
    test = min(failing, key=lambda t: order.get(t.get("group_type"), len(order)))
    more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
    return terminal_safe(
        _clip(
            shorten(
                f"[{test.get('group_type')}] {test.get('name') or test.get('id')}: "
                f"{own_words(test)}"
            ),
            more,
        )
    )


def own_words(test: dict[str, Any]) -> str:
    """What a failing test says, in one line: its message's first line without the exception's
    or the location's prefix (`AssertionError: `, `Error: `, Go's `x_test.go:32: `); for an
    `expect(...)` matcher, what was expected and what came (jest/vitest print them below); for a
    case, the first line of its diff."""
    text = test.get("failure_message") or ""
    first = (
        _LOCATION.sub("", _first_line(text))
        .removeprefix("AssertionError: ")
        .removeprefix("Error: ")
    )
    if not first:
        return str(test.get("status", ""))
    details = [line.strip() for line in _case_details(test).splitlines() if line.strip()]
    if details:
        return f"{first}; {' '.join(details[:2]) if details[0].endswith(':') else details[0]}"
    if _MATCHER.match(first):
        expected = _EXPECTED.search(text)
        received = _RECEIVED.search(text)
        if expected and received:
            return f"expected {expected.group(1).strip()}, received {received.group(1).strip()}"
    return first


# `expect(received).toEqual(expected) // deep equality`: jest's and vitest's matcher line, whose
# values follow as `Expected: x` / `Received: y`, or as a diff
# (`-   "code": 2,` / `+   "code": 1,`).
_MATCHER = re.compile(r"^expect\(")
_EXPECTED = re.compile(r"^(?:Expected(?: value)?:\s*|-\s{2,})(\S.*?),?$", re.MULTILINE)
_RECEIVED = re.compile(r"^(?:Received(?: value)?:\s*|\+\s{2,})(\S.*?),?$", re.MULTILINE)
# A location the framework puts before the message: Go's `checkpoint_1_test.go:32: `.
_LOCATION = re.compile(r"^[\w./-]+\.\w+:\d+: ")


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


def _clip(text: str, suffix: str = "", limit: int = MAX_HEADLINE_CHARS) -> str:
    limit -= len(suffix)
    return (text if len(text) <= limit else text[: limit - 1] + "…") + suffix
