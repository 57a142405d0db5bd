"""The whole run's default wall clock, derived from the problem's own per-test timeout.

SCBench has no whole-run limit: pytest-timeout bounds every test. A fixed default (900 s) cut
off a reference solution whose 300 tests took 898.5 s. Without a `wall_timeout` from the user or
the problem, a checkpoint with a per-test `timeout` gets room for every test to use all of it:

    wall = 900 s (start-up, collection, fixtures) + timeout x the tests its files define

The tests are counted without importing anything (`runners.frameworks.pytest_count` for pytest);
a runner that cannot count keeps 900 s. An explicit `wall_timeout` always wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runners.model.limits import DEFAULT_LIMITS, ResourceLimits

if TYPE_CHECKING:
    from runners.model.config import CheckpointConfig, ProblemConfig
    from runners.model.environment import EnvironmentSpec

BASE_SECONDS = DEFAULT_LIMITS.wall_timeout or 900.0


def default_wall(per_test: float | None, tests: int | None) -> float:
    """900 s, plus the per-test timeout for every test when both are known."""
    if not per_test or not tests:
        return BASE_SECONDS
    return BASE_SECONDS + per_test * tests


def run_limits(
    environment: EnvironmentSpec,
    problem: ProblemConfig,
    checkpoint: CheckpointConfig,
    tests: int | None,
) -> ResourceLimits:
    """The test step's limits: the defaults, the problem's, the user's; the default wall clock
    from `default_wall` unless one of them set `wall_timeout`."""
    limits = environment.limits_for(problem.limits)
    explicit = environment.limits.wall_timeout or (
        problem.limits.wall_timeout if problem.limits else None
    )
    if explicit:
        return limits
    return limits.model_copy(update={"wall_timeout": default_wall(checkpoint.timeout, tests)})
