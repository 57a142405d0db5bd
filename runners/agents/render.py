"""Tables of agent steps: `runners solve` (step and grade per checkpoint) and `runners batch
--agents` (every agent's steps)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from runners.agents.layout import StepRecord
from runners.agents.solve import SolvedCheckpoint
from runners.agents.spec import AgentSpec
from runners.model.policy import PassPolicy
from runners.model.results import GROUP_ORDER
from runners.outputs.render import _column
from runners.quality.text import COLUMNS as QUALITY_COLUMNS
from runners.quality.text import cells as quality_cells

SAID_CHARS = 120


def unset_notes(spec: AgentSpec) -> list[Text]:
    """Said before the agent runs: a `pass_env` name not set here (the agent's own error, such as
    "invalid API key", would otherwise be the only sign)."""
    return [
        Text(
            f"note: agent {spec.name!r}: {name} is not set here, so the agent will not see it",
            style="yellow",
        )
        for name in spec.pass_env
        if name not in os.environ
    ]


def step_status(step: StepRecord) -> Text:
    if step.infrastructure:
        return Text("infra", style="magenta")
    if step.budget_stop is not None:
        return Text("budget", style="red")
    if step.timed_out:
        return Text("timed out", style="red")
    if step.exit_code is None:
        return Text("not started", style="red")
    return Text(f"exit {step.exit_code}", style="red" if step.failed else "green")


def usage_cells(step: StepRecord) -> list[Text | str]:
    """Tokens (the proxy's count when it carried the model traffic; `!` when the agent's own figures
    differ from it) and cost; `refused` (the step's notes say why) where a figure the agent gave
    could not be true, `-` where there is none."""
    report, proxied = step.report, bool(step.egress and step.egress.routed.requests)
    tokens: Text | str = (
        f"{step.tokens:,}{' !' if step.token_mismatch else ''}" if step.tokens is not None else "-"
    )
    cost: Text | str = "-" if report.cost_usd is None else f"${report.cost_usd:.4f}"
    if report.cost_estimated and report.cost_usd is not None:
        cost = f"~{cost}"
    if report.refused_tokens() and not proxied:
        tokens = Text("refused", style="yellow")
    if "cost_usd" in report.refused:
        cost = Text("refused", style="yellow")
    return [tokens, cost]


def said(step: StepRecord) -> Text:
    text = step.failure if step.failed else step.excerpt
    text = text or ""
    return Text(
        text if len(text) <= SAID_CHARS else text[: SAID_CHARS - 1] + "…",
        style="red" if step.failed else "",
    )


def solve_table(
    agent: str, problem: str, solved: Sequence[SolvedCheckpoint], policy: PassPolicy
) -> Table:
    table = Table(title=f"{agent} on {problem} · per checkpoint", title_justify="left")
    repeats = len({done.step.agent for done in solved}) > 1
    if repeats:
        _column(table, "Repeat", justify="right")
    _column(table, "Checkpoint")
    _column(table, "Agent")
    _column(table, "Time", justify="right")
    _column(table, "Tokens", justify="right")
    _column(table, "Cost", justify="right")
    for group in GROUP_ORDER:
        _column(table, group.value, justify="right")
    _column(table, f"Policy ({policy.value})", justify="center")
    quality = any(done.result.quality for done in solved)
    for header, _ in QUALITY_COLUMNS if quality else ():
        _column(table, header, justify="right")
    _column(table, "Said", fold=True)
    for done in solved:
        step, result = done.step, done.result
        cells: list[Text | str] = [
            step.checkpoint,
            step_status(step),
            f"{step.duration:.1f} s",
            *usage_cells(step),
        ]
        if repeats:
            cells.insert(0, str(step.repeat))
        for group in GROUP_ORDER:
            total = result.total_counts.get(group, 0)
            cells.append(f"{result.pass_counts.get(group, 0)}/{total}" if total else "-")
        if result.infrastructure_failure:
            cells.append(Text("infra", style="magenta"))
        elif result.problem_error:
            cells.append(Text("problem error", style="yellow"))
        else:
            met = done.passed(policy)
            cells.append(Text("✔", style="green") if met else Text("✘", style="red"))
        cells += quality_cells(result.quality) if quality else []
        cells.append(said(step))
        table.add_row(*cells)
    return _estimated_caption(table, [d.step for d in solved])


def steps_table(records: Sequence[StepRecord]) -> Table:
    table = Table(title="agent steps", title_justify="left")
    for header in ("Agent", "Problem", "Checkpoint", "Status"):
        _column(table, header)
    _column(table, "Time", justify="right")
    _column(table, "Tokens", justify="right")
    _column(table, "Cost", justify="right")
    _column(table, "Said", fold=True)
    for step in records:
        table.add_row(
            step.agent,
            step.problem,
            step.checkpoint,
            step_status(step),
            f"{step.duration:.1f} s",
            *usage_cells(step),
            said(step),
        )
    return _estimated_caption(table, records)


def _estimated_caption(table: Table, steps: Sequence[StepRecord]) -> Table:
    if any(step.report.cost_estimated for step in steps):
        table.caption = (
            "~$: estimated from the tokens and the price table (runners/agents/prices.yaml)"
        )
        table.caption_justify = "left"
    return table
