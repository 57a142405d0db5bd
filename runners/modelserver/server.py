"""The scripted model server: the script's turns, served over each API a coding-agent CLI speaks.

    server = ModelServer(Script.load(path), checkpoint="checkpoint_1", workdir="/workspace")
    server.start(unix_socket=path)        # or start() on 127.0.0.1 and a free port
    ...                                   # base URL: server.url + "/claude-code" (see CLIENTS)
    server.stop(); server.served()        # the tokens it served

Routes (an optional first path segment names the client, e.g. `/codex/v1/responses`: it chooses
how a request without tools is answered):

| route | API |
| --- | --- |
| `POST [/v1]/messages`, `.../messages/count_tokens` | Anthropic Messages |
| `POST [/v1]/chat/completions` | OpenAI Chat Completions |
| `POST [/v1]/responses` | OpenAI Responses |
| `POST [/v1beta]/models/<m>:generateContent`, `:streamGenerateContent`, `:countTokens` | Gemini |
| `GET [/v1]/models` | a list with one model |
| `GET /_runners/usage` | the totals served (`Served`) |

Which turn a request is at comes from its history: our tool calls carry their turn in their ids
(`call_runners_<turn>_<n>`), else the assistant turns are counted. So the server keeps no
conversation state, and a retried request gets the same answer.
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from runners.modelserver import anthropic, gemini, openai_chat, openai_responses
from runners.modelserver.exchange import Exchange
from runners.modelserver.script import Say, Script, Turn
from runners.modelserver.translate import (
    MINI_SUBMIT,
    NoTool,
    Reply,
    ToolCall,
    aider_reply,
    call_id,
    mini_reply,
    run_call,
    tool_reply,
    turn_of,
)
from runners.modelserver.usage import Served, Tally, Usage, tokens

#: Clients a base URL may name; the text dialect of each (used when a request offers no tools).
CLIENTS = {
    "claude-code": "side",
    "codex": "side",
    "gemini-cli": "side",
    "aider": "aider",
    "mini-swe-agent": "mini",
    "any": "side",
}
_WORKDIR = re.compile(
    r"(?:Primary working directory:|working directory:|working in the directory:?|<cwd>)\s*"
    r"(/[^\s<`'\"]*)",
    re.IGNORECASE,
)
_GEMINI = re.compile(r"^/(?:v1beta|v1|v1alpha)?/?models/(?P<model>[^/:]+):(?P<method>\w+)$")


class ScriptedModel:
    """The answer to each request: the checkpoint's next turn, in the request's terms."""

    def __init__(
        self, script: Script, checkpoint: str | None = None, workdir: str | None = None
    ) -> None:
        self.turns = script.turns_for(checkpoint)
        self.workdir = workdir
        self.tally = Tally()
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self.log: list[dict[str, Any]] = []  # what was served, request by request

    def reply(self, exchange: Exchange, dialect: str, id_prefix: str) -> tuple[Reply, bool]:
        """The reply, and whether the request was a side request (outside the script's turns)."""
        index = turn_of(exchange.call_ids)
        if index is None:
            index = exchange.assistant_turns
        turn: Turn = self.turns[min(index, len(self.turns) - 1)]
        if exchange.tools:
            workdir = self.workdir or _workdir(exchange.texts)
            at = min(index, len(self.turns))
            reply = tool_reply(turn, at, exchange.tools, workdir, id_prefix)
            if (
                dialect == "mini" and reply.final
            ):  # mini-swe-agent ends on its submit command, not on text
                reply.calls = [
                    ToolCall(
                        call_id(at, 0, id_prefix), *run_call(f"echo {MINI_SUBMIT}", exchange.tools)
                    )
                ]
            return reply, False
        if dialect == "aider":  # the whole checkpoint in one answer; then its final words
            whole = aider_reply(self.turns)
            return (Reply(text=self._said()) if _said_before(whole, exchange) else whole), False
        if dialect == "mini":  # the turn after the last one of ours the history holds
            replies = [mini_reply(t).text for t in self.turns]
            done = [
                n
                for n, text in enumerate(replies)
                if text.strip() in map(str.strip, exchange.assistant_texts)
            ]
            return mini_reply(
                self.turns[min(max(done, default=-1) + 1, len(self.turns) - 1)]
            ), False
        return Reply(text=self._said()), True

    def _said(self) -> str:
        last = self.turns[-1]
        return last.say if isinstance(last, Say) else "Done."

    def serve(self, exchange: Exchange, dialect: str, id_prefix: str) -> tuple[Reply, Usage, int]:
        reply, side = self.reply(exchange, dialect, id_prefix)
        answer = [reply.text, *({"name": c.name, "arguments": c.arguments} for c in reply.calls)]
        first = not exchange.call_ids and exchange.assistant_turns == 0
        body = {k: v for k, v in exchange.body.items() if k not in ("stream", "stream_options")}
        usage = Usage.of(body, exchange.prefix, answer, first)
        self.tally.add(usage, side=side)
        number = next(self._numbers)
        with self._lock:
            self.log.append(
                {
                    "number": number,
                    "at": round(time.monotonic() - self._started, 3),
                    "model": exchange.model,
                    "side": side,
                    "history": {
                        "assistant_turns": exchange.assistant_turns,
                        "calls": len(exchange.call_ids),
                    },
                    "tools": len(exchange.tools),
                    "reply": {
                        "text": reply.text,
                        "calls": [
                            {"id": c.id, "name": c.name, "arguments": c.arguments}
                            for c in reply.calls
                        ],
                    },
                    "usage": usage.model_dump(),
                }
            )
        return reply, usage, number


def _said_before(reply: Reply, exchange: Exchange) -> bool:
    return reply.text.strip() in (text.strip() for text in exchange.assistant_texts)


def _workdir(texts: list[str]) -> str | None:
    for text in texts:
        found = _WORKDIR.search(text)
        if found:
            return found.group(1).rstrip(".,;:")
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def address_string(self) -> str:
        return "unix" if not isinstance(self.client_address, tuple) else str(self.client_address[0])

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, "application/json", json.dumps(value).encode())

    def _error(self, status: int, message: str) -> None:
        self.server.model.tally.error(f"{self.command} {self.path}: {message}")
        self._json(
            status,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "code": status,
                    "message": f"runners scripted model: {message}",
                },
            },
        )

    def do_HEAD(self) -> None:
        self._send(200, "text/plain", b"")

    def do_GET(self) -> None:
        _, path = _split(self.path)
        if path == "/_runners/usage":
            self._json(200, self.server.model.tally.snapshot().model_dump())
        elif path == "/_runners/log":
            self._json(200, self.server.model.log)
        elif path.rstrip("/").endswith("/models"):
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": "scripted", "object": "model", "owned_by": "runners"}],
                    "models": [{"name": "models/scripted", "slug": "scripted"}],
                },
            )
        else:
            self._send(
                200 if path == "/" else 404, "text/plain", b"runners scripted model server\n"
            )

    def do_POST(self) -> None:
        client, path = _split(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._error(400, "the request body is not JSON")
        if not isinstance(body, dict):
            return self._error(400, "the request body is not a JSON object")
        dialect = CLIENTS.get(client or "any", "side")
        model = self.server.model
        try:
            if path.endswith("/messages/count_tokens"):
                return self._json(200, {"input_tokens": tokens(body)})
            if path.endswith("/messages"):
                exchange = anthropic.parse(body)
                reply, usage, number = model.serve(exchange, dialect, anthropic.ID_PREFIX)
                return self._send(200, *anthropic.render(reply, usage, exchange, number))
            if path.endswith("/chat/completions"):
                exchange = openai_chat.parse(body)
                reply, usage, number = model.serve(exchange, dialect, openai_chat.ID_PREFIX)
                return self._send(200, *openai_chat.render(reply, usage, exchange, number))
            if path.endswith("/responses"):
                exchange = openai_responses.parse(body)
                reply, usage, number = model.serve(exchange, dialect, openai_responses.ID_PREFIX)
                return self._send(200, *openai_responses.render(reply, usage, exchange, number))
            found = _GEMINI.match(path)
            if found and found["method"] == "countTokens":
                return self._json(200, {"totalTokens": tokens(body)})
            if found and found["method"] in ("generateContent", "streamGenerateContent"):
                stream = found["method"] == "streamGenerateContent"
                exchange = gemini.parse(body, found["model"], stream)
                reply, usage, number = model.serve(exchange, dialect, gemini.ID_PREFIX)
                return self._send(
                    200, *gemini.render(reply, usage, exchange, number, "alt=sse" in self.path)
                )
        except NoTool as exc:
            return self._error(400, str(exc))
        return self._error(404, f"no such API route {path!r}")


def _split(url: str) -> tuple[str | None, str]:
    """(the client the first path segment names, or None; the rest of the path, query removed)."""
    path = url.split("?", 1)[0]
    first, _, rest = path.lstrip("/").partition("/")
    return (first, "/" + rest) if first in CLIENTS else (None, path)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    model: ScriptedModel


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    model: ScriptedModel


class ModelServer:
    """A scripted model on 127.0.0.1 (a free port) or a Unix socket, served from a thread."""

    def __init__(
        self, script: Script, checkpoint: str | None = None, workdir: str | None = None
    ) -> None:
        self.model = ScriptedModel(script, checkpoint, workdir)
        self._server: socketserver.BaseServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(
        self, unix_socket: Path | None = None, host: str = "127.0.0.1", port: int = 0
    ) -> ModelServer:
        server: socketserver.BaseServer
        if unix_socket is not None:
            server = _UnixServer(str(unix_socket), _Handler)  # type: ignore[arg-type]
            Path(unix_socket).chmod(0o777)  # the sandbox's user connects to it
            self.url = f"unix:{unix_socket}"
        else:
            server = _Server((host, port), _Handler)
            self.url = f"http://{host}:{server.server_address[1]}"
        server.model = self.model  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="runners-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    @property
    def port(self) -> int:
        assert self._server is not None and isinstance(self._server, _Server)
        return int(self._server.server_address[1])

    def served(self) -> Served:
        return self.model.tally.snapshot()

    def stop(self) -> Served:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        return self.served()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
