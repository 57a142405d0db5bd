"""Whether a checkpoint counts as solved (SCBench definitions).

A checkpoint is solved "strict" when every test passed (Regression included), "isolated" when
every non-Regression test passed, "core" when every Core test passed. An infrastructure failure
solves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from runners.results import ExecutionResult


@dataclass(frozen=True)
class CheckpointScore:
    checkpoint: str
    result: ExecutionResult

    @property
    def strict(self) -> bool:
        return _full(self.result.pass_rate if self.result.tests else None, self.result)

    @property
    def isolated(self) -> bool:
        return _full(self.result.checkpoint_pass_rate, self.result)

    @property
    def core(self) -> bool:
        return _full(self.result.core_pass_rate, self.result)


def _full(rate: float | None, result: ExecutionResult) -> bool:
    return not result.infrastructure_failure and rate is not None and rate == 1.0

