"""Readable terminal output with rich: one result, or a checkpoint-by-checkpoint evaluation."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from runners.engine.excerpt import CONTROL, terminal_safe
from runners.model.policy import PassPolicy

if TYPE_CHECKING:  # imported where used: the CLI imports this module before it needs pydantic
    from runners.model.metrics import CheckpointScore
    from runners.model.results import ExecutionResult

MAX_FAILURES_SHOWN = 40
DIFF_LINES_SHOWN = 8
# Width of output that is not a terminal (a file, a pipe, CI logs) when COLUMNS does not say:
# rich would assume 80 and squeeze the tables; nobody reads a file through an 80-column window.
FILE_WIDTH = 200


class SafeConsole(Console):
    """A console whose output never carries a control character it did not make itself.

    Test names, messages, a case's stderr, an agent's words: much of what a table shows is the
    submission's or the agent's own text, and an escape in it would clear the user's screen or
    restyle it. Every line rich writes goes through `_render_buffer`, after layout: the text of
    each segment is cleaned there, in one place, and rich's own control segments (cursor moves
    of a live display) and styles are kept.
    """

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment
            if segment.control or not CONTROL.search(segment.text)
            else Segment(terminal_safe(segment.text), segment.style, segment.control)
            for segment in buffer
        )


def make_console(stderr: bool = False) -> Console:
    """A console for the CLI: the terminal's width, or COLUMNS, or FILE_WIDTH for a file."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = hasattr(stream, "isatty") and stream.isatty()
    width = None if terminal or os.environ.get("COLUMNS") else FILE_WIDTH
    # emoji=False: `:name:` in a test id or message is text, not an emoji code.
    return SafeConsole(stderr=stderr, width=width, emoji=False)


# A column that folds (test ids, messages) still needs this much room to be read in a table.
FOLD_MIN = 16


def _column(table: Table, header: str, fold: bool = False, **options: Any) -> None:
    """A name or count column is never wrapped or cut; a `fold` one (ids, messages) is folded onto
    as many lines as it needs. Nothing ends in `…`: "Checkp…" cannot be read."""
    if fold:
        table.add_column(header, overflow="fold", **options)
    else:
        table.add_column(header, no_wrap=True, overflow="fold", **options)


def _text(cell: RenderableType) -> Text:
    if isinstance(cell, Text):
        return cell
    return Text.from_markup(cell) if isinstance(cell, str) else Text(str(cell))


def _needed_width(console: Console, table: Table) -> int:
    """Columns at the width of their longest cell (fold columns at FOLD_MIN at most), plus the
    borders and padding: below this, rich would cut names."""
    widths = []
    for column in table.columns:
        longest = max(_text(cell).cell_len for cell in [column.header, *column.cells])
        folds = column.overflow == "fold" and not column.no_wrap
        widths.append(min(longest, FOLD_MIN) if folds else longest)
    return sum(widths) + 3 * len(widths) + 1


def fit(console: Console, table: Table) -> RenderableType:
    """The table when every name fits whole on this console; otherwise the same rows as lines
    (`first cell: Header value · Header value ...`) that wrap between words."""
    if _needed_width(console, table) <= console.width:
        return table
    lines: list[RenderableType] = []
    if table.title:
        lines.append(_text(table.title).copy())
        lines[-1].stylize("italic")  # type: ignore[union-attr]
    headers = [_text(column.header) for column in table.columns]
    columns = [list(column.cells) for column in table.columns]
    for row in zip(*columns):
        line = Text.assemble(_text(row[0]), ": ")
        for index, (header, cell) in enumerate(zip(headers[1:], row[1:])):
            line.append(" · " if index else "")
            line.append_text(header)
            line.append(" ")
            line.append_text(_text(cell))
        lines.append(line)
    if table.caption:
        lines.append(_text(table.caption))
    return Group(*lines)


def clip_lines(text: str, limit: int) -> str:
    lines = text.splitlines()
    if len(lines) <= limit:
        return text
    return "\n".join([*lines[:limit], f"... {len(lines) - limit} more lines (see the JSON result)"])


def _rate(passed: int, total: int) -> str:
    return f"{passed / total:.0%}" if total else "-"


def result_table(result: ExecutionResult) -> Table:
    from runners.model.results import GROUP_ORDER

    table = Table(title=f"{result.problem_name} · {result.checkpoint_name}", title_justify="left")
    _column(table, "Group")
    _column(table, "Passed", justify="right")
    _column(table, "Total", justify="right")
    _column(table, "Rate", justify="right")
    for group in GROUP_ORDER:
        total = result.total_counts.get(group, 0)
        if not total:
            continue
        passed = result.pass_counts.get(group, 0)
        style = "green" if passed == total else ("red" if passed == 0 else "yellow")
        table.add_row(group.value, Text(str(passed), style=style), str(total), _rate(passed, total))
    all_passed, all_total = sum(result.pass_counts.values()), sum(result.total_counts.values())
    table.add_section()
    table.add_row(
        "All", str(all_passed), str(all_total), _rate(all_passed, all_total), style="bold"
    )
    return table


