"""Live progress of a batch: one bar per agent (and one for all) with counts, the cells running
with their stage, and one line per finished cell (on stdout, above the display).

The bars and the running cells are said on stderr (runners.util.progress): live on a terminal, one
line per stage in a pipe or a file; stdout keeps the finished cells' lines and the tables.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from typing import Self

from rich.console import Console, RenderableType
from rich.progress_bar import ProgressBar
from rich.text import Text

from runners.batch.cells import Cell
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult
from runners.outputs.render import make_console
from runners.util.progress import Reporter, Subject, above, for_cli

STATES = ("met", "not met", "infra", "problem", "running", "kept")
_STYLES = {
    "met": "green",
    "not met": "red",
    "infra": "magenta",
    "problem": "yellow",
    "running": "cyan",
    "kept": "dim",
}


def _counts_text(counts: Counter[str]) -> Text:
    return Text(" · ").join(Text(f"{s} {counts[s]}", style=_STYLES[s]) for s in STATES if counts[s])


class BatchProgress:
    """Use as a context manager around the executor's run. `show` False: nothing on stderr."""

    def __init__(
        self,
        console: Console,
        cells: Sequence[Cell],
        kept: Sequence[Cell],
        policy: PassPolicy,
        agent_failures: Mapping[str, str] | None = None,
        show: bool = True,
    ) -> None:
        self.console = console
        self.policy = policy
        self.agent_failures = agent_failures or {}
        self.show = show
        self.agents = [*dict.fromkeys(c.agent for c in cells), "all"]
        self.totals = {a: sum(1 for c in cells if a == "all" or c.agent == a) for a in self.agents}
        self.counts: dict[str, Counter[str]] = {
            a: Counter({"kept": sum(1 for c in kept if a == "all" or c.agent == a)})
            for a in self.agents
        }
        self.keys: dict[str, int] = {}
        self._next_key = itertools.count(1)
        self.reporter: Reporter | None = None
        self._stack = ExitStack()

    def __enter__(self) -> Self:
        self.reporter = self._stack.enter_context(
            for_cli(lambda: make_console(stderr=True), self.show, header=self._bars)
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _bars(self) -> list[list[RenderableType]]:
        width = max(len(a) for a in self.agents)
        rows: list[list[RenderableType]] = []
        for agent in self.agents:
            counts, total = self.counts[agent], self.totals[agent]
            done = sum(counts[s] for s in ("met", "not met", "infra", "kept"))
            rows.append(
                [
                    Text(agent.ljust(width), style="bold"),
                    ProgressBar(total=total, completed=done, width=30),
                    Text(f"{done}/{total}"),
                    _counts_text(counts),
                ]
            )
        return rows

    def _bump(self, cell: Cell, state: str, delta: int) -> None:
        for agent in (cell.agent, "all"):
            self.counts[agent][state] += delta

    def started(self, cell: Cell) -> None:
        self._bump(cell, "running", 1)
        if self.reporter is not None:
            self.keys[cell.id] = key = next(self._next_key)  # never reused: cells end in any order
            self.reporter.begin(key, Subject(cell.problem, cell.checkpoint, cell.agent))

    def staged(self, cell: Cell, stage: str) -> None:
        """A running cell reached `stage` (sent by its worker)."""
        if self.reporter is not None and cell.id in self.keys:
            self.reporter.stage(self.keys[cell.id], stage)

    def _stop(self, cell: Cell) -> None:
        self._bump(cell, "running", -1)
        key = self.keys.pop(cell.id, None)
        if self.reporter is not None and key is not None:
            self.reporter.end(key, None)  # the cell's line (below) says how it ended

    def finished(self, cell: Cell, result: ExecutionResult, seconds: float, crashed: bool) -> None:
        self._stop(cell)
        if result.infrastructure_failure:
            state = "infra"
        elif result.problem_error:
            state = "problem"
        else:
            state = (
                "met"
                if self.policy.check(result) and cell.id not in self.agent_failures
                else "not met"
            )
        self._bump(cell, state, 1)
        mark = {
            "met": Text("✔", style="green"),
            "not met": Text("✘", style="red"),
            "infra": Text("!", style="magenta"),
            "problem": Text("?", style="yellow"),
        }[state]
        detail = result.summary if not crashed else f"CRASHED: {result.infrastructure_reason}"
        if cell.id in self.agent_failures:
            detail += f" (agent step failed: {self.agent_failures[cell.id]})"
        line = Text.assemble(
            mark,
            " ",
            (cell.id, "bold"),
            f"  {detail.splitlines()[0][:200]}",
            (f"  {seconds:.1f} s", "dim"),
        )
        above(self.reporter, line, self.console)

    def cancelled(self, cell: Cell) -> None:
        self._stop(cell)
