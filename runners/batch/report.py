"""The agents x problems matrix of a batch: solve rates (strict, isolated, core, SCBench
definitions), the pass policy, and the pass rate per group; as rich tables and as Markdown.

Solve rates are over the problem's checkpoints: a checkpoint the agent has no submission for, or
that did not run (an interrupted batch), counts as not solved and is listed in the notes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rich import box
from rich.table import Table
from rich.text import Text

from runners.batch.cells import Cell
from runners.model.config import ProblemConfig
from runners.model.metrics import CheckpointScore
from runners.model.policy import PassPolicy
from runners.model.results import GROUP_ORDER, ExecutionResult, GroupType


@dataclass
class Entry:
    """One agent on one problem."""

    agent: str
    problem: str
    checkpoints: int  # the problem's checkpoints
    scores: list[CheckpointScore] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # no submission directory
    not_run: list[str] = field(default_factory=list)  # found but without a result
    agent_failed: list[str] = field(default_factory=list)  # its agent step failed (batch --agents)
    policy_met: int = 0
    passed: dict[GroupType, int] = field(default_factory=dict)
    total: dict[GroupType, int] = field(default_factory=dict)

    @property
    def ran(self) -> int:
        return len(self.scores)

    @property
    def strict(self) -> int:
        return sum(s.strict for s in self.scores)

    @property
    def isolated(self) -> int:
        return sum(s.isolated for s in self.scores)

    @property
    def core(self) -> int:
        return sum(s.core for s in self.scores)

    @property
    def infra(self) -> int:
        return sum(s.result.infrastructure_failure for s in self.scores)

    @property
    def problem_errors(self) -> int:
        return sum(s.result.problem_error for s in self.scores)

    def rate(self, solved: int) -> float | None:
        return solved / self.checkpoints if self.checkpoints else None

    def group_rate(self, group: GroupType | None) -> tuple[int, int]:
        if group is None:
            return sum(self.passed.values()), sum(self.total.values())
        return self.passed.get(group, 0), self.total.get(group, 0)


@dataclass
class Matrix:
    agents: list[str]
    problems: list[str]
    entries: dict[tuple[str, str], Entry]
    policy: PassPolicy

    def entry(self, agent: str, problem: str) -> Entry | None:
        return self.entries.get((agent, problem))

    def agent_total(self, agent: str) -> Entry:
        """Every problem of one agent pooled (checkpoints add up)."""
        total = Entry(agent=agent, problem="*", checkpoints=0)
        for problem in self.problems:
            entry = self.entries.get((agent, problem))
            if entry is None:
                continue
            total.checkpoints += entry.checkpoints
            total.scores += entry.scores
            total.missing += [f"{problem}/{c}" for c in entry.missing]
            total.not_run += [f"{problem}/{c}" for c in entry.not_run]
            total.agent_failed += [f"{problem}/{c}" for c in entry.agent_failed]
            total.policy_met += entry.policy_met
            for group in GROUP_ORDER:
                total.passed[group] = total.passed.get(group, 0) + entry.passed.get(group, 0)
                total.total[group] = total.total.get(group, 0) + entry.total.get(group, 0)
        return total

    @property
    def infra(self) -> int:
        return sum(e.infra for e in self.entries.values())

    @property
    def problem_errors(self) -> int:
        return sum(e.problem_errors for e in self.entries.values())


def build_matrix(
    cells: Sequence[Cell],
    results: Mapping[str, ExecutionResult],
    problems: Mapping[str, ProblemConfig],
    policy: PassPolicy,
    missing: Mapping[tuple[str, str], list[str]] | None = None,
    agent_failures: Mapping[str, str] | None = None,
) -> Matrix:
    """`results` maps cell id -> result for the cells that have one; `agent_failures` cell id ->
    why its agent step failed (such a checkpoint is not solved, its pass rates still count)."""
    agents: list[str] = []
    names: list[str] = []
    entries: dict[tuple[str, str], Entry] = {}
    for cell in sorted(cells, key=Cell.sort_key):
        if cell.agent not in agents:
            agents.append(cell.agent)
        if cell.problem not in names:
            names.append(cell.problem)
        key = (cell.agent, cell.problem)
        entry = entries.get(key)
        if entry is None:
            config = problems.get(cell.problem)
            entry = entries[key] = Entry(
                agent=cell.agent,
                problem=cell.problem,
                checkpoints=len(config.checkpoints) if config else 0,
                missing=list((missing or {}).get(key, [])),
            )
        result = results.get(cell.id)
        if result is None:
            entry.not_run.append(cell.checkpoint)
            continue
        failed = cell.id in (agent_failures or {})
        if failed:
            entry.agent_failed.append(cell.checkpoint)
        entry.scores.append(CheckpointScore(cell.checkpoint, result, agent_failed=failed))
        entry.policy_met += policy.check(result) and not failed
        for group in GROUP_ORDER:
            if group in result.total_counts:
                entry.total[group] = entry.total.get(group, 0) + result.total_counts[group]
                entry.passed[group] = entry.passed.get(group, 0) + result.pass_counts.get(group, 0)
    names.sort()
    return Matrix(agents=agents, problems=names, entries=entries, policy=policy)


# ---- formatting ---------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _ratio(passed: int, total: int) -> str:
    return f"{passed}/{total} ({passed / total:.0%})" if total else "-"


def _style(value: float | None) -> str:
    if value is None:
        return "dim"
    return "green" if value >= 1.0 else ("red" if value == 0 else "yellow")


def _solve_text(entry: Entry) -> str:
    return " · ".join(_pct(entry.rate(n)) for n in (entry.strict, entry.isolated, entry.core))


def _notes(entry: Entry) -> list[str]:
    notes = []
    if entry.infra:
        notes.append(f"{entry.infra} infra")
    if entry.problem_errors:
        notes.append(f"{entry.problem_errors} problem error(s): no grade")
    if entry.missing:
        notes.append(f"missing {', '.join(entry.missing)}")
    if entry.not_run:
        notes.append(f"{len(entry.not_run)} not run")
    if entry.agent_failed:
        notes.append(f"agent step failed at {', '.join(entry.agent_failed)}")
    return notes


def matrix_table(matrix: Matrix) -> Table:
    """Agents (rows) x problems (columns): strict · isolated · core solve rates."""
    table = Table(
        title="Solve rates: strict · isolated · core (share of each problem's checkpoints)",
        title_justify="left",
    )
    table.add_column("Agent", style="bold")
    for problem in matrix.problems:
        table.add_column(problem, justify="center")
    table.add_column("All problems", justify="center", style="bold")
    for agent in matrix.agents:
        row: list[Text | str] = [agent]
        for column in [*matrix.problems, None]:
            entry = matrix.agent_total(agent) if column is None else matrix.entry(agent, column)
            if entry is None:
                row.append(Text("-", style="dim"))
                continue
            text = Text(_solve_text(entry), style=_style(entry.rate(entry.strict)))
            if entry.infra:
                text.append(f" ({entry.infra} infra)", style="magenta")
            if entry.problem_errors:
                text.append(f" ({entry.problem_errors} problem error)", style="yellow")
            row.append(text)
        table.add_row(*row)
    return table


def detail_table(matrix: Matrix) -> Table:
    """One row per agent and problem: checkpoints solved (strict, isolated, core, policy) out of
    the problem's checkpoints, then the share of tests passed per group."""
    table = Table(
        title=f"Checkpoints solved, and % of tests passed per group (policy {matrix.policy.value})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        collapse_padding=True,
        pad_edge=False,
    )
    table.add_column("Agent", no_wrap=True, style="bold")
    table.add_column("Problem", no_wrap=True)
    for name in ("Strict", "Isol.", "Core", "Policy"):
        table.add_column(name, justify="right", no_wrap=True)
    for name in ("Core %", "Func %", "Error %", "Regr %", "All %"):
        table.add_column(name, justify="right", no_wrap=True)
    entries = [e for a in matrix.agents for p in matrix.problems if (e := matrix.entry(a, p))]
    for entry in entries:
        n = entry.checkpoints
        row: list[Text | str] = [entry.agent, entry.problem]
        for solved in (entry.strict, entry.isolated, entry.core, entry.policy_met):
            row.append(Text(f"{solved}/{n}", style=_style(solved / n if n else None)))
        for group in [*GROUP_ORDER, None]:
            passed, total = entry.group_rate(group)
            rate = passed / total if total else None
            row.append(Text(_pct(rate), style=_style(rate)))
        table.add_row(*row)
    return table


