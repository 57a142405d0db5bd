"""The exit codes of every command (`run`, `evaluate`, `batch`, `solve`), in one place.

| code | meaning |
| --- | --- |
| 0 | the pass policy is met (`batch`: every cell has a grade, whatever it is) |
| 1 | a grade, and the pass policy is not met |
| 2 | bad input: a config file, a path, an option, or an agent that could not be started |
| 3 | infrastructure failure: the tests could not be run, or their report cannot be trusted |
| 4 | problem error: the problem's own files (its tests, conftest, helpers, data) failed to load |
| 130 | interrupted (`batch`: finished cells are kept) |

Where several runs make one command's answer, the first that applies of 2, 4, 3, 1 wins: the
ones a person must fix before any grade means something come first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runners.model.policy import PassPolicy
    from runners.model.results import ExecutionResult

MET, NOT_MET, BAD_INPUT, INFRA, PROBLEM, INTERRUPTED = 0, 1, 2, 3, 4, 130


def for_results(
    results: Iterable[ExecutionResult], policy: PassPolicy, met: bool | None = None
) -> int:
    """The exit code of a command that produced `results` under `policy`; `met`: whether the
    policy is met overall (default: by every result). Policy `any` passes everything."""
    from runners.model.policy import PassPolicy

    results = list(results)
    if policy is not PassPolicy.ANY:
        if any(r.problem_error for r in results):
            return PROBLEM
        if any(r.infrastructure_failure for r in results):
            return INFRA
    if met is None:
        met = all(policy.check(r) for r in results)
    return MET if met else NOT_MET
