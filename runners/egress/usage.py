"""Tokens a model API served, read from its responses' `usage` fields, streamed or not.

| API | whole response | stream (server-sent events) |
| --- | --- | --- |
| Anthropic Messages | `usage` | `message_start.message.usage`, then `message_delta.usage` (running totals) |
| OpenAI Chat Completions | `usage` | the chunk that carries `usage` (`stream_options.include_usage`) |
| OpenAI Responses | `usage` | `response.completed`'s `response.usage` |
| Gemini | `usageMetadata` | the last chunk's `usageMetadata` (running totals; SSE or a JSON array) |

Prompt tokens include the prompt cache (Anthropic's cache writes and reads are added to
`input_tokens`, which excludes them; OpenAI's and Gemini's counts already include them), as
`runners.agents.report` counts what the CLIs say, so the two can be compared.
"""  # noqa: E501

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

MAX_JSON_BYTES = 16 * 1024 * 1024


class Usage(BaseModel):
    """Tokens of one or more model responses."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_tokens += other.cached_tokens
        self.cache_write_tokens += other.cache_write_tokens


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def from_object(body: dict[str, Any]) -> Usage | None:
    """The usage of one whole (non-streamed) response object; None when it carries none."""
    if isinstance(body.get("usageMetadata"), dict):
        return _gemini(body["usageMetadata"])
    usage = body.get("usage")
    if not isinstance(usage, dict):
        response = _dict(body.get("response"))  # a Responses API event that wraps its response
        usage = response.get("usage")
        if not isinstance(usage, dict):
            return None
    if "prompt_tokens" in usage or "completion_tokens" in usage:  # Chat Completions
        cached = _int(_dict(usage.get("prompt_tokens_details")).get("cached_tokens"))
        return Usage(
            requests=1,
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
            cached_tokens=cached,
        )
    if (
        "input_tokens_details" in usage
        or "output_tokens_details" in usage
        or "total_tokens" in usage
    ):
        cached = _int(_dict(usage.get("input_tokens_details")).get("cached_tokens"))  # Responses
        return Usage(
            requests=1,
            prompt_tokens=_int(usage.get("input_tokens")),
            completion_tokens=_int(usage.get("output_tokens")),
            cached_tokens=cached,
        )
    return _anthropic(usage)


def _anthropic(usage: dict[str, Any]) -> Usage:
    write = _int(usage.get("cache_creation_input_tokens"))
    read = _int(usage.get("cache_read_input_tokens"))
    return Usage(
        requests=1,
        prompt_tokens=_int(usage.get("input_tokens")) + write + read,
        completion_tokens=_int(usage.get("output_tokens")),
        cached_tokens=read,
        cache_write_tokens=write,
    )


def _gemini(meta: dict[str, Any]) -> Usage:
    return Usage(
        requests=1,
        prompt_tokens=_int(meta.get("promptTokenCount")),
        completion_tokens=_int(meta.get("candidatesTokenCount"))
        + _int(meta.get("thoughtsTokenCount")),
        cached_tokens=_int(meta.get("cachedContentTokenCount")),
    )


class StreamMeter:
    """Reads one response body as it passes (chunks of any size) and says its usage at the end.

    Server-sent events are parsed line by line (only the events that carry usage are kept);
    any other body is kept up to MAX_JSON_BYTES and parsed as JSON at the end.
    """

    def __init__(self, content_type: str) -> None:
        self.events = "text/event-stream" in content_type.lower()
        self.pending = bytearray()
        self.too_large = False
        self.anthropic: dict[str, Any] = {}
        self.last: Usage | None = None

    def feed(self, chunk: bytes) -> None:
        if not self.events:
            if len(self.pending) + len(chunk) > MAX_JSON_BYTES:
                self.too_large = True
                self.pending.clear()
            elif not self.too_large:
                self.pending += chunk
            return
        self.pending += chunk
        while (end := self.pending.find(b"\n")) >= 0:
            line = bytes(self.pending[:end]).rstrip(b"\r")
            del self.pending[: end + 1]
            if line.startswith(b"data:"):
                self._event(line[5:].strip())

    def _event(self, data: bytes) -> None:
        try:
            event = json.loads(data)
        except ValueError:
            return  # `[DONE]`, keep-alives
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        if kind == "message_start":  # Anthropic: input counts first, output grows in message_delta
            self.anthropic = dict(_dict(_dict(event.get("message")).get("usage")))
        elif kind == "message_delta" and isinstance(event.get("usage"), dict):
            self.anthropic.update({k: v for k, v in event["usage"].items() if v is not None})
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.last = from_object(_dict(event.get("response"))) or self.last
        elif kind is None:
            self.last = from_object(event) or self.last  # Chat Completions chunks, Gemini chunks

    def usage(self) -> Usage | None:
        """The response's usage, None when it said none (or could not be read)."""
        if self.events:
            if self.pending.startswith(b"data:"):
                self._event(bytes(self.pending[5:]).strip())
                self.pending.clear()
            if self.anthropic:
                return _anthropic(self.anthropic)
            return self.last
        if self.too_large or not self.pending:
            return None
        try:
            body = json.loads(bytes(self.pending))
        except ValueError:
            return None
        if isinstance(body, list):  # Gemini's streamGenerateContent without alt=sse: running totals
            found = [from_object(item) for item in body if isinstance(item, dict)]
            return next((u for u in reversed(found) if u is not None), None)
        return from_object(body) if isinstance(body, dict) else None
