"""The harness's egress proxy: the only way out of an agent's sandbox under an allow-list.

Two kinds of listener, opened inside the sandbox's network namespace (`netns.py`) on its
loopback, served by threads of the harness (HTTP/1.1 parsed by h11):

- the **forward proxy** (`HTTPS_PROXY`/`HTTP_PROXY` point at it): `CONNECT host:port` is tunnelled
  when `host:port` is allowed (TLS end to end: the harness sees the host, not the traffic), an
  absolute-form `GET http://host:port/...` is forwarded when allowed; anything else is refused
  with 403 and counted;
- one **route** per `routes` variable: a plain-HTTP front whose requests are forwarded to the
  route's upstream (TLS to it when https), so the harness reads each response's `usage` as it
  streams past (`usage.py`) and counts the model traffic.

What it saw is `EgressRecord`, kept in the step's record.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

import h11
from pydantic import BaseModel, Field

from runners.egress.netns import in_netns
from runners.egress.policy import NetworkPolicy, Upstream
from runners.egress.usage import StreamMeter, Usage

PROXY_PORT = 3128
ROUTE_PORT = 4100  # the first route's; the next ones follow
CONNECT_TIMEOUT = 30.0
IDLE_TIMEOUT = 900.0  # a model may think for minutes before its first byte
_HOP = {
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"proxy-authorization",
    b"proxy-authenticate",
    b"te",
    b"trailer",
    b"transfer-encoding",
    b"upgrade",
    b"expect",
    b"host",
}


class EgressRecord(BaseModel):
    """What the proxy let through and refused during one step, and the model traffic it counted."""

    policy: str = Field("", description="what was allowed")
    allowed: dict[str, int] = Field(
        default_factory=dict, description="target -> connections let through"
    )
    refused: dict[str, int] = Field(default_factory=dict, description="target -> attempts refused")
    routed: Usage = Field(
        default_factory=Usage, description="tokens counted in the routes' responses"
    )
    unmetered: int = Field(0, description="route responses whose usage could not be read")


class EgressProxy:
    """One step's proxy. `attach(netns)` opens its listeners (inside the namespace, or on the
    host's loopback with free ports when None), `env()` is what the agent is given, `close()` ends
    every connection. `on_usage(total)` is called after each counted response; `stop_routes(why)`
    makes later route requests fail with 429 (a budget reached)."""

    def __init__(
        self, policy: NetworkPolicy, on_usage: Callable[[Usage], None] | None = None
    ) -> None:
        self.policy = policy
        self.upstreams = policy.upstreams()
        self.on_usage = on_usage
        self.ports = {
            "": PROXY_PORT,
            **{name: ROUTE_PORT + i for i, name in enumerate(self.upstreams)},
        }
        self._listeners: dict[socket.socket, str] = {}
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._allowed: Counter[str] = Counter()
        self._refused: Counter[str] = Counter()
        self._usage = Usage()
        self._unmetered = 0
        self._stopped_why: str | None = None
        self._closing = threading.Event()
        self._acceptor: threading.Thread | None = None

    # ---- life ------------------------------------------------------------------------------------

    def attach(self, netns: int | None) -> None:
        """Open the listeners: inside namespace `netns` at the fixed ports, or (None) on the host's
        loopback at free ones, then serve them."""

        def listen() -> dict[socket.socket, str]:
            made = {}
            for name, port in self.ports.items():
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind(("127.0.0.1", port if netns is not None else 0))
                sock.listen(64)
                made[sock] = name
            return made

        self._listeners = in_netns(netns, listen)
        self.ports = {name: sock.getsockname()[1] for sock, name in self._listeners.items()}
        self._acceptor = threading.Thread(
            target=self._accept_loop, name="runners-egress", daemon=True
        )
        self._acceptor.start()

    def env(self) -> dict[str, str]:
        """The agent's variables: the proxy for every client library, and one per route."""
        proxy = f"http://127.0.0.1:{self.ports['']}"
        env = {
            name: proxy
            for name in (
                "HTTPS_PROXY",
                "https_proxy",
                "HTTP_PROXY",
                "http_proxy",
                "ALL_PROXY",
                "all_proxy",
            )
        }
        env.update(
            NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost", RUNNERS_PROXY=proxy
        )
        env.update({name: f"http://127.0.0.1:{self.ports[name]}" for name in self.upstreams})
        return env

    def stop_routes(self, why: str) -> None:
        with self._lock:
            self._stopped_why = self._stopped_why or why

    def close(self) -> EgressRecord:
        self._closing.set()
        with self._lock:
            sockets = [*self._listeners, *self._open]
        for sock in sockets:
            for step in (lambda s: s.shutdown(socket.SHUT_RDWR), lambda s: s.close()):
                try:
                    step(sock)
                except OSError:
                    pass
        if self._acceptor is not None:
            self._acceptor.join(timeout=2)
        return self.record()

    def record(self) -> EgressRecord:
        with self._lock:
            return EgressRecord(
                policy=self.policy.describe(),
                allowed=dict(self._allowed),
                refused=dict(self._refused),
                routed=self._usage.model_copy(),
                unmetered=self._unmetered,
            )

    # ---- serving ---------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._closing.is_set():
            try:
                ready, _, _ = select.select(list(self._listeners), [], [], 0.2)
            except (OSError, ValueError):
                return
            for listener in ready:
                try:
                    client, _ = listener.accept()
                except OSError:
                    continue
                name = self._listeners[listener]
                with self._lock:
                    self._open.add(client)
                threading.Thread(
                    target=self._serve,
                    args=(client, name),
                    daemon=True,
                    name=f"runners-egress-{name or 'proxy'}",
                ).start()

    def _serve(self, client: socket.socket, route: str) -> None:
        client.settimeout(IDLE_TIMEOUT)
        conn = h11.Connection(h11.SERVER)
        try:
            while True:
                event = _next(conn, client)
                if not isinstance(event, h11.Request):
                    return
                if route:
                    self._route(conn, client, event, route)
                elif event.method == b"CONNECT":
                    self._connect(conn, client, event)
                    return
                else:
                    self._forward(conn, client, event)
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    return
                conn.start_next_cycle()
        except (h11.ProtocolError, OSError, ssl.SSLError):
            return
        finally:
            self._forget(client)

    def _connect(self, conn: h11.Connection, client: socket.socket, request: h11.Request) -> None:
        target = request.target.decode("ascii", "replace")
        host, _, port = target.rpartition(":")
        host = host.strip("[]")
        if not port.isdigit() or not self.policy.allows(host, int(port)):
            self._refuse(conn, client, f"CONNECT {target}")
            return
        _drain(conn, client)
        try:
            upstream = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            _answer(conn, client, 502, f"runners egress proxy: cannot reach {target}: {exc}")
            return
        self._count(self._allowed, f"CONNECT {target}")
        _send(
            conn,
            client,
            h11.Response(status_code=200, headers=[], reason=b"Connection established"),
        )
        trailing, _ = conn.trailing_data
        with self._lock:
            self._open.add(upstream)
        try:
            if trailing:
                upstream.sendall(trailing)
            _splice(client, upstream)
        finally:
            self._forget(upstream)

    def _forward(self, conn: h11.Connection, client: socket.socket, request: h11.Request) -> None:
        target = request.target.decode("ascii", "replace")
        parts = urlsplit(target)
        if parts.scheme != "http" or not parts.hostname:
            self._refuse(
                conn,
                client,
                f"{request.method.decode()} {target}",
                status=400,
                why="this is the egress proxy: send CONNECT host:port, or an absolute http:// URL",
            )
            return
        port = parts.port or 80
        if not self.policy.allows(parts.hostname, port):
            self._refuse(conn, client, f"{request.method.decode()} http://{parts.hostname}:{port}")
            return
        self._count(self._allowed, f"{request.method.decode()} http://{parts.hostname}:{port}")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._exchange(
            conn, client, request, Upstream("http", parts.hostname, port, ""), path, meter=False
        )

    def _route(
        self, conn: h11.Connection, client: socket.socket, request: h11.Request, route: str
    ) -> None:
        upstream = self.upstreams[route]
        with self._lock:
            stopped = self._stopped_why
        if stopped:
            self._count(self._refused, f"{request.method.decode()} {upstream.url} (stopped)")
            _drain(conn, client)
            _answer(conn, client, 429, f"runners: {stopped}")
            return
        self._count(self._allowed, f"route {route} -> {upstream.url}")
        target = request.target.decode("ascii", "replace")
        if target.startswith(
            ("http://", "https://")
        ):  # absolute-form, from a client told to use a proxy
            parts = urlsplit(target)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._exchange(conn, client, request, upstream, upstream.path + target, meter=True)

    def _exchange(
        self,
        conn: h11.Connection,
        client: socket.socket,
        request: h11.Request,
        upstream: Upstream,
        path: str,
        meter: bool,
    ) -> None:
        """Forward one request to `upstream` and its response back, reading its usage on the way."""
        try:
            raw = socket.create_connection((upstream.host, upstream.port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            _drain(conn, client)
            _answer(conn, client, 502, f"runners egress proxy: cannot reach {upstream.url}: {exc}")
            return
        sock: socket.socket = raw
        if upstream.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(raw, server_hostname=upstream.host)
        sock.settimeout(IDLE_TIMEOUT)
        with self._lock:
            self._open.add(sock)
        try:
            headers = [
                (k, v)
                for k, v in request.headers
                if k.lower() not in _HOP and k.lower() != b"accept-encoding"
            ]
            framing = [
                (k, v)
                for k, v in request.headers
                if k.lower() in (b"content-length", b"transfer-encoding")
            ]
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers += [
                (b"host", upstream.host_header.encode()),
                (b"connection", b"close"),
                (b"accept-encoding", b"identity"),
                *framing,
            ]
            out = h11.Connection(h11.CLIENT)
            sock.sendall(
                out.send(h11.Request(method=request.method, target=path.encode(), headers=headers))
                or b""
            )
            while True:
                event = _next(conn, client)
                if isinstance(event, h11.Data):
                    sock.sendall(out.send(event) or b"")
                elif isinstance(event, h11.EndOfMessage):
                    sock.sendall(out.send(h11.EndOfMessage()) or b"")
                    break
                else:
                    return
            response = _next(out, sock)
            while isinstance(response, h11.InformationalResponse):
                response = _next(out, sock)
            if not isinstance(response, h11.Response):
                _answer(
                    conn, client, 502, "runners egress proxy: the upstream closed without answering"
                )
                return
            kept = [(k, v) for k, v in response.headers if k.lower() not in _HOP]
            reader = (
                StreamMeter(dict(response.headers).get(b"content-type", b"").decode("latin-1"))
                if meter
                else None
            )
            _send(
                conn,
                client,
                h11.Response(
                    status_code=response.status_code, headers=kept, reason=response.reason
                ),
            )
            # The usage is counted before the client gets the body's last byte: a client that
            # has its whole answer may close the proxy at once, and the count must be in by then.
            length = _content_length(response.headers)
            forwarded = 0
            while True:
                event = _next(out, sock)
                if isinstance(event, h11.Data):
                    forwarded += len(event.data)
                    if reader is not None:
                        reader.feed(bytes(event.data))
                        if length is not None and forwarded >= length:
                            self._metered(reader.usage())
                            reader = None
                    _send(conn, client, h11.Data(data=event.data))
                elif isinstance(event, h11.EndOfMessage):
                    if reader is not None:
                        self._metered(reader.usage())
                        reader = None
                    _send(conn, client, h11.EndOfMessage())
                    break
                else:
                    return
        finally:
            self._forget(sock)

    # ---- bookkeeping -----------------------------------------------------------------------------

    def _metered(self, usage: Usage | None) -> None:
        with self._lock:
            if usage is None:
                self._unmetered += 1
                return
            self._usage.add(usage)
            total = self._usage.model_copy()
        if self.on_usage is not None:
            self.on_usage(total)

    def _refuse(
        self,
        conn: h11.Connection,
        client: socket.socket,
        what: str,
        status: int = 403,
        why: str | None = None,
    ) -> None:
        self._count(self._refused, what)
        _drain(conn, client)
        _answer(
            conn,
            client,
            status,
            f"runners egress proxy: {why or 'not on the allow-list'}: {what} "
            f"(allowed: {self.policy.describe()})",
        )

    def _count(self, counter: Counter[str], what: str) -> None:
        with self._lock:
            counter[what] += 1

    def _forget(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)
        try:
            sock.close()
        except OSError:
            pass


def _next(
    conn: h11.Connection, sock: socket.socket
) -> h11.Event | type[h11.NEED_DATA | h11.PAUSED]:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(sock.recv(65536))


def _drain(conn: h11.Connection, sock: socket.socket) -> None:
    """Read the rest of the request (its body) so that the answer is read by the client."""
    while conn.their_state is h11.SEND_BODY:
        if isinstance(_next(conn, sock), (h11.EndOfMessage, h11.ConnectionClosed)):
            return


def _send(conn: h11.Connection, sock: socket.socket, event: h11.Event) -> None:
    data = conn.send(event)
    if data:
        sock.sendall(data)


def _answer(conn: h11.Connection, sock: socket.socket, status: int, text: str) -> None:
    body = (text + "\n").encode()
    _send(
        conn,
        sock,
        h11.Response(
            status_code=status,
            headers=[
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        ),
    )
    _send(conn, sock, h11.Data(data=body))
    _send(conn, sock, h11.EndOfMessage())


def _splice(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side is done."""
    a.settimeout(None)
    b.settimeout(None)
    peers = {a: b, b: a}
    while True:
        ready, _, _ = select.select(list(peers), [], [], IDLE_TIMEOUT)
        if not ready:
            return
        for sock in ready:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                try:
                    peers[sock].shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            peers[sock].sendall(data)


def _content_length(headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    """The response's Content-Length, None for a chunked (or unreadable) one."""
    for name, value in headers:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
