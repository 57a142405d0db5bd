"""What every case starts from: the sandbox as it was before the submission's first process.

Not only the workspace: a CLI that leaves a file in `/tmp`, `$HOME` or `/dev/shm`, a report
directory, a System V shared-memory segment or a POSIX message queue could read it in the next
case and answer differently there (a submission passed 1 case of 9 that way instead of 9). So the
harness names the directories that belong to this run alone (the scratch: a private `/tmp` with
the home in it, `/dev/shm`, `/dev/mqueue` and the report directory under docker and bubblewrap;
the run's own HOME, TMPDIR and report directory on `none`, where `/tmp` is the host's), and
whether the IPC namespace is the run's own. Before every isolated CLI case, and before each
group's server starts, all of it is put back as it was (runners/cases/snapshot.py) and the IPC
objects are removed. Nothing of the submission runs while that happens: every process it started
was killed at the end of the previous case or group.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from pathlib import Path

from .snapshot import Snapshot

IPC_RMID = 0


@dataclass
class Scratch:
    """The run's own writable places besides the workspace (from the harness, in run.json)."""

    dirs: list[str] = field(default_factory=list)
    ipc: bool = False  # the IPC namespace is the run's own: its objects may be removed


class FreshState:
    def __init__(self, workspace: Path, scratch: Scratch) -> None:
        self.workspace = Snapshot(workspace)
        roots = [Path(d) for d in scratch.dirs if Path(d).is_dir() and not Path(d).is_symlink()]
        # one snapshot per tree: the home inside /tmp is part of /tmp's
        roots = [r for r in roots if not any(r != o and r.is_relative_to(o) for o in roots)]
        self.scratch = [Snapshot(r) for r in dict.fromkeys(roots)]
        self.ipc = scratch.ipc

    def keep(self, path: Path) -> None:
        """A file the case program wrote into a scratch directory (a screenshot among the
        reports): kept as written by every later restore."""
        for snapshot in self.scratch:
            if Path(path).is_relative_to(snapshot.root):
                snapshot.adopt(Path(path))

    def restore(self, workspace: bool = True) -> None:
        if workspace:
            self.workspace.restore()
        for snapshot in self.scratch:
            snapshot.restore()
        if self.ipc:
            remove_sysv_ipc()


def remove_sysv_ipc() -> int:
    """Remove every System V shared-memory segment, semaphore set and message queue of this IPC
    namespace (only ever called where the namespace is the run's own). Returns how many."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    removers = {
        "shm": lambda ident: libc.shmctl(ident, IPC_RMID, None),
        "sem": lambda ident: libc.semctl(ident, 0, IPC_RMID),
        "msg": lambda ident: libc.msgctl(ident, IPC_RMID, None),
    }
    removed = 0
    for kind, remove in removers.items():
        try:
            rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit() and remove(int(fields[1])) == 0:
                removed += 1
    return removed
