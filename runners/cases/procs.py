"""The submission's processes, seen from the case program: spawn with bounded output, and make
sure nothing it started outlives its case (CLI) or its group (server).

The case program makes itself a child subreaper, so whatever the submission leaves behind
(a daemon that forked twice and called setsid) is re-parented to it rather than to the
sandbox's init, and `kill_descendants` finds it under the program's own children.
"""

from __future__ import annotations

import ctypes
import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
OUTPUT_CAP = 8 * 1024 * 1024  # per stream of one case; the rest is drained and counted
READ_CHUNK = 65536


def harden() -> None:
    """Non-dumpable (processes of the same uid, the submission's, cannot read this one's memory,
    descriptors or cwd through /proc) and a subreaper for everything it starts."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


@dataclass
class Completed:
    exit_code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    elapsed: float
    dropped: int = 0  # output bytes over the cap


def run(
    argv: list[str],
    *,
    cwd: str,
    env: dict[str, str],
    stdin: bytes | None,
    timeout: float,
    cap: int = OUTPUT_CAP,
) -> Completed:
    """Run to completion or `timeout`, feeding `stdin` and reading both streams without threads;
    then kill whatever the process left behind."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return Completed(None, b"", f"cannot start {argv[0]}: {exc.strerror}".encode(), False, 0.0)
    buffers: dict[int, bytearray] = {}
    dropped = 0
    selector = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    for stream in (proc.stdout, proc.stderr):
        os.set_blocking(stream.fileno(), False)
        selector.register(stream.fileno(), selectors.EVENT_READ)
        buffers[stream.fileno()] = bytearray()
    pending = memoryview(stdin or b"")
    in_fd = -1
    if proc.stdin is not None:
        if pending:
            in_fd = proc.stdin.fileno()
            os.set_blocking(in_fd, False)
            selector.register(in_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    deadline = started + timeout
    timed_out = False
    exited_at: float | None = None
    while selector.get_map():
        now = time.monotonic()
        if now >= deadline:
            timed_out = proc.poll() is None
            break
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > 0.5:
            break  # it exited; what still holds its pipes open is left over, killed below
        wait = min(deadline - now, 0.1 if exited_at is None else 0.05)
        for key, _ in selector.select(wait):
            fd = key.fd
            if fd == in_fd:
                try:
                    written = os.write(fd, pending[:READ_CHUNK])
                    pending = pending[written:]
                except BlockingIOError:
                    continue
                except OSError:  # it closed its stdin
                    pending = pending[:0]
                if not pending:
                    selector.unregister(fd)
                    assert proc.stdin is not None
                    proc.stdin.close()
                    in_fd = -1
                continue
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(fd)
                continue
            room = cap - len(buffers[fd])
            buffers[fd] += chunk[: max(room, 0)]
            dropped += max(len(chunk) - max(room, 0), 0)
    selector.close()
    if not timed_out:  # both streams closed: it still has until the deadline to exit
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.001))
        except subprocess.TimeoutExpired:
            timed_out = True
    kill_group(proc.pid)
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    kill_descendants()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None and not pipe.closed:
            pipe.close()
    elapsed = time.monotonic() - started
    out, err = bytes(buffers[out_fd]), bytes(buffers[err_fd])
    return Completed(None if timed_out else code, out, err, timed_out, elapsed, dropped)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _children(pid: int | str) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            continue
    return found


def descendants(root: int | None = None) -> list[int]:
    """Every process below `root` (default: this one)."""
    seen: list[int] = []
    stack = _children(root or "self")
    while stack:
        pid = stack.pop()
        if pid not in seen:
            seen.append(pid)
            stack += _children(pid)
    return seen


def kill_descendants(rounds: int = 100) -> int:
    """SIGKILL every process below this one until none is left (a process forking as fast as it
    can is caught within a few rounds: each round kills what the last one missed). Reaps them.
    Returns how many were killed."""
    killed = 0
    for _ in range(rounds):
        found = descendants()
        alive = [pid for pid in found if not _zombie(pid)]
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        _reap()
        if not alive:
            break
        time.sleep(0.005)
    _reap()
    return killed


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2 :].startswith("Z")


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class Drain:
    """Reads a long-lived process's stream in a thread, keeping only its last `keep` bytes (a
    server that floods its output costs CPU, never the case program's memory)."""

    def __init__(self, stream, keep: int = 64 * 1024) -> None:  # type: ignore[no-untyped-def]
        self.stream, self.keep = stream, keep
        self.tail = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while chunk := os.read(self.stream.fileno(), READ_CHUNK):
                self.total += len(chunk)
                self.tail += chunk
                if len(self.tail) > 2 * self.keep:
                    del self.tail[: len(self.tail) - self.keep]
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        return bytes(self.tail[-self.keep :]).decode("utf-8", "replace")

    def join(self, timeout: float = 2.0) -> None:
        self.thread.join(timeout)
