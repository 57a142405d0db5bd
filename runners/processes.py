"""Facts about host processes, read from /proc: start times (to tell a live process from a
later one that reuses its pid) and process trees."""

from __future__ import annotations

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
    fields = data[data.rfind(b")") + 2:].split()
    if len(fields) <= 19 or fields[0] in (b"Z", b"X"):
        return None
    return fields[19].decode()


def process_tree(pid: int) -> dict[int, str]:
    """Every live descendant of `pid`, with its start time."""
    return {p: s for p in descendants(pid) if (s := start_time(p)) is not None}
