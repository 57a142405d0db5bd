"""The submission's workspace as it was before the first case, and putting it back.

An isolated group (the default) starts every case from this state, like SCBench's fresh
workspace per case, but in place: files that still hold the snapshot's bytes are left alone,
changed or new ones are rewritten or removed, so a reset of a small tree costs a few system calls.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class _Entry:
    kind: str  # "file", "dir", "link"
    mode: int
    data: bytes = b""
    target: str = ""


class Snapshot:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.entries: dict[str, _Entry] = {}
        total = 0
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in [*dirnames, *filenames]:
                path = Path(dirpath, name)
                rel = path.relative_to(self.root).as_posix()
                info = path.lstat()
                if stat.S_ISLNK(info.st_mode):
                    self.entries[rel] = _Entry("link", 0, target=os.readlink(path))
                elif stat.S_ISDIR(info.st_mode):
                    self.entries[rel] = _Entry("dir", stat.S_IMODE(info.st_mode))
                elif stat.S_ISREG(info.st_mode):
                    total += info.st_size
                    if total > MAX_SNAPSHOT_BYTES:
                        raise OSError(f"the submission is over {MAX_SNAPSHOT_BYTES >> 20} MiB: too big to reset between cases")
                    self.entries[rel] = _Entry("file", stat.S_IMODE(info.st_mode), path.read_bytes())
            dirnames[:] = [d for d in dirnames if not Path(dirpath, d).is_symlink()]

    def restore(self) -> None:
        """Make the tree under `root` equal to the snapshot again."""
        present: dict[str, os.stat_result] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in [*dirnames, *filenames]:
                path = Path(dirpath, name)
                try:
                    present[path.relative_to(self.root).as_posix()] = path.lstat()
                except OSError:
                    continue
            dirnames[:] = [d for d in dirnames if not Path(dirpath, d).is_symlink()]
        # Remove what is new or changed kind, deepest first.
        for rel in sorted(present, key=lambda r: r.count("/"), reverse=True):
            wanted, found = self.entries.get(rel), present[rel]
            if wanted is None or wanted.kind != _kind(found.st_mode):
                _remove(self.root / rel, found)
        for rel, entry in self.entries.items():  # parents come before children (walk order)
            path = self.root / rel
            info = present.get(rel)
            if entry.kind == "dir":
                if info is None or _kind(info.st_mode) != "dir":
                    path.mkdir(exist_ok=True)
                path.chmod(entry.mode | 0o700)
            elif entry.kind == "link":
                if info is None or _kind(info.st_mode) != "link" or os.readlink(path) != entry.target:
                    path.unlink(missing_ok=True)
                    os.symlink(entry.target, path)
            elif info is None or _kind(info.st_mode) != "file" or info.st_size != len(entry.data) or not _same(path, entry.data):
                path.unlink(missing_ok=True)
                path.write_bytes(entry.data)
                path.chmod(entry.mode)
            elif stat.S_IMODE(info.st_mode) != entry.mode:
                path.chmod(entry.mode)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


def _same(path: Path, data: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def _remove(path: Path, info: os.stat_result) -> None:
    try:
        if stat.S_ISDIR(info.st_mode):
            path.chmod(0o700)
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:
        pass
