"""The `none` backend's process-tree guarantee under the two ways a cancelled cell could leak:
its harness and the harness's direct children killed at once (what a Ray worker does when a task
is force-cancelled: it SIGKILLs its direct children as it exits), and a cancellation that lands
while the sandboxed process is being started (before its pid is known to the harness)."""

from __future__ import annotations

import _thread
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from runners.model.limits import ResourceLimits
from runners.sandbox.base import SandboxRequest
from runners.sandbox.conformance.subject import marked_processes
from runners.sandbox.none import NoSandbox

# The command: a daemon in a session of its own (out of the process group) and a child in the
# group, both carrying the token on their command lines, then a long sleep (writing nothing: a
# closed output pipe would end it early).
COMMAND = textwrap.dedent("""
    import subprocess, sys, time
    token = sys.argv[1]
    sleep = [sys.executable, "-c", "import time; time.sleep(300)"]
    subprocess.Popen([*sleep, token + "-" + "daemon"], start_new_session=True)
    subprocess.Popen([*sleep, token + "-" + "child"])
    time.sleep(300)
""")


def _request(token: str, tmp_path: Path) -> SandboxRequest:
    return SandboxRequest(
        argv=[sys.executable, "-c", COMMAND, token],
        cwd=str(tmp_path),
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        limits=ResourceLimits(),
        timeout=120,
        run_id=token,
    )


def _marked(token: str, role: str = "") -> list[int]:
    """Live processes (not zombies) whose command line carries `token` (and `role`)."""
    return marked_processes(f"{token}{role}")


def _wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


HARNESS = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from runners.model.limits import ResourceLimits
    from runners.sandbox.base import SandboxRequest
    from runners.sandbox.none import NoSandbox
    request = SandboxRequest.model_validate_json(sys.argv[1])
    NoSandbox().run(request)
""")


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def test_killing_the_harness_and_its_direct_children_leaves_nothing(tmp_path):
    token = f"nonekill{uuid.uuid4().hex}"
    request = _request(token, tmp_path)
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, request.model_dump_json()],
        cwd=Path(__file__).resolve().parents[2],
        start_new_session=True,
    )
    try:
        assert _wait_until(lambda: _marked(token, "-daemon") and _marked(token, "-child"), 60), (
            "the command did not start its child and its daemon"
        )
        _kill_all(_children(harness.pid))  # what a Ray worker does to its children on exit
        harness.kill()
        harness.wait()
        assert _wait_until(lambda: not _marked(token), 10), [
            Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in _marked(token)
        ]
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
        _kill_all(_marked(token))


def test_an_interrupt_while_the_process_starts_leaves_nothing(tmp_path, monkeypatch):
    """KeyboardInterrupt (Ctrl-C, `ray.cancel`) right after the fork, inside `subprocess.Popen`,
    before the harness holds the Popen object: the run still ends with its whole tree."""
    token = f"nonestart{uuid.uuid4().hex}"
    execute_child = subprocess.Popen._execute_child

    def fork_then_interrupt(self, *args, **kwargs):
        execute_child(self, *args, **kwargs)
        _thread.interrupt_main()  # what ray.cancel does in the task's worker

    monkeypatch.setattr(subprocess.Popen, "_execute_child", fork_then_interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            NoSandbox().run(_request(token, tmp_path))
        monkeypatch.undo()
        assert _wait_until(lambda: not _marked(token), 10), [
            Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in _marked(token)
        ]
    finally:
        _kill_all(_marked(token))
