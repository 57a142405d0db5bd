"""The proxy's token count for every model API it reads, streamed or not: real HTTP through the
harness's proxy (its route listener on this machine's loopback) to a server on loopback that
answers as each API does."""

from __future__ import annotations

import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from runners.egress.policy import NetworkPolicy
from runners.egress.proxy import EgressProxy


def sse(events: list[dict[str, Any]], named: bool = False) -> bytes:
    out = b""
    for event in events:
        if named:
            out += f"event: {event.get('type')}\n".encode()
        out += f"data: {json.dumps(event)}\n\n".encode()
    return out + b"data: [DONE]\n\n"


# (name, content type, body, expected (prompt, completion, cached))
ANSWERS = [
    (
        "openai-chat",
        "application/json",
        json.dumps(
            {
                "choices": [{"message": {"content": "hi"}}],
                "usage": {
                    "prompt_tokens": 50,
                    "completion_tokens": 7,
                    "total_tokens": 57,
                    "prompt_tokens_details": {"cached_tokens": 20},
                },
            }
        ).encode(),
        (50, 7, 20),
    ),
    (
        "openai-chat-stream",
        "text/event-stream",
        sse(
            [
                {"choices": [{"delta": {"content": "h"}}], "usage": None},
                {"choices": [{"delta": {"content": "i"}}], "usage": None},
                {
                    "choices": [],
                    "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49},
                },
            ]
        ),
        (40, 9, 0),
    ),
    (
        "openai-responses",
        "application/json",
        json.dumps(
            {
                "output": [],
                "usage": {
                    "input_tokens": 31,
                    "output_tokens": 12,
                    "total_tokens": 43,
                    "input_tokens_details": {"cached_tokens": 3},
                    "output_tokens_details": {"reasoning_tokens": 5},
                },
            }
        ).encode(),
        (31, 12, 3),
    ),
    (
        "openai-responses-stream",
        "text/event-stream",
        sse(
            [
                {"type": "response.created", "response": {"usage": None}},
                {"type": "response.output_text.delta", "delta": "hi"},
                {
                    "type": "response.completed",
                    "response": {
                        "usage": {"input_tokens": 22, "output_tokens": 4, "total_tokens": 26}
                    },
                },
            ],
            named=True,
        ),
        (22, 4, 0),
    ),
    (
        "gemini",
        "application/json",
        json.dumps(
            {
                "candidates": [],
                "usageMetadata": {
                    "promptTokenCount": 70,
                    "candidatesTokenCount": 10,
                    "thoughtsTokenCount": 6,
                    "cachedContentTokenCount": 8,
                    "totalTokenCount": 86,
                },
            }
        ).encode(),
        (70, 16, 8),
    ),
    (
        "gemini-sse",
        "text/event-stream",
        sse(
            [
                {
                    "candidates": [],
                    "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 2},
                },
                {
                    "candidates": [],
                    "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 11},
                },
            ]
        ),
        (60, 11, 0),
    ),
    (
        "gemini-array",
        "application/json",
        json.dumps(
            [
                {"usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1}},
                {"usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3}},
            ]
        ).encode(),
        (5, 3, 0),
    ),
    (
        "anthropic-stream-cumulative-input",
        "text/event-stream",
        sse(
            [
                {
                    "type": "message_start",
                    "message": {
                        "usage": {
                            "input_tokens": 10,
                            "cache_read_input_tokens": 90,
                            "output_tokens": 1,
                        }
                    },
                },
                {"type": "message_delta", "usage": {"output_tokens": 25}},
            ],
            named=True,
        ),
        (100, 25, 90),
    ),
    ("no-usage", "application/json", b'{"error": {"message": "overloaded"}}', None),
]


class Replay(BaseHTTPRequestHandler):
    answers: ClassVar[dict[str, tuple[str, bytes]]] = {
        name: (kind, body) for name, kind, body, _ in ANSWERS
    }

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        kind, body = self.answers[self.path.strip("/")]
        self.send_response(200)
        self.send_header("content-type", kind)
        if kind == "text/event-stream":  # streamed in pieces, chunked, lines split across chunks
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for start in range(0, len(body), 7):
                piece = body[start : start + 7]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def upstream():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "name, expected", [(a[0], a[3]) for a in ANSWERS], ids=[a[0] for a in ANSWERS]
)
def test_the_proxy_counts_what_each_api_served(upstream, name, expected):
    proxy = EgressProxy(NetworkPolicy(routes={"MODEL_URL": f"http://127.0.0.1:{upstream}"}))
    proxy.attach(None)
    try:
        request = urllib.request.Request(
            proxy.env()["MODEL_URL"] + f"/{name}",
            data=b"{}",
            headers={"content-type": "application/json"},
        )
        served = urllib.request.urlopen(request, timeout=10).read()
    finally:
        record = proxy.close()
    assert served == Replay.answers[name][1]  # passed through unchanged, streamed or not
    if expected is None:
        assert record.routed.requests == 0 and record.unmetered == 1
        return
    prompt, completion, cached = expected
    assert (
        record.routed.requests,
        record.routed.prompt_tokens,
        record.routed.completion_tokens,
        record.routed.cached_tokens,
    ) == (1, prompt, completion, cached)
