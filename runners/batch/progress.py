"""Live progress of a batch: one bar per agent (and one for all) with counts, and one line per
finished cell printed above the bars."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from runners.batch.cells import Cell
from runners.policy import PassPolicy
from runners.results import ExecutionResult

STATES = ("met", "not met", "infra", "problem", "running", "kept")
_STYLES = {"met": "green", "not met": "red", "infra": "magenta", "problem": "yellow", "running": "cyan",
           "kept": "dim"}


def _counts_text(counts: Counter[str]) -> str:
    parts = [f"[{_STYLES[s]}]{s} {counts[s]}[/]" for s in STATES if counts[s]]
    return " · ".join(parts)


class BatchProgress:
    """Use as a context manager around the executor's run."""

    def __init__(self, console: Console, cells: Sequence[Cell], kept: Sequence[Cell],
                 policy: PassPolicy, agent_failures: Mapping[str, str] | None = None) -> None:
        self.console = console
        self.policy = policy
        self.agent_failures = agent_failures or {}
        self.progress = Progress(
            TextColumn("[bold]{task.description}", justify="left"),
            BarColumn(bar_width=30),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            refresh_per_second=4,
        )
        self.counts: dict[str, Counter[str]] = {}
        self.tasks: dict[str, TaskID] = {}
        agents = list(dict.fromkeys(c.agent for c in cells))
        width = max([len(a) for a in agents] + [len("all")])
        for agent in [*agents, "all"]:
            mine = [c for c in cells if agent == "all" or c.agent == agent]
            done = [c for c in kept if agent == "all" or c.agent == agent]
            self.counts[agent] = Counter({"kept": len(done)})
            self.tasks[agent] = self.progress.add_task(agent.ljust(width), total=len(mine),
                                                       completed=len(done),
                                                       counts=_counts_text(self.counts[agent]))

    def __enter__(self) -> BatchProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def _bump(self, cell: Cell, state: str, delta: int, advance: int = 0) -> None:
        for agent in (cell.agent, "all"):
            self.counts[agent][state] += delta
            self.progress.update(self.tasks[agent], advance=advance,
                                 counts=_counts_text(self.counts[agent]))

    def started(self, cell: Cell) -> None:
        self._bump(cell, "running", 1)

    def finished(self, cell: Cell, result: ExecutionResult, seconds: float, crashed: bool) -> None:
        self._bump(cell, "running", -1)
        if result.infrastructure_failure:
            state = "infra"
        elif result.problem_error:
            state = "problem"
        else:
            state = "met" if self.policy.check(result) and cell.id not in self.agent_failures else "not met"
        self._bump(cell, state, 1, advance=1)
        mark = {"met": Text("✔", style="green"), "not met": Text("✘", style="red"),
                "infra": Text("!", style="magenta"), "problem": Text("?", style="yellow")}[state]
        detail = result.summary if not crashed else f"CRASHED: {result.infrastructure_reason}"
        if cell.id in self.agent_failures:
            detail += f" (agent step failed: {self.agent_failures[cell.id]})"
        line = Text.assemble(mark, " ", (cell.id, "bold"), f"  {detail.splitlines()[0][:200]}",
                             (f"  {seconds:.1f} s", "dim"))
        self.progress.console.print(line)

    def cancelled(self, cell: Cell) -> None:
        self._bump(cell, "running", -1)
