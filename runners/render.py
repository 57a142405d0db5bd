"""Readable terminal output with rich: one result, or a checkpoint-by-checkpoint evaluation."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from runners.metrics import CheckpointScore
from runners.policy import PassPolicy
from runners.results import GROUP_ORDER, ExecutionResult

MAX_FAILURES_SHOWN = 40


def _rate(passed: int, total: int) -> str:
    return f"{passed / total:.0%}" if total else "-"


def result_table(result: ExecutionResult) -> Table:
    table = Table(title=f"{result.problem_name} · {result.checkpoint_name}", title_justify="left")
    table.add_column("Group")
    table.add_column("Passed", justify="right")
    table.add_column("Total", justify="right")
    table.add_column("Rate", justify="right")
    for group in GROUP_ORDER:
        total = result.total_counts.get(group, 0)
        if not total:
            continue
        passed = result.pass_counts.get(group, 0)
        style = "green" if passed == total else ("red" if passed == 0 else "yellow")
        table.add_row(group.value, Text(str(passed), style=style), str(total), _rate(passed, total))
    all_passed, all_total = sum(result.pass_counts.values()), sum(result.total_counts.values())
    table.add_section()
    table.add_row("All", str(all_passed), str(all_total), _rate(all_passed, all_total), style="bold")
    return table


def failures_table(result: ExecutionResult) -> Table | None:
    failing = result.failing_tests
    if not failing:
        return None
    table = Table(title=f"Not passed ({len(failing)})", title_justify="left", show_lines=False)
    table.add_column("Test", overflow="fold")
    table.add_column("Group")
    table.add_column("Status")
    table.add_column("Message", overflow="fold")
    for test in failing[:MAX_FAILURES_SHOWN]:
        style = {"failed": "red", "error": "magenta", "skipped": "yellow"}.get(test.status, "")
        status = test.status if not test.raw_status or test.raw_status == test.status else f"{test.status} ({test.raw_status})"
        # Text(), not str: ids like `test_x[json]` must not be read as rich markup.
        table.add_row(Text(test.id), test.group_type.value, Text(status, style=style),
                      Text(test.first_message_line[:300]))
    if len(failing) > MAX_FAILURES_SHOWN:
        table.caption = f"... and {len(failing) - MAX_FAILURES_SHOWN} more (see the JSON result)"
    return table


def render_result(console: Console, result: ExecutionResult, policy: PassPolicy) -> None:
    if result.infrastructure_failure:
        # The reason's first line is the harness's verdict; the lines after it are the tool's
        # own output that explains it (runners.excerpt).
        head, _, cause = (result.infrastructure_reason or "unknown").partition("\n")
        body = Group(Text(head, style="bold"), Text(cause)) if cause else Text(head, style="bold")
        console.print(Panel(body, title="Infrastructure failure", border_style="red"))
    console.print(result_table(result))
    failures = failures_table(result)
    if failures is not None:
        console.print(failures)
    for error in result.errors:
        console.print(Text(f"note: {error.splitlines()[0] if error else ''}", style="yellow"))
    if result.flags:
        console.print(Text(f"flags: {', '.join(result.flags)}", style="bold yellow"))
    met = policy.check(result)
    verdict = Text("MET" if met else "NOT MET", style="bold green" if met else "bold red")
    console.print(Text.assemble(f"policy {policy.value}: ", verdict,
                                f"   sandbox {result.sandbox} · "
                                + (f"Python {result.python} · " if result.python else "")
                                + f"{result.duration:.2f} s"))
    if result.artifacts_dir:
        console.print(Text(f"artifacts: {result.artifacts_dir}", style="dim"))


def evaluation_table(problem: str, scores: Sequence[CheckpointScore], policy: PassPolicy) -> Table:
    table = Table(title=f"{problem} · per checkpoint", title_justify="left")
    table.add_column("Checkpoint")
    for group in GROUP_ORDER:
        table.add_column(group.value, justify="right")
    table.add_column("Strict", justify="center")
    table.add_column("Isolated", justify="center")
    table.add_column("Core", justify="center")
    table.add_column(f"Policy ({policy.value})", justify="center")
    for score in scores:
        result = score.result
        cells: list[Text | str] = [score.checkpoint]
        for group in GROUP_ORDER:
            total = result.total_counts.get(group, 0)
            cells.append(f"{result.pass_counts.get(group, 0)}/{total}" if total else "-")
        if result.infrastructure_failure:
            cells += [Text("infra", style="magenta")] * 3
        else:
            cells += [_mark(score.strict), _mark(score.isolated), _mark(score.core)]
        cells.append(_mark(policy.check(result)))
        table.add_row(*cells)
    return table


def evaluation_summary(scores: Sequence[CheckpointScore]) -> Group:
    n = len(scores)
    strict = sum(s.strict for s in scores)
    isolated = sum(s.isolated for s in scores)
    core = sum(s.core for s in scores)
    solved = n > 0 and strict == n
    return Group(Text(
        f"checkpoints solved: strict {strict}/{n} · isolated {isolated}/{n} · core {core}/{n}"
        f"   problem {'SOLVED' if solved else 'not solved'}",
        style="bold green" if solved else "bold",
    ))


def _mark(ok: bool) -> Text:
    return Text("✔", style="green") if ok else Text("✘", style="red")
