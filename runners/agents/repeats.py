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

from runners.results import GROUP_ORDER, ExecutionResult

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
        return cls(mean=statistics.fmean(values), std=statistics.stdev(values) if len(values) > 1 else None)

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
    passed: int = Field(description="repeats that met the pass policy (a failed agent step never does)")
    pass_at: dict[int, float] = Field(description="k -> pass@k, for k = 1..n")
    groups: dict[str, Spread] = Field(description="group -> mean and spread of its pass rate over the repeats")
    tests: Spread = Field(description="all tests' pass rate over the repeats")


def repeat_stats(agent: str, problem: str, checkpoint: str, outcomes: Iterable[tuple[ExecutionResult, bool]],
                 order: int = 0) -> RepeatStats:
    """The statistics of `outcomes`: each repeat's result and whether it met the policy."""
    runs = list(outcomes)
    n, c = len(runs), sum(passed for _, passed in runs)
    groups = {}
    for group in GROUP_ORDER:
        rates = [r.pass_counts.get(group, 0) / r.total_counts[group] for r, _ in runs if r.total_counts.get(group)]
        if rates:
            groups[group.value] = Spread.of(rates)
    rates = [sum(t.passed for t in r.tests) / len(r.tests) for r, _ in runs if r.tests]
    return RepeatStats(agent=agent, problem=problem, checkpoint=checkpoint, order=order, n=n, passed=c,
                       pass_at={k: pass_at_k(n, c, k) for k in range(1, n + 1)}, groups=groups,
                       tests=Spread.of(rates))


def group_repeats(rows: Iterable[tuple[str, str, str, int, ExecutionResult, bool]]) -> list[RepeatStats]:
    """RepeatStats per (agent, problem, checkpoint) of rows (label, problem, checkpoint, order,
    result, passed) whose labels are repeats (`agent@r<k>`); plain agents are left out."""
    found: dict[tuple[str, str, str], list[tuple[ExecutionResult, bool]]] = {}
    orders: dict[tuple[str, str, str], int] = {}
    for label, problem, checkpoint, order, result, passed in rows:
        if _LABEL.match(label) is None:
            continue
        agent, _ = split_label(label)
        found.setdefault((agent, problem, checkpoint), []).append((result, passed))
        orders[(agent, problem, checkpoint)] = order
    return [repeat_stats(*key, runs, order=orders[key])
            for key, runs in sorted(found.items(), key=lambda item: (item[0][0], item[0][1], orders[item[0]]))]
