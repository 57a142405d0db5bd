"""Run a host process with a wall clock, capped output and whole-tree cleanup.

Shared by the `none` and `bubblewrap` backends. Output is read by threads into head+tail buffers,
so a flood of stdout costs bounded memory and still keeps the traceback at the end.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from runners.model.limits import ResourceLimits
from runners.sandbox.base import SandboxResult
from runners.sandbox.held_signals import HeldSignals

KILL_GRACE = 3.0
INTERRUPT_CHECK = 0.5  # seconds between checks for a pending KeyboardInterrupt


class CappedBuffer:
    """Keeps the first and last `cap/2` bytes of a stream and counts what was dropped."""

    def __init__(self, cap: int, tap: Callable[[bytes], None] | None = None) -> None:
        self.tap = tap  # sees every chunk, the dropped ones too
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        if self.tap is not None:
            try:
                self.tap(chunk)
            except Exception:  # noqa: BLE001 - a reader's bug must not stop the capture
                self.tap = None
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - self.half
            if excess > 0:
                self.dropped += excess
                del self.tail[:excess]

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n[... {self.dropped} bytes truncated ...]\n{tail}"
        return head + tail


def apply_rlimits(limits: ResourceLimits) -> None:
    """Per-process limits for the child (meant for `preexec_fn`): file size, open files, no
    cores."""
    if limits.file_size_mb:
        size = limits.file_size_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    if limits.nofile:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _pump(stream: IO[bytes], buffer: CappedBuffer) -> None:
    # read1: what has come, as it comes (a reader of the stream, e.g. a budget, sees it live).
    read = getattr(stream, "read1", stream.read)
    try:
        while chunk := read(65536):
            buffer.feed(chunk)
    except (OSError, ValueError):
        pass


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    env: dict[str, str],
    timeout: float,
    output_cap: int,
    preexec_fn: Callable[[], None] | None = None,
    pass_fds: Sequence[int] = (),
    stop: threading.Event | None = None,
    on_stdout: Callable[[bytes], None] | None = None,
) -> SandboxResult:
    """Run `argv` to completion or until `timeout`, then make sure its process group is gone."""
    started = time.monotonic()
    held = HeldSignals()  # until the process is known: see held_signals.py
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec_fn,  # noqa: PLW1509 - the limits are set in the child, before exec
            pass_fds=tuple(pass_fds),
        )
    except OSError as exc:
        held.release()
        return SandboxResult(
            exit_code=None, stderr=f"cannot start {argv[0]}: {exc}", notes=[str(exc)]
        )
    except BaseException:
        held.release()
        raise
    out, err = CappedBuffer(output_cap, on_stdout), CappedBuffer(output_cap)
    assert proc.stdout is not None and proc.stderr is not None
    readers = [
        threading.Thread(target=_pump, args=(proc.stdout, out), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True),
    ]
    timed_out = False
    try:
        held.release()  # a cancellation that came meanwhile is raised here, where it kills `proc`
        for reader in readers:
            reader.start()
        wait_exact(proc, timeout, stop)
    except subprocess.TimeoutExpired:
        timed_out = not (stop is not None and stop.is_set())
        _terminate(proc)
    except BaseException:
        _terminate(proc)
        raise
    finally:
        if proc.returncode is not None and proc.returncode < 0:
            # The supervisor's parent (`proc`) was killed from outside: it is cleaning up the
            # tree now, and a SIGKILL to the group would stop it halfway.
            _await_group(proc.pid, KILL_GRACE)
        _killpg(proc.pid)
    for reader in readers:
        # A process that escaped the group could hold the pipe open; never wait on it forever.
        reader.join(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        try:
            stream.close()
        except OSError:
            pass
    return SandboxResult(
        exit_code=proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        timed_out=timed_out,
        stopped=stop is not None and stop.is_set(),
        duration=time.monotonic() - started,
    )


def wait_exact(
    proc: subprocess.Popen[bytes], timeout: float, stop: threading.Event | None = None
) -> int:
    """`proc.wait(timeout)`, but woken the moment the process ends: Popen polls with sleeps of up
    to 50 ms, which every sandboxed step (probe, prepare, tests) would add to the run.

    The wait is cut into slices of `INTERRUPT_CHECK` seconds: `ray.cancel` raises its
    KeyboardInterrupt through `_thread.interrupt_main`, which wakes no system call, only the next
    Python bytecode; a single long poll would keep a cancelled cell running to its timeout.
    A `stop` event set meanwhile ends the wait as a timeout would."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # the process is already reaped, or a kernel without pidfds
        return proc.wait(timeout=timeout)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + max(timeout, 0.0)
        while not poller.poll(min(max(deadline - time.monotonic(), 0.0), INTERRUPT_CHECK) * 1000):
            if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                raise subprocess.TimeoutExpired(proc.args, timeout)
    finally:
        os.close(fd)
    return proc.wait()


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM first (the supervisor then kills its whole tree), SIGKILL after a grace."""
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=KILL_GRACE)
    except (subprocess.TimeoutExpired, OSError):
        _killpg(proc.pid)
        try:
            proc.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _await_group(pgid: int, grace: float) -> None:
    """Wait up to `grace` seconds for process group `pgid` to have no process left."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except OSError:
            return
        time.sleep(0.01)


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
