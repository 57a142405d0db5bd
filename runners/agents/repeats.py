"""Repeats of an agent (`repeat: N`): N independent runs of each problem, and what they add up to.

Repeat k of agent `alpha` runs as `alpha@r<k>` (when N > 1): its own snapshots, steps and grades
(`submissions/alpha@r2/<problem>/<checkpoint>/`), so every repeat's work is kept and a batch
grades them like any agents. Per agent, problem and checkpoint the repeats give:

- **pass@k** for k = 1..N, the unbiased estimator of Chen et al. (2021): with c of the n repeats
  passing, pass@k = 1 - C(n-c, k) / C(n, k), the chance that at least one of k repeats drawn
  without replacement passes;
- the **mean and spread** (sample standard deviation) over the repeats of each group's pass rate
  (Core, Functionality, Error, Regression) and of all tests.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field
from rich.table import Table

from runners.model.results import GROUP_ORDER, ExecutionResult
from runners.outputs.render import _column

_LABEL = re.compile(r"^(?P<agent>.+)@r(?P<repeat>\d+)$")


def repeat_label(agent: str, repeat: int, repeats: int) -> str:
    """The directory and column name of repeat `repeat` (from 1) of `repeats`."""
    return agent if repeats <= 1 else f"{agent}@r{repeat}"


def split_label(label: str) -> tuple[str, int]:
    """(agent, repeat) of a label; a label without `@r<k>` is repeat 1 of itself."""
    found = _LABEL.match(label)
    return (found["agent"], int(found["repeat"])) if found else (label, 1)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator for c passing samples out of n (k <= n)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class Spread(BaseModel):
    mean: float | None = None
    std: float | None = Field(None, description="sample standard deviation (None with one value)")

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            return cls()
        return cls(
            mean=statistics.fmean(values), std=statistics.stdev(values) if len(values) > 1 else None
        )

    def text(self, percent: bool = True) -> str:
        if self.mean is None:
            return "-"
        scale, unit = (100.0, "%") if percent else (1.0, "")
        spread = f" ± {self.std * scale:.1f}" if self.std is not None else ""
        return f"{self.mean * scale:.1f}{spread}{unit}"


class RepeatStats(BaseModel):
    """The repeats of one agent on one checkpoint."""

    agent: str
    problem: str
    checkpoint: str
    order: int = 0
    n: int
    passed: int = Field(
        description="repeats that met the pass policy (a failed agent step never does)"
    )
    pass_at: dict[int, float] = Field(description="k -> pass@k, for k = 1..n")
    groups: dict[str, Spread] = Field(
        description="group -> mean and spread of its pass rate over the repeats"
    )
    tests: Spread = Field(description="all tests' pass rate over the repeats")


def repeat_stats(
    agent: str,
    problem: str,
    checkpoint: str,
    outcomes: Iterable[tuple[ExecutionResult, bool]],
    order: int = 0,
) -> RepeatStats:
    """The statistics of `outcomes`: each repeat's result and whether it met the policy."""
    runs = list(outcomes)
    n, c = len(runs), sum(passed for _, passed in runs)
    groups = {}
    for group in GROUP_ORDER:
        rates = [
            r.pass_counts.get(group, 0) / r.total_counts[group]
            for r, _ in runs
            if r.total_counts.get(group)
        ]
        if rates:
            groups[group.value] = Spread.of(rates)
    rates = [sum(t.passed for t in r.tests) / len(r.tests) for r, _ in runs if r.tests]
    return RepeatStats(
        agent=agent,
        problem=problem,
        checkpoint=checkpoint,
        order=order,
        n=n,
        passed=c,
        pass_at={k: pass_at_k(n, c, k) for k in range(1, n + 1)},
        groups=groups,
        tests=Spread.of(rates),
    )


