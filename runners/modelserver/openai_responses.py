"""The OpenAI Responses API (`POST /v1/responses`, streamed or not): what Codex CLI speaks."""

from __future__ import annotations

import json
import time
from typing import Any

from runners.modelserver.exchange import Exchange, as_dict, as_list, sse, text_of
from runners.modelserver.translate import Reply
from runners.modelserver.usage import Usage

ID_PREFIX = "call"


def parse(body: dict[str, Any]) -> Exchange:
    items = (
        [as_dict(i) for i in as_list(body.get("input"))]
        if isinstance(body.get("input"), list)
        else []
    )
    if isinstance(body.get("input"), str):
        items = [{"type": "message", "role": "user", "content": body["input"]}]
    tools = {}
    for tool in map(as_dict, as_list(body.get("tools"))):
        if tool.get("type") == "function" and "name" in tool:
            tools[str(tool["name"])] = as_dict(tool.get("parameters"))
    ids = [str(i.get("call_id")) for i in items if i.get("type") == "function_call"]
    # An assistant turn: a message of its own, or a run of function calls.
    assistant = sum(
        (i.get("type") == "message" and i.get("role") == "assistant")
        or (
            i.get("type") == "function_call"
            and (n == 0 or items[n - 1].get("type") != "function_call")
        )
        for n, i in enumerate(items)
    )
    texts = [t for i in items for t in text_of(i.get("content"))]
    if isinstance(body.get("instructions"), str):
        texts.append(body["instructions"])
    return Exchange(
        model=str(body.get("model") or "scripted"),
        stream=bool(body.get("stream")),
        tools=tools,
        call_ids=ids,
        assistant_turns=assistant,
        prefix={"instructions": body.get("instructions"), "tools": body.get("tools")},
        body=body,
        texts=texts,
        assistant_texts=[
            "".join(text_of(i.get("content")))
            for i in items
            if i.get("type") == "message" and i.get("role") == "assistant"
        ],
    )


def _items(reply: Reply, number: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "id": f"msg_runners_{number}",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    items += [
        {
            "id": f"fc_runners_{number}_{n}",
            "type": "function_call",
            "status": "completed",
            "call_id": c.id,
            "name": c.name,
            "arguments": json.dumps(c.arguments),
        }
        for n, c in enumerate(reply.calls)
    ]
    return items


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input,
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input + usage.output,
    }


def render(reply: Reply, usage: Usage, exchange: Exchange, number: int) -> tuple[str, bytes]:
    items = _items(reply, number)
    response = {
        "id": f"resp_runners_{number}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": exchange.model,
        "output": items,
        "usage": _usage(usage),
    }
    if not exchange.stream:
        return "application/json", json.dumps(response).encode()
    events: list[tuple[str | None, dict[str, Any]]] = []

    def event(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    event(
        "response.created",
        response={**response, "status": "in_progress", "output": [], "usage": None},
    )
    for index, item in enumerate(items):
        if item["type"] == "message":
            event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = item["content"][0]
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            event("response.content_part.added", **where, part={**part, "text": ""})
            event("response.output_text.delta", **where, delta=part["text"])
            event("response.output_text.done", **where, text=part["text"])
            event("response.content_part.done", **where, part=part)
        else:
            event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            event(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=item["arguments"],
            )
            event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                arguments=item["arguments"],
            )
        event("response.output_item.done", output_index=index, item=item)
    event("response.completed", response=response)
    return "text/event-stream", sse(events)
