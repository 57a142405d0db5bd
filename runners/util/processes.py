"""Facts about host processes, read from /proc: start times (to tell a live process from a
later one that reuses its pid) and process trees."""

from __future__ import annotations

import os
import socket

from runners.sandbox.reaper import descendants


def start_time(pid: int) -> str | None:
    """Start time of a live process (clock ticks since boot, as text); None when there is none or
    it is a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # Fields after the parenthesised command name (which may hold spaces or parentheses).
    fields = data[data.rfind(b")") + 2 :].split()
    if len(fields) <= 19 or fields[0] in (b"Z", b"X"):
        return None
    return fields[19].decode()


def process_tree(pid: int) -> dict[int, str]:
    """Every live descendant of `pid`, with its start time."""
    return {p: s for p in descendants(pid) if (s := start_time(p)) is not None}


def owner_label(pid: int | None = None) -> str:
    """`host:pid:start` naming a live process (default: this one), recorded on what a run leaves
    behind (containers, workspaces) so a later start can tell whether its owner is gone."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{start_time(pid) or 0}"


def owner_alive(pid: int, start: str | None = None) -> bool:
    """Whether process `pid` still runs; with `start` (from `owner_label`), whether it is still
    the *same* process, not a later one that reuses the pid. "0" or None: any process will do."""
    if os.path.isdir("/proc/self"):
        current = start_time(pid)  # None: gone or a zombie
        return current is not None and start in (None, "0", current)
    try:  # no /proc: trust the pid
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_gone(owner: str) -> bool:
    """True only for an `owner_label` of this host whose process is gone; another host's label, or
    text that is no label, is not ours to judge."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    return not owner_alive(int(parts[1]), parts[2])