def group_repeats(
    rows: Iterable[tuple[str, str, str, int, ExecutionResult, bool]],
) -> list[RepeatStats]:
    """RepeatStats per (agent, problem, checkpoint) of rows (label, problem, checkpoint, order,
    result, passed) whose labels are repeats (`agent@r<k>`; a plain `agent` beside its `agent@r<k>`
    is its repeat 1, as Promptfoo's first repetition is); agents without repeats are left out."""
    rows = list(rows)
    repeated = {split_label(label)[0] for label, *_ in rows if _LABEL.match(label)}
    found: dict[tuple[str, str, str], list[tuple[ExecutionResult, bool]]] = {}
    orders: dict[tuple[str, str, str], int] = {}
    for label, problem, checkpoint, order, result, passed in rows:
        if split_label(label)[0] not in repeated:
            continue
        agent, _ = split_label(label)
        found.setdefault((agent, problem, checkpoint), []).append((result, passed))
        orders[(agent, problem, checkpoint)] = order
    return [
        repeat_stats(*key, runs, order=orders[key])
        for key, runs in sorted(
            found.items(), key=lambda item: (item[0][0], item[0][1], orders[item[0]])
        )
    ]


def repeats_table(stats: Sequence[RepeatStats]) -> Table:
    """Per agent, problem and checkpoint: how many repeats passed, pass@k, and each group's mean
    pass rate ± its spread over the repeats."""
    table = Table(
        title="repeats · pass@k (unbiased) and mean ± spread over the repeats", title_justify="left"
    )
    for header in ("Agent", "Problem", "Checkpoint"):
        _column(table, header)
    _column(table, "Passed", justify="right")
    ks = sorted({k for s in stats for k in s.pass_at})
    for k in ks:
        _column(table, f"pass@{k}", justify="right")
    groups = [g.value for g in GROUP_ORDER if any(g.value in s.groups for s in stats)]
    for group in groups:
        _column(table, group, justify="right")
    _column(table, "All tests", justify="right")
    for s in stats:
        table.add_row(
            s.agent,
            s.problem,
            s.checkpoint,
            f"{s.passed}/{s.n}",
            *[f"{s.pass_at[k]:.2f}" if k in s.pass_at else "-" for k in ks],
            *[s.groups[g].text() if g in s.groups else "-" for g in groups],
            s.tests.text(),
        )
    return table


def repeats_markdown(stats: Sequence[RepeatStats]) -> str:
    """The same as a Markdown section (summary.md)."""
    if not stats:
        return ""
    ks = sorted({k for s in stats for k in s.pass_at})
    groups = [g.value for g in GROUP_ORDER if any(g.value in s.groups for s in stats)]
    head = [
        "agent",
        "problem",
        "checkpoint",
        "passed",
        *[f"pass@{k}" for k in ks],
        *groups,
        "all tests",
    ]
    lines = [
        "## Repeats",
        "",
        (
            "pass@k (unbiased estimator) over the repeats, and each group's pass rate as "
            "mean ± sample standard deviation over the repeats."
        ),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for s in stats:
        cells = [
            s.agent,
            s.problem,
            s.checkpoint,
            f"{s.passed}/{s.n}",
            *[f"{s.pass_at[k]:.2f}" if k in s.pass_at else "-" for k in ks],
            *[s.groups[g].text() if g in s.groups else "-" for g in groups],
            s.tests.text(),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def repeat_rows(stats: Sequence[RepeatStats]) -> list[dict[str, object]]:
    """One flat row per agent, problem and checkpoint (repeats.jsonl / repeats.parquet)."""
    rows = []
    for s in stats:
        row: dict[str, object] = {
            "agent": s.agent,
            "problem": s.problem,
            "checkpoint": s.checkpoint,
            "checkpoint_order": s.order,
            "repeats": s.n,
            "passed": s.passed,
            "pass_at": [s.pass_at[k] for k in sorted(s.pass_at)],
            "pass_at_1": s.pass_at.get(1),
            "pass_at_n": s.pass_at.get(s.n),
        }
        for group in GROUP_ORDER:
            spread = s.groups.get(group.value, Spread())
            key = group.value.lower()
            row[f"{key}_mean"], row[f"{key}_std"] = spread.mean, spread.std
        row["tests_mean"], row["tests_std"] = s.tests.mean, s.tests.std
        rows.append(row)
    return rows