def failures_table(result: ExecutionResult) -> Table | None:
    failing = result.failing_tests
    if not failing:
        return None
    table = Table(title=f"Not passed ({len(failing)})", title_justify="left", show_lines=False)
    _column(table, "Test", fold=True)
    _column(table, "Group")
    _column(table, "Status")
    _column(table, "Message", fold=True)
    for test in failing[:MAX_FAILURES_SHOWN]:
        style = {"failed": "red", "error": "magenta", "skipped": "yellow"}.get(test.status, "")
        status = (
            test.status
            if not test.raw_status or test.raw_status == test.status
            else f"{test.status} ({test.raw_status})"
        )
        # Text(), not str: ids like `test_x[json]` must not be read as rich markup.
        message = Text(test.first_message_line[:300])
        if (
            test.case_details
        ):  # a case-based problem's case: why, and what was wrong attribute by attribute
            message.append("\n" + clip_lines(test.case_details, DIFF_LINES_SHOWN), style="dim")
        table.add_row(Text(test.id), test.group_type.value, Text(status, style=style), message)
    if len(failing) > MAX_FAILURES_SHOWN:
        table.caption = f"... and {len(failing) - MAX_FAILURES_SHOWN} more (see the JSON result)"
    return table


def render_result(console: Console, result: ExecutionResult, policy: PassPolicy) -> None:
    if result.infrastructure_failure:
        # The reason's first line is the harness's verdict; the lines after it are the tool's
        # own output that explains it (runners.engine.excerpt).
        head, _, cause = (result.infrastructure_reason or "unknown").partition("\n")
        body = Group(Text(head, style="bold"), Text(cause)) if cause else Text(head, style="bold")
        console.print(Panel(body, title="Infrastructure failure", border_style="red"))
    if result.problem_error:
        # Not the submission's grade: the problem's own files failed to load (runners.engine.blame).
        console.print(
            Panel(
                Text(result.problem_error_reason or "unknown"),
                title="Problem error: the problem's own files failed to load; no grade",
                border_style="yellow",
            )
        )
    else:
        console.print(fit(console, result_table(result)))
    failures = failures_table(result)
    if failures is not None:
        console.print(fit(console, failures))
    for error in result.errors:
        console.print(Text(f"note: {error.splitlines()[0] if error else ''}", style="yellow"))
    if result.flags:
        console.print(Text(f"flags: {', '.join(result.flags)}", style="bold yellow"))
    if result.quality is not None:  # the code's figures, never part of the verdict below
        from runners.quality.text import line

        console.print(Text(line(result.quality), style="cyan"))
    met = policy.check(result)
    verdict = Text("MET" if met else "NOT MET", style="bold green" if met else "bold red")
    if result.problem_error and not met:
        verdict = Text("NO GRADE (problem error)", style="bold yellow")
    console.print(
        Text.assemble(
            f"policy {policy.value}: ",
            verdict,
            f"   sandbox {result.sandbox} · "
            + (f"Python {result.python} · " if result.python else "")
            + (f"Node {result.node} · " if result.node else "")
            + f"{result.duration:.2f} s",
        )
    )
    if result.artifacts_dir:
        console.print(Text(f"artifacts: {result.artifacts_dir}", style="dim"))


def evaluation_table(problem: str, scores: Sequence[CheckpointScore], policy: PassPolicy) -> Table:
    from runners.model.results import GROUP_ORDER
    from runners.quality.text import COLUMNS as QUALITY_COLUMNS
    from runners.quality.text import cells as quality_cells

    table = Table(title=f"{problem} · per checkpoint", title_justify="left")
    _column(table, "Checkpoint")
    for group in GROUP_ORDER:
        _column(table, group.value, justify="right")
    _column(table, "Strict", justify="center")
    _column(table, "Isolated", justify="center")
    _column(table, "Core", justify="center")
    _column(table, f"Policy ({policy.value})", justify="center")
    quality = any(score.result.quality for score in scores)
    for header, _ in QUALITY_COLUMNS if quality else ():
        _column(table, header, justify="right")
    for score in scores:
        result = score.result
        cells: list[Text | str] = [score.checkpoint]
        for group in GROUP_ORDER:
            total = result.total_counts.get(group, 0)
            cells.append(f"{result.pass_counts.get(group, 0)}/{total}" if total else "-")
        if result.infrastructure_failure:
            cells += [Text("infra", style="magenta")] * 3
        elif result.problem_error:
            cells += [Text("problem", style="yellow")] * 3
        else:
            cells += [_mark(score.strict), _mark(score.isolated), _mark(score.core)]
        cells.append(_mark(policy.check(result)))
        cells += quality_cells(result.quality) if quality else []
        table.add_row(*cells)
    return table


def evaluation_summary(scores: Sequence[CheckpointScore]) -> Group:
    n = len(scores)
    strict = sum(s.strict for s in scores)
    isolated = sum(s.isolated for s in scores)
    core = sum(s.core for s in scores)
    solved = n > 0 and strict == n
    return Group(
        Text(
            f"checkpoints solved: strict {strict}/{n} · isolated {isolated}/{n} · core {core}/{n}"
            f"   problem {'SOLVED' if solved else 'not solved'}",
            style="bold green" if solved else "bold",
        )
    )


def _mark(ok: bool) -> Text:
    return Text("✔", style="green") if ok else Text("✘", style="red")
