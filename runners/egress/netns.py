"""Network namespaces for the allow-list: a fresh one for bubblewrap, a container's for docker.

The sandbox's namespace has loopback only. The harness opens its proxy's listening sockets
*inside* it (a socket keeps the namespace it was made in, while the harness's threads that serve
it connect upstream from the host's): so the agent reaches `127.0.0.1:PORT` of its own namespace
and nothing else, with no helper process inside the sandbox for it to kill or abuse.

Entering a namespace (`setns`) takes CAP_SYS_ADMIN: the harness must run as root.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import threading
from collections.abc import Callable
from typing import TypeVar

from runners.model.errors import InfrastructureError, UserInputError

CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sh22x"
T = TypeVar("T")


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def require_root(backend: str) -> None:
    if os.geteuid() != 0:
        raise UserInputError(
            f"a network allow-list (`network: {{allow: ..., routes: ...}}`) on {backend} needs the "
            "harness to run as root: it opens the proxy inside the sandbox's network namespace; "
            "run as root, or give `network: true` (the whole network) or `false`"
        )


def setns(fd: int) -> None:
    """Move the calling thread (or a child before exec) into the network namespace `fd`."""
    if _libc().setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def _on_thread(work: Callable[[], T]) -> T:
    """Run `work` on a thread of its own, which namespace changes cannot outlive."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            box["error"] = exc

    thread = threading.Thread(target=run, name="runners-netns", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def new_netns() -> int:
    """A file descriptor of a fresh network namespace whose loopback is up."""

    def make() -> int:
        if _libc().unshare(CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise InfrastructureError(
                f"cannot create a network namespace for the proxy: {os.strerror(err)}"
            )
        _loopback_up()
        return os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)

    return _on_thread(make)


def in_netns(fd: int | None, work: Callable[[], T]) -> T:
    """`work()` run inside the network namespace `fd` (None: the harness's own)."""
    if fd is None:
        return work()

    def inside() -> T:
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        try:
            setns(fd)
            try:
                return work()
            finally:
                setns(own)
        finally:
            os.close(own)

    return _on_thread(inside)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack(
            _IFREQ, fcntl.ioctl(sock, _SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0))
        )[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))
