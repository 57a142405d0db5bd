"""The OpenAI Chat Completions API (`POST /v1/chat/completions`, streamed or not)."""

from __future__ import annotations

import json
import time
from typing import Any

from runners.modelserver.exchange import Exchange, as_dict, as_list, chat_exchange, sse
from runners.modelserver.translate import Reply
from runners.modelserver.usage import Usage

ID_PREFIX = "call"


def parse(body: dict[str, Any]) -> Exchange:
    messages = [as_dict(m) for m in as_list(body.get("messages"))]
    tools = {}
    for tool in map(as_dict, as_list(body.get("tools"))):
        function = as_dict(tool.get("function"))
        if "name" in function:
            tools[str(function["name"])] = as_dict(function.get("parameters"))
    ids = [
        str(as_dict(c).get("id"))
        for m in messages
        if m.get("role") == "assistant"
        for c in as_list(m.get("tool_calls"))
    ]
    system = [m for m in messages if m.get("role") in ("system", "developer")]
    return chat_exchange(body, messages, tools, ids, {"system": system, "tools": body.get("tools")})


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in reply.calls
        ]
    return message


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
    }


def render(reply: Reply, usage: Usage, exchange: Exchange, number: int) -> tuple[str, bytes]:
    finish = "stop" if reply.final else "tool_calls"
    head = {
        "id": f"chatcmpl-runners-{number}",
        "created": int(time.time()),
        "model": exchange.model,
    }
    if not exchange.stream:
        body = {
            **head,
            "object": "chat.completion",
            "usage": _usage(usage),
            "choices": [{"index": 0, "message": _message(reply), "finish_reason": finish}],
        }
        return "application/json", json.dumps(body).encode()
    chunk = {**head, "object": "chat.completion.chunk"}
    delta: dict[str, Any] = {"role": "assistant", "content": reply.text or ""}
    events: list[tuple[str | None, dict[str, Any]]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    ]
    for index, call in enumerate(reply.calls):
        piece = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        events.append(
            (
                None,
                {
                    **chunk,
                    "choices": [
                        {"index": 0, "delta": {"tool_calls": [piece]}, "finish_reason": None}
                    ],
                },
            )
        )
    events.append(
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    )
    events.append((None, {**chunk, "choices": [], "usage": _usage(usage)}))
    return "text/event-stream", sse(events, done=True)
