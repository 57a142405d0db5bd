"""Where a run's workspace lives: in memory when the sandbox bounds what the run writes, on disk
otherwise.

Creating a file costs about 20 µs on tmpfs and 75-400 µs on a journaled disk file system (ext4
here): the copy of a 20,000-file submission is 0.5 s against 2-8 s, and its removal halves too.
Memory is the right place only where everything the tests write into the workspace is charged to
the run's memory cgroup (docker; bubblewrap with cgroup access): there a run that fills its
workspace is stopped at its memory limit, as a disk-filling run would otherwise fill the host's
disk. A kept workspace (`keep_workspace`) stays on disk, where it outlives a reboot.

`RUNNERS_WORKSPACE_DIR` overrides the choice with a directory of the user's.
"""

from __future__ import annotations

import os
from pathlib import Path

from runners.model.errors import UserInputError

ENV_VAR = "RUNNERS_WORKSPACE_DIR"
MEMORY_DIR = Path("/dev/shm")
# Memory left free beyond the copy itself: other runs, the tests' own writes, the host.
HEADROOM_BYTES = 1 << 30


def workspace_base(needed_bytes: int, memory_bounded: bool, keep: bool) -> Path | None:
    """The directory to create the workspace in (None: the system's temporary directory)."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        base = Path(configured)
        if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
            raise UserInputError(
                f"environment variable {ENV_VAR}: {base} is not a writable directory"
            )
        return base
    if keep or not memory_bounded:
        return None
    return MEMORY_DIR if fits_in_memory(MEMORY_DIR, needed_bytes) else None


def fits_in_memory(base: Path, needed_bytes: int) -> bool:
    """A writable tmpfs that allows executing files (submissions ship scripts and binaries) with
    room for a few copies of the submission plus headroom."""
    try:
        info = os.statvfs(base)
    except OSError:
        return False
    if info.f_flag & (os.ST_NOEXEC | os.ST_RDONLY) or not os.access(base, os.W_OK | os.X_OK):
        return False
    return info.f_bavail * info.f_frsize >= 4 * needed_bytes + HEADROOM_BYTES