def entry_notes(matrix: Matrix) -> list[str]:
    """`agent/problem: infra, problem-error, missing, not-run and agent-failed checkpoints`, for the
    rows that have any."""
    return [
        f"{entry.agent}/{entry.problem}: {'; '.join(notes)}"
        for agent in matrix.agents
        for problem in matrix.problems
        if (entry := matrix.entry(agent, problem)) and (notes := _notes(entry))
    ]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def matrix_markdown(
    matrix: Matrix,
    *,
    title: str = "Batch results",
    meta: Mapping[str, object] | None = None,
    notes: Sequence[str] = (),
) -> str:
    lines = [f"# {title}", ""]
    for key, value in (meta or {}).items():
        lines.append(f"- **{key}**: {_md_escape(str(value))}")
    if meta:
        lines.append("")
    lines += [
        "## Solve rates",
        "",
        (
            "Strict · isolated · core: the share of each problem's checkpoints solved (strict: "
            "every test passed; isolated: every non-Regression test; core: every Core test). A "
            "checkpoint without a submission, not run, failed by the infrastructure or whose "
            "problem failed to load (a problem error: no grade) counts as not solved."
        ),
        "",
    ]
    header = ["Agent", *matrix.problems, "All problems"]
    lines.append("| " + " | ".join(map(_md_escape, header)) + " |")
    lines.append("|" + "---|" + ":---:|" * (len(header) - 1))
    for agent in matrix.agents:
        cells = [agent]
        for problem in [*matrix.problems, None]:
            entry = matrix.agent_total(agent) if problem is None else matrix.entry(agent, problem)
            if entry is None:
                cells.append("-")
                continue
            text = _solve_text(entry)
            if entry.infra:
                text += f" ({entry.infra} infra)"
            if entry.problem_errors:
                text += f" ({entry.problem_errors} problem error)"
            cells.append(f"**{text}**" if problem is None else text)
        lines.append("| " + " | ".join(map(_md_escape, cells)) + " |")
    lines += ["", f"## Per agent and problem (policy `{matrix.policy.value}`)", ""]
    header = [
        "Agent",
        "Problem",
        "Ran",
        "Strict",
        "Isolated",
        "Core solved",
        "Policy",
        *(g.value for g in GROUP_ORDER),
        "All tests",
        "Notes",
    ]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|---|---|" + "---:|" * (len(header) - 3) + "---|")
    for agent in matrix.agents:
        for problem in matrix.problems:
            entry = matrix.entry(agent, problem)
            if entry is None:
                continue
            n = entry.checkpoints
            cells = [
                agent,
                problem,
                f"{entry.ran}/{n}",
                *(f"{v}/{n}" for v in (entry.strict, entry.isolated, entry.core, entry.policy_met)),
                *(_ratio(*entry.group_rate(g)) for g in [*GROUP_ORDER, None]),
                "; ".join(_notes(entry)),
            ]
            lines.append("| " + " | ".join(map(_md_escape, cells)) + " |")
    if notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {_md_escape(note)}" for note in notes]
    return "\n".join(lines) + "\n"
