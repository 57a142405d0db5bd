"""What a harness makes goes within seconds of its end, however it ends (runners.util.janitor): a
harness killed with SIGKILL runs no `finally`, and its workspace (in /dev/shm: memory), cgroups
and containers used to stay until the next harness start. Real runs killed mid-run on every
backend are in the hostile suite (tests/hostile: harness-crash, batch-crash)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

CHILD = """
import os, sys, time
from pathlib import Path
from runners.util import janitor
from runners.engine.workspace import Workspace

workspace = Workspace.create(Path(sys.argv[1]))
(workspace.tests / "data").mkdir(parents=True)
(workspace.tests / "data" / "x").write_text("x")
(workspace.tests / "data").chmod(0o500)  # sealed, as a run leaves it
kept = Workspace.create(Path(sys.argv[1]))
kept.release()  # --keep-workspace: kept on purpose
print(workspace.root, kept.root, flush=True)
if sys.argv[2] == "clean":
    sys.stdin.readline()  # the test has seen the janitor: it may end now, not before
    workspace.cleanup()
    sys.exit(0)
time.sleep(600)
"""


def _start(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[str], Path, Path, int]:
    mark = f"janitor-test-{uuid.uuid4().hex}"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "JANITOR_TEST_MARK": mark},
    )
    assert child.stdout is not None
    workspace, kept = child.stdout.readline().split()
    deadline = time.monotonic() + 10
    while (
        found := [pid for pid in _janitors(mark) if pid not in _children(child.pid)]
    ) == [] and time.monotonic() < deadline:
        time.sleep(0.05)  # the launcher forks the janitor off, then exits
    assert len(found) == 1, found
    return child, Path(workspace), Path(kept), found[0]


def _janitors(mark: str) -> list[int]:
    """The janitor processes of a child harness (they inherit its environment, with `mark`)."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                command = handle.read()
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                environ = handle.read()
        except (OSError, ValueError):
            continue
        if (
            b"runners.util.janitor_process" in command
            and mark.encode() in environ
            and _alive(int(entry.name))
        ):
            found.append(int(entry.name))
    return found


def _gone(path: Path, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not path.exists():
            return True
        time.sleep(0.1)
    return False


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as handle:
        return [int(found) for found in handle.read().split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_a_killed_harness_leaves_no_workspace(tmp_path):
    child, workspace, kept, janitor = _start(tmp_path, "sleep")
    assert workspace.is_dir() and _alive(janitor)
    for pid in _children(child.pid):  # what a Ray worker does to a force-cancelled task's children
        os.kill(pid, signal.SIGKILL)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert _gone(workspace), f"{workspace} is still there after the harness was killed"
    assert kept.is_dir()  # released on purpose: never removed
    deadline = time.monotonic() + 10
    while _alive(janitor) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(janitor)


def test_after_a_normal_end_the_janitor_has_nothing_to_do_and_ends(tmp_path):
    child, workspace, kept, janitor = _start(tmp_path, "clean")
    assert child.stdin is not None
    child.stdin.write("end\n")
    child.stdin.close()
    assert child.wait(timeout=60) == 0
    deadline = time.monotonic() + 10
    while _alive(janitor) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(janitor) and not workspace.exists() and kept.is_dir()


def test_a_forked_child_has_its_own_janitor_and_never_holds_its_parents(tmp_path):
    """The parent's janitor must not wait for a forked child (a pool worker) to exit: the child
    closes the parent's pipe and starts its own when it makes something."""
    script = CHILD.replace(
        "kept = Workspace.create",
        "if os.fork() == 0:\n    time.sleep(600)\nkept = Workspace.create",
        1,
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path), "sleep"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert child.stdout is not None
    workspace = Path(child.stdout.readline().split()[0])
    try:
        child.send_signal(signal.SIGKILL)  # the parent only; its forked child sleeps on
        child.wait()
        assert _gone(workspace)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
