"""Servers on this machine's loopback for the egress tests: a stand-in for a model API, and a
"secret" service the agent must never reach. Nothing here sends traffic anywhere else."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Each answer's usage, per API: what the stand-in serves and what the harness must count.
ANTHROPIC_USAGE = {
    "input_tokens": 120,
    "output_tokens": 30,
    "cache_creation_input_tokens": 5,
    "cache_read_input_tokens": 7,
}


def anthropic_events(text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {**ANTHROPIC_USAGE, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": ANTHROPIC_USAGE["output_tokens"]},
        },
        {"type": "message_stop"},
    ]


class _ModelHandler(BaseHTTPRequestHandler):
    server: ModelServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.seen.append(
            {
                "path": self.path,
                "host": self.headers.get("host"),
                "body": body,
                "accept-encoding": self.headers.get("accept-encoding"),
            }
        )
        if body.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for event in anthropic_events("streamed hello"):
                data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            return
        answer = json.dumps(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
                "usage": ANTHROPIC_USAGE,
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self) -> None:
        answer = self.server.banner.encode()
        self.send_response(200)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


class ModelServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, banner: str) -> None:
        super().__init__((host, 0), _ModelHandler)
        self.seen: list[dict[str, Any]] = []
        self.banner = banner

    @property
    def port(self) -> int:
        return int(self.server_address[1])


@contextmanager
def serving(host: str = "127.0.0.1", banner: str = "model") -> Iterator[ModelServer]:
    """A server on `host` (this machine's own address) with a free port, stopped afterwards."""
    server = ModelServer(host, banner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
