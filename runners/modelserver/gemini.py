"""Gemini's API (`POST /v1beta/models/<model>:generateContent`, `:streamGenerateContent`,
`:countTokens`)."""

from __future__ import annotations

import json
from typing import Any

from runners.modelserver.exchange import Exchange, as_dict, as_list
from runners.modelserver.translate import Reply
from runners.modelserver.usage import Usage

ID_PREFIX = "gemini"


def parse(body: dict[str, Any], model: str, stream: bool) -> Exchange:
    contents = [as_dict(c) for c in as_list(body.get("contents"))]
    tools: dict[str, dict[str, Any]] = {}
    for tool in map(as_dict, as_list(body.get("tools"))):
        for declaration in map(
            as_dict, as_list(tool.get("functionDeclarations") or tool.get("function_declarations"))
        ):
            if "name" in declaration:
                schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
                tools[str(declaration["name"])] = as_dict(schema)
    parts = [(c.get("role"), as_dict(p)) for c in contents for p in as_list(c.get("parts"))]
    ids = [
        str(as_dict(p.get("functionCall")).get("id"))
        for role, p in parts
        if role == "model" and "functionCall" in p
    ]
    ids += [
        str(as_dict(p.get("functionResponse")).get("id"))
        for role, p in parts
        if "functionResponse" in p
    ]
    texts = [str(p["text"]) for _, p in parts if isinstance(p.get("text"), str)]
    system = as_dict(body.get("systemInstruction") or body.get("system_instruction"))
    texts += [
        str(p.get("text")) for p in map(as_dict, as_list(system.get("parts"))) if p.get("text")
    ]
    return Exchange(
        model=model,
        stream=stream,
        tools=tools,
        call_ids=ids,
        assistant_turns=sum(c.get("role") == "model" for c in contents),
        prefix={"system": system, "tools": body.get("tools")},
        body=body,
        texts=texts,
        assistant_texts=[
            "".join(str(p.get("text") or "") for p in map(as_dict, as_list(c.get("parts"))))
            for c in contents
            if c.get("role") == "model"
        ],
    )


def _usage(usage: Usage) -> dict[str, int]:
    return {
        "promptTokenCount": usage.input,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.input + usage.output,
        "cachedContentTokenCount": usage.cache_read,
    }


def render(
    reply: Reply, usage: Usage, exchange: Exchange, number: int, sse: bool
) -> tuple[str, bytes]:
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    parts += [
        {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}} for c in reply.calls
    ]
    answer = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": _usage(usage),
        "modelVersion": exchange.model,
        "responseId": f"runners-{number}",
    }
    if not exchange.stream:
        return "application/json", json.dumps(answer).encode()
    if sse:
        return "text/event-stream", f"data: {json.dumps(answer)}\n\n".encode()
    return "application/json", json.dumps([answer]).encode()
