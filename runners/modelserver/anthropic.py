"""The Anthropic Messages API (`POST /v1/messages`, streamed or not;
`/v1/messages/count_tokens`)."""

from __future__ import annotations

import json
from typing import Any

from runners.modelserver.exchange import Exchange, as_dict, as_list, chat_exchange, sse, text_of
from runners.modelserver.translate import Reply
from runners.modelserver.usage import Usage

ID_PREFIX = "toolu"


def parse(body: dict[str, Any]) -> Exchange:
    messages = [as_dict(m) for m in as_list(body.get("messages"))]
    tools = {
        str(t["name"]): as_dict(t.get("input_schema"))
        for t in map(as_dict, as_list(body.get("tools")))
        if "name" in t
    }
    ids = [
        str(block.get("id"))
        for m in messages
        if m.get("role") == "assistant"
        for block in map(as_dict, as_list(m.get("content")))
        if block.get("type") == "tool_use"
    ]
    return chat_exchange(
        body,
        messages,
        tools,
        ids,
        {"system": body.get("system"), "tools": body.get("tools")},
        text_of(body.get("system")),
    )


def content(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    blocks += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls
    ]
    return blocks


def _usage(usage: Usage) -> dict[str, int]:
    return {
        "input_tokens": usage.fresh_input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": usage.output,
    }


def render(reply: Reply, usage: Usage, exchange: Exchange, number: int) -> tuple[str, bytes]:
    blocks = content(reply)
    stop = "end_turn" if reply.final else "tool_use"
    message = {
        "id": f"msg_runners_{number}",
        "type": "message",
        "role": "assistant",
        "model": exchange.model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(usage),
    }
    if not exchange.stream:
        return "application/json", json.dumps(message).encode()
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**_usage(usage), "output_tokens": 1},
    }
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(blocks):
        opened: dict[str, Any]
        delta: dict[str, Any]
        if block["type"] == "text":
            opened, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": _usage(usage),
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "text/event-stream", sse(events)
