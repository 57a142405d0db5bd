"""What a report page is made of: one `ReportRow` per graded checkpoint (of one agent, one problem,
one repeat), whatever the source (a batch directory, a Promptfoo eval), and the aggregates the
page shows. Repeats (the same agent, problem and checkpoint graded several times) are kept apart
by `repeat` and summarised as a mean with its spread and pass@k.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from math import comb
from statistics import mean

from pydantic import BaseModel, ConfigDict, Field

from runners.quality.model import CodeMetrics

GROUPS = ("Core", "Functionality", "Error", "Regression")


class ReportRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str = Field(
        description="the agent as the page shows it (Promptfoo: the provider's label)"
    )
    problem: str
    checkpoint: str
    repeat: int = 0
    anchor: str = Field(
        description="the id of the row's line on the page (runners.outputs.report.links.row_anchor)"
    )
    status: str = Field(
        "graded", description="graded | infrastructure | error (the row has no result)"
    )
    passed: bool = False
    pass_rate: float | None = Field(
        None, description="tests passed / tests, every group; None: no result"
    )
    groups: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="group -> (passed, total)"
    )
    agent_failure: str | None = None
    reason: str | None = Field(
        None, description="an infrastructure failure's or an error row's reason"
    )
    cost_usd: float | None = None
    tokens: int | None = None
    seconds: float | None = None
    quality: CodeMetrics | None = None
    quality_growth: dict[str, float] = Field(default_factory=dict)
    link: str | None = Field(None, description="where the row's whole result is (a file)")

    @property
    def order(self) -> tuple[int, str]:
        return checkpoint_order(self.checkpoint)

    def group_rate(self, group: str) -> float | None:
        passed, total = self.groups.get(group, (0, 0))
        return passed / total if total else None


class ReportData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    source: str = Field(description="what the rows were read from")
    eval_id: str | None = Field(None, description="the Promptfoo eval the rows come from")
    policy: str | None = None
    rows: list[ReportRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    agent_order: list[str] = Field(
        default_factory=list, description="the agents' order (the source's)"
    )

    @property
    def agents(self) -> list[str]:
        found = list(dict.fromkeys(row.agent for row in self.rows))
        return [a for a in self.agent_order if a in found] + [
            a for a in found if a not in self.agent_order
        ]

    @property
    def problems(self) -> list[str]:
        return sorted({row.problem for row in self.rows})

    @property
    def repeats(self) -> int:
        """The most repeats of one agent on one checkpoint (1: no repeats)."""
        counts: dict[tuple[str, str, str], int] = {}
        for row in self.rows:
            key = (row.agent, row.problem, row.checkpoint)
            counts[key] = counts.get(key, 0) + 1
        return max(counts.values(), default=1)

    def checkpoints(self, problem: str | None = None) -> list[str]:
        names = {row.checkpoint for row in self.rows if problem is None or row.problem == problem}
        return sorted(names, key=checkpoint_order)

    def select(
        self, agent: str | None = None, problem: str | None = None, checkpoint: str | None = None
    ) -> list[ReportRow]:
        return [
            row
            for row in self.rows
            if (agent is None or row.agent == agent)
            and (problem is None or row.problem == problem)
            and (checkpoint is None or row.checkpoint == checkpoint)
        ]

    @property
    def has_usage(self) -> bool:
        return any(row.cost_usd is not None or row.tokens is not None for row in self.rows)

    @property
    def has_quality(self) -> bool:
        return any(row.quality is not None for row in self.rows)


def checkpoint_order(name: str) -> tuple[int, str]:
    """checkpoint_2 before checkpoint_10; names without a number after those with one."""
    found = re.search(r"(\d+)\s*$", name)
    return (int(found.group(1)) if found else 1 << 30, name)


# ---- aggregates ----------------------------------------------------------------------------------


class Cell(BaseModel):
    """One agent on one problem (the matrix), or on one checkpoint: every repeat pooled."""

    rows: int
    checkpoints: int
    mean_rate: float | None
    spread: float | None = Field(
        None, description="max - min of the repeats' mean rates (None: one repeat)"
    )
    passed: int = Field(
        description="checkpoints passed (policy): with repeats, by at least one of them"
    )
    pass_at_k: float | None = Field(
        None, description="the unbiased pass@k estimate over checkpoints (repeats)"
    )
    errors: int = 0


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k samples out of n, c of them correct, is correct."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def summarise(rows: Iterable[ReportRow], k: int) -> Cell:
    rows = list(rows)
    by_checkpoint: dict[tuple[str, str], list[ReportRow]] = {}
    for row in rows:
        by_checkpoint.setdefault((row.problem, row.checkpoint), []).append(row)
    rates = [row.pass_rate or 0.0 for row in rows if row.status != "error"]
    per_repeat: dict[int, list[float]] = {}
    for row in rows:
        if row.status != "error":
            per_repeat.setdefault(row.repeat, []).append(row.pass_rate or 0.0)
    repeat_means = [mean(values) for values in per_repeat.values()]
    passed = sum(any(r.passed for r in group) for group in by_checkpoint.values())
    estimate = None
    if k > 1 and by_checkpoint:
        estimate = mean(
            pass_at_k(len(group), sum(r.passed for r in group), min(k, len(group)))
            for group in by_checkpoint.values()
        )
    return Cell(
        rows=len(rows),
        checkpoints=len(by_checkpoint),
        mean_rate=mean(rates) if rates else None,
        spread=max(repeat_means) - min(repeat_means) if len(repeat_means) > 1 else None,
        passed=passed,
        pass_at_k=estimate,
        errors=sum(row.status == "error" for row in rows),
    )


def pooled_group_rate(rows: Iterable[ReportRow], group: str) -> float | None:
    """Tests passed / tests of `group` over `rows` (None: no test of the group)."""
    passed = total = 0
    for row in rows:
        p, t = row.groups.get(group, (0, 0))
        passed, total = passed + p, total + t
    return passed / total if total else None
