"""What the server reads from any API's request, and how it writes server-sent events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exchange:
    """One request, read the same way whatever API it came in."""

    model: str
    stream: bool
    tools: dict[str, dict[str, Any]]  # name -> JSON schema of its arguments
    call_ids: list[str]  # ids of the tool calls the history's assistant turns made
    assistant_turns: int  # assistant (model) turns in the history
    prefix: Any  # the stable part of the request (system prompt, tools): the prompt cache
    body: dict[str, Any]
    texts: list[str] = field(
        default_factory=list
    )  # the prompt's texts (the working directory is in one)
    assistant_texts: list[str] = field(
        default_factory=list
    )  # what the history's assistant turns said


def chat_exchange(
    body: dict[str, Any],
    messages: list[dict[str, Any]],
    tools: dict[str, dict[str, Any]],
    call_ids: list[str],
    prefix: Any,
    more_texts: list[str] | None = None,
) -> Exchange:
    """The Exchange of an API whose history is a list of role/content messages (Anthropic's,
    OpenAI's Chat Completions)."""
    assistant = [m for m in messages if m.get("role") == "assistant"]
    return Exchange(
        model=str(body.get("model") or "scripted"),
        stream=bool(body.get("stream")),
        tools=tools,
        call_ids=call_ids,
        assistant_turns=len(assistant),
        prefix=prefix,
        body=body,
        texts=[t for m in messages for t in text_of(m.get("content"))] + (more_texts or []),
        assistant_texts=["".join(text_of(m.get("content"))) for m in assistant],
    )


def sse(events: list[tuple[str | None, dict[str, Any]]], done: bool = False) -> bytes:
    """Server-sent events: `event:` lines when named, one `data:` line of JSON each."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def text_of(content: Any) -> list[str]:
    """The texts in a message's content (a string, or a list of parts with `text`)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(p["text"])
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
    return []


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
