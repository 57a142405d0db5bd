"""Whether a checkpoint counts as solved (SCBench definitions).

A checkpoint is solved "strict" when every test passed (Regression included), "isolated" when
every non-Regression test passed, "core" when every Core test passed. An infrastructure failure
solves nothing, nor does the snapshot of an agent step that failed (runners.agents: it timed out,
exited non-zero or reported an error), whatever its tests say; nor does a problem error (the
problem's own files failed to load).
"""

from __future__ import annotations

from dataclasses import dataclass

from runners.model.results import ExecutionResult


@dataclass(frozen=True)
class CheckpointScore:
    checkpoint: str
    result: ExecutionResult
    agent_failed: bool = False

    @property
    def strict(self) -> bool:
        return self._full(self.result.pass_rate if self.result.tests else None)

    @property
    def isolated(self) -> bool:
        return self._full(self.result.checkpoint_pass_rate)

    @property
    def core(self) -> bool:
        return self._full(self.result.core_pass_rate)

    def _full(self, rate: float | None) -> bool:
        return not self.agent_failed and self.result.graded and rate is not None and rate == 1.0
