"""Caps on what an agent may spend: tokens, cost and time, per checkpoint step and per whole run.

    budget:
      step: {tokens: 200000, cost_usd: 1.0, seconds: 600}    # each checkpoint's step
      run: {tokens: 1000000, cost_usd: 5.0, seconds: 3600}    # all the checkpoints of one problem

While a step runs, its tokens are watched as they are spent: from the harness's proxy when it
carries the model traffic (`network.routes`), else from what the CLI prints as it goes (Claude
Code's stream-json, Codex's `--json`). A cap reached stops the step (every process killed); the
work left so far is kept and graded, and the step fails with the reason. Cost, and the tokens of a
CLI that reports them only when it ends, are known after the step: over a step cap they are
noted, and they count towards the run's caps. A run cap spent before a checkpoint skips its step
(its snapshot is what the previous one left). Time caps shorten the step's clock (`timeout` still
holds).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Caps(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: int | None = Field(None, gt=0, description="prompt + completion tokens")
    cost_usd: float | None = Field(None, gt=0, description="US dollars")
    seconds: float | None = Field(None, gt=0, description="the agent's wall time")


class AgentBudget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: Caps = Field(default_factory=Caps, description="each checkpoint's step")
    run: Caps = Field(
        default_factory=Caps, description="all the checkpoints of one problem, together"
    )


@dataclass
class Spent:
    """What earlier steps of the run spent (unknown cost counts as 0)."""

    tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0


def exhausted(budget: AgentBudget | None, spent: Spent) -> str | None:
    """Why no further step of the run may start, or None."""
    if budget is None:
        return None
    run = budget.run
    if run.tokens is not None and spent.tokens >= run.tokens:
        return f"the run's token cap of {run.tokens:,} was reached ({spent.tokens:,} tokens spent)"
    if run.cost_usd is not None and spent.cost_usd >= run.cost_usd:
        return f"the run's cost cap of ${run.cost_usd:g} was reached (${spent.cost_usd:.4f} spent)"
    if run.seconds is not None and spent.seconds >= run.seconds:
        return f"the run's time cap of {run.seconds:g} s was reached ({spent.seconds:.1f} s spent)"
    return None


def step_seconds(
    budget: AgentBudget | None, spent: Spent, timeout: float
) -> tuple[float, str | None]:
    """The step's clock, and what set it when a time cap is shorter than `timeout`."""
    if budget is None:
        return timeout, None
    limits: list[tuple[float, str | None]] = [(timeout, None)]
    if budget.step.seconds is not None:
        limits.append((budget.step.seconds, f"the step's time cap of {budget.step.seconds:g} s"))
    if budget.run.seconds is not None:
        limits.append(
            (budget.run.seconds - spent.seconds, f"the run's time cap of {budget.run.seconds:g} s")
        )
    seconds, why = min(limits, key=lambda item: item[0])
    return max(seconds, 1.0), why


@dataclass
class BudgetWatch:
    """Watches one step's spending; sets `stop` (and says why) when a cap is reached."""

    budget: AgentBudget | None
    spent: Spent
    stop: threading.Event = field(default_factory=threading.Event)
    reason: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tokens(self, count: int, source: str) -> None:
        if self.budget is None:
            return
        for cap, before, whose in (
            (self.budget.step.tokens, 0, "step's"),
            (self.budget.run.tokens, self.spent.tokens, "run's"),
        ):
            if cap is not None and before + count >= cap:
                self._trip(
                    f"stopped at {count:,} tokens ({source}): the {whose} token cap of {cap:,} "
                    "was reached"
                )
                return

    def _trip(self, why: str) -> None:
        with self._lock:
            if self.reason is None:
                self.reason = why
        self.stop.set()


class StreamTally:
    """Reads an agent's stdout as it comes (JSON lines) and reports running token totals to a
    watch: Claude Code stream-json (`assistant` messages' usage, once per message id) and Codex
    `--json` (`turn.completed` usage)."""

    def __init__(self, watch: BudgetWatch, metered_by_proxy: bool) -> None:
        self.watch = watch
        self.count_tokens = not metered_by_proxy
        self.pending = bytearray()
        self.messages: dict[str, int] = {}
        self.turns = 0

    def feed(self, chunk: bytes) -> None:
        self.pending += chunk
        while (end := self.pending.find(b"\n")) >= 0:
            line = bytes(self.pending[:end]).strip()
            del self.pending[: end + 1]
            if line.startswith(b"{"):
                self._line(line)
        if len(self.pending) > 1 << 20:  # a line this long is not an event we read
            self.pending.clear()

    def _line(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        if kind == "assistant" and isinstance(event.get("message"), dict):
            message = event["message"]
            usage = _dict(message.get("usage"))
            self.messages[str(message.get("id") or len(self.messages))] = sum(
                _int(usage.get(k))
                for k in (
                    "input_tokens",
                    "output_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                )
            )
            self._tokens(sum(self.messages.values()))
        elif kind == "turn.completed":
            usage = _dict(event.get("usage"))
            self.turns += sum(
                _int(usage.get(k))
                for k in ("input_tokens", "output_tokens", "reasoning_output_tokens")
            )
            self._tokens(self.turns)
        # A `result` event is the agent's last word: nothing left to stop. Its figures (the cost
        # above all: no CLI we know reports one as it goes) count towards the run's caps.

    def _tokens(self, total: int) -> None:
        if self.count_tokens:
            self.watch.tokens(total, "as the agent reported them")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
