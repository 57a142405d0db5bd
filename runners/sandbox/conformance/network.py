"""The network: off for a test step (loopback only), on for a prepare step, and an allow-list
through the harness's egress proxy.

No check sends a packet off this machine: an outside address (TEST-NET-2, 198.51.100.1) is tried
only once the sandbox is seen to have no interface but loopback, and the allow-list's servers are
the harness's own, on the host's loopback.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from runners.sandbox.conformance.subject import Check, Subject, expect

PROXY_CANARY = "http://proxy.conformance.invalid:3128"

NETWORK_OFF = """
import socket, threading
interfaces = sorted(name for _, name in socket.if_nameindex())
facts = {"interfaces": interfaces}
if interfaces == ["lo"]:
    try:
        socket.create_connection(("198.51.100.1", 53), timeout=3)
        facts["outside"] = "connected"
    except OSError as exc:
        facts["outside"] = exc.errno
    try:
        socket.getaddrinfo("example.com", 443)
        facts["dns"] = "resolved"
    except OSError:
        facts["dns"] = "failed"
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
threading.Thread(target=lambda: server.accept()[0].sendall(b"pong"), daemon=True).start()
facts["loopback"] = socket.create_connection(server.getsockname(), timeout=5).recv(4).decode()
report(**facts)
"""


def off(subject: Subject) -> None:
    ran = subject.run(NETWORK_OFF)
    facts = ran.facts
    expect(
        facts.get("interfaces") == ["lo"],
        f"interfaces besides loopback: {facts.get('interfaces')}",
        ran,
    )
    expect(facts.get("outside") not in (None, "connected"), "an outside address was reachable", ran)
    expect(facts.get("dns") == "failed", "a name was resolved with the network off", ran)
    expect(facts.get("loopback") == "pong", "loopback does not work with the network off", ran)


def on(subject: Subject) -> None:
    """`prepare` gets the network and the harness's proxy settings; nothing is contacted."""
    saved = os.environ.get("HTTPS_PROXY")
    os.environ["HTTPS_PROXY"] = PROXY_CANARY
    try:
        ran = subject.run(
            """
            import socket
            report(interfaces=sorted(name for _, name in socket.if_nameindex()),
                   proxy=os.environ.get("HTTPS_PROXY"))
        """,
            prepare=True,
        )
    finally:
        if saved is None:
            os.environ.pop("HTTPS_PROXY", None)
        else:
            os.environ["HTTPS_PROXY"] = saved
    expect(ran.result.exit_code == 0, "the prepare step failed", ran)
    expect(
        set(ran.facts.get("interfaces", [])) - {"lo"},
        "a prepare step has no interface but loopback",
        ran,
    )
    expect(
        ran.facts.get("proxy") == PROXY_CANARY,
        "the harness's proxy setting did not reach the prepare step",
        ran,
    )


@contextmanager
def _banner_server(banner: bytes) -> Iterator[int]:
    """A server on the host's loopback that sends `banner` to whoever connects; its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(banner)

    thread = threading.Thread(target=serve, daemon=True, name="conformance-banner")
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        thread.join(timeout=2)
        server.close()


ALLOW_LIST = """
import socket
proxy_host, proxy_port = os.environ["RUNNERS_PROXY"].rsplit("/", 1)[1].split(":")

def through_proxy(port):
    with socket.create_connection((proxy_host, int(proxy_port)), timeout=10) as sock:
        sock.sendall((f"CONNECT 127.0.0.1:{port} HTTP/1.1\\r\\n"
                      f"Host: 127.0.0.1:{port}\\r\\n\\r\\n").encode())
        data = b""
        while b"\\r\\n\\r\\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        status = data.split(b"\\r\\n", 1)[0].decode(errors="replace")
        rest = data.split(b"\\r\\n\\r\\n", 1)[1] if b"\\r\\n\\r\\n" in data else b""
        if " 200" in status and b"\\n" not in rest:
            rest += sock.recv(64)
        return status, rest.decode(errors="replace").strip()

def direct(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3)
        return "connected"
    except OSError as exc:
        return exc.errno

allowed, denied = int(sys.argv[1]), int(sys.argv[2])
report(interfaces=sorted(name for _, name in socket.if_nameindex()), allowed=through_proxy(allowed),
       denied=through_proxy(denied)[0], direct=direct(allowed))
"""


def allow_list(subject: Subject) -> None:
    from runners.egress.policy import NetworkPolicy
    from runners.egress.proxy import EgressProxy

    with _banner_server(b"allowed\n") as allowed, _banner_server(b"denied\n") as denied:
        proxy = EgressProxy(NetworkPolicy(allow=[f"127.0.0.1:{allowed}"]))
        try:
            request = subject.request(ALLOW_LIST, args=(str(allowed), str(denied)))
            request = request.model_copy(
                update={"egress": proxy, "env": {**request.env, **proxy.env()}}
            )
            ran = subject.send(request)
        finally:
            record = proxy.close()
    facts = ran.facts
    expect(
        facts.get("interfaces") == ["lo"],
        f"interfaces besides loopback: {facts.get('interfaces')}",
        ran,
    )
    status, banner = facts.get("allowed") or ("", "")
    expect(
        " 200" in status and banner == "allowed",
        f"the allowed server was not reached: {status!r}",
        ran,
    )
    expect(
        " 403" in (facts.get("denied") or ""),
        f"a server not allowed was not refused: {facts.get('denied')!r}",
        ran,
    )
    expect(
        facts.get("direct") != "connected",
        "the host's loopback was reachable without the proxy",
        ran,
    )
    expect(record.refused, "the proxy did not record the refusal", ran)


CHECKS = (
    Check("network.off", "a test step has loopback only: no outside address, no DNS", off),
    Check("network.on", "a prepare step has the network and the harness's proxy settings", on),
    Check(
        "network.allow_list",
        "with an egress proxy: only the allowed endpoints, through it; nothing directly",
        allow_list,
    ),
)
