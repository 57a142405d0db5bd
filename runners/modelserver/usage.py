"""The tokens the server serves: counted the same way for every API, reported in each response,
and added up for the harness.

A token is four characters (rounded up) of the request's or the answer's JSON: not a real
tokenizer, but the same numbers whichever CLI asks, so what a CLI reports can be checked against
what it was served. The request's stable prefix (its system prompt and tool definitions) is
reported as written to the prompt cache by the first request of a conversation and as read from
it by every later one, so the CLIs' cache fields are exercised too.
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any

from pydantic import BaseModel

CHARS_PER_TOKEN = 4


def tokens(value: Any) -> int:
    """The tokens of a text, or of a JSON value's compact text."""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    )
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class Usage(BaseModel):
    """One answer's tokens; `input` includes the cached part (`cache_read` + `cache_write`)."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0

    @property
    def fresh_input(self) -> int:
        """The input not read from or written to the cache (Anthropic's `input_tokens`)."""
        return self.input - self.cache_read - self.cache_write

    @classmethod
    def of(cls, request: Any, prefix: Any, answer: Any, first: bool) -> Usage:
        total, stable = tokens(request), min(tokens(prefix), tokens(request))
        return cls(
            input=total,
            cache_write=stable if first else 0,
            cache_read=0 if first else stable,
            output=tokens(answer),
        )


class Served(BaseModel):
    """What the server served since it started (GET /_runners/usage)."""

    requests: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    side_requests: int = 0
    errors: list[str] = []

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class Tally:
    """Thread-safe totals of a running server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._served = Served()

    def add(self, usage: Usage, side: bool = False) -> None:
        with self._lock:
            served = self._served
            served.requests += 1
            served.side_requests += int(side)
            served.input_tokens += usage.input
            served.cache_read_tokens += usage.cache_read
            served.cache_write_tokens += usage.cache_write
            served.output_tokens += usage.output

    def error(self, message: str) -> None:
        with self._lock:
            self._served.errors.append(message)

    def snapshot(self) -> Served:
        with self._lock:
            return self._served.model_copy(deep=True)
