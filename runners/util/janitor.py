"""Nothing a run starts outlives the harness by more than a moment, however the harness ends.

A harness that is killed (`kill -9`, a crashed worker, a Ray task force-cancelled) runs no
`finally`: its workspace (maybe hundreds of MB in /dev/shm), its cgroups and its containers would
stay until the next harness start swept them. So the first time a harness process makes something
that must not outlive it, it starts a *janitor*: a small process in a session of its own (no
terminal signal reaches it, and no longer its child: a process that kills the harness's direct
children with it does not reach it), reading a pipe whose write end only the harness holds. The
harness writes a line for each thing it makes (`+kind value`) and each it removes (`-kind value`);
when the pipe closes, because the harness ended in any way at all, the janitor removes what is left
and exits: containers first (they run the submission), then cgroups (their processes are
killed), then workspaces. After a normal end nothing is left and it exits at once.

Kinds: `ray` (the mark in the environment of every process of a private local Ray, which the
harness's `batch --executor ray` started: its GCS and raylet end with the harness, but the agents
and workers the raylet started would not; or `pid start` of one of its processes, since an
agent's process title may overwrite the environment /proc shows), `container` (a container
id, then its engine's URL when not the default), `cgroup` (a run's cgroup directory),
`workspace` (a directory removed with its content). `RUNNERS_NO_JANITOR=1`
starts none (the tests use it to show what a killed harness leaves without one). The janitor is one
per harness process (a forked child starts its own); the sweeps at the next start (`sweep_orphans`,
`sweep_stale`) stay as the backstop for a janitor that was killed too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

KINDS = (
    "ray",
    "container",
    "cgroup",
    "workspace",
)  # the order things are removed in (runners.util.janitor_process)
# The environment variable that marks every process of a private local Ray a harness started
# (runners.batch.ray_executor.connect_ray); kind `ray`'s value is the mark.
RAY_OWNER_ENV = "RUNNERS_RAY_OWNER"
_lock = threading.Lock()
_pipe: int | None = None  # the write end, in the process that started the janitor
_owner: int | None = None  # that process's pid
_process: subprocess.Popen[bytes] | None = None


def track(kind: str, value: str | Path) -> None:
    """The janitor removes `value` if this process ends before `forget(kind, value)`."""
    _send(f"+{kind} {value}\n")


def forget(kind: str, value: str | Path) -> None:
    """`value` is gone (or kept on purpose): nothing to do for it at the end."""
    _send(f"-{kind} {value}\n")


def _send(line: str) -> None:
    if "\n" in line[:-1] or os.environ.get("RUNNERS_NO_JANITOR") == "1":
        return
    data = line.encode("utf-8", "surrogateescape")
    with _lock:
        if _process is not None and _owner == os.getpid():
            _process.poll()  # reap the launcher (it forks the janitor off and exits at once)
        fd = _pipe if _owner == os.getpid() else _start()
        if fd is None:
            return
        try:
            os.write(fd, data)  # one write of < PIPE_BUF bytes: never interleaved with another
        except OSError:
            pass  # the janitor is gone: the next harness start sweeps instead


def _start() -> int | None:
    global _pipe, _owner, _process
    read_end, write_end = os.pipe()  # both not inheritable: no sandboxed process gets either
    package = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])),
    }
    try:
        _process = subprocess.Popen(
            [sys.executable, "-m", "runners.util.janitor_process"],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    _pipe, _owner = write_end, os.getpid()
    return write_end


def _after_fork_in_child() -> None:
    """A forked child must not hold its parent's pipe open (the parent's janitor would wait for
    the child too): it starts its own when it first needs one."""
    global _pipe, _owner, _process
    if _pipe is not None:
        try:
            os.close(_pipe)
        except OSError:
            pass
    _pipe, _owner, _process = None, None, None


os.register_at_fork(after_in_child=_after_fork_in_child)
