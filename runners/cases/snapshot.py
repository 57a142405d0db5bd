"""A directory tree as it was at one moment, and putting it back.

An isolated group (the default) starts every case from this state, like SCBench's fresh
workspace per case, but in place: files that still hold the snapshot's bytes are left alone,
changed or new ones are rewritten or removed, so a reset of a small tree costs a few system calls.
The same serves the sandbox's scratch directories (runners/cases/fresh.py). Another filesystem
mounted inside the tree (a toolchain under a private /tmp) is left as it is, never walked.
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
    kind: str  # "file", "dir", "link", "mount" (another filesystem: left alone)
    mode: int
    data: bytes = b""
    target: str = ""


class Snapshot:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        info = self.root.stat()
        self.device, self.mode = info.st_dev, stat.S_IMODE(info.st_mode)
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
                    kind = "dir" if info.st_dev == self.device else "mount"
                    self.entries[rel] = _Entry(kind, stat.S_IMODE(info.st_mode))
                elif stat.S_ISREG(info.st_mode):
                    total += info.st_size
                    if total > MAX_SNAPSHOT_BYTES:
                        raise OSError(
                            f"{self.root} is over {MAX_SNAPSHOT_BYTES >> 20} MiB: too big to "
                            "reset between cases"
                        )
                    self.entries[rel] = _Entry(
                        "file", stat.S_IMODE(info.st_mode), path.read_bytes()
                    )
            dirnames[:] = [
                d for d in dirnames if self.entries[_rel(self.root, dirpath, d)].kind == "dir"
            ]

    def adopt(self, path: Path) -> None:
        """Take `path` (a file the case program wrote under the root, and its directories) into the
        snapshot as it is now: later restores put it back as written, not remove it."""
        rel = Path(path).relative_to(self.root)
        for parent in reversed(rel.parents[:-1]):
            if parent.as_posix() not in self.entries:
                self.entries[parent.as_posix()] = _Entry("dir", 0o755)
        info = (self.root / rel).lstat()
        if stat.S_ISREG(info.st_mode):
            self.entries[rel.as_posix()] = _Entry(
                "file", stat.S_IMODE(info.st_mode), (self.root / rel).read_bytes()
            )

    def restore(self) -> None:
        """Make the tree under `root` equal to the snapshot again."""
        _chmod(self.root, self.mode | 0o700, None)
        present = self._present()
        # Remove what is new or changed kind, deepest first.
        for rel in sorted(present, key=lambda r: r.count("/"), reverse=True):
            wanted, found = self.entries.get(rel), present[rel]
            if wanted is not None and wanted.kind == "mount":
                continue
            if wanted is None or wanted.kind != _kind(found.st_mode):
                _remove(self.root / rel, found)
        for rel, entry in self.entries.items():  # parents come before children (walk order)
            path = self.root / rel
            info = present.get(rel)
            if entry.kind == "mount":
                continue
            if entry.kind == "dir":
                if info is None or _kind(info.st_mode) != "dir":
                    path.mkdir(exist_ok=True)
                _chmod(path, entry.mode | 0o700, info)
            elif entry.kind == "link":
                if (
                    info is None
                    or _kind(info.st_mode) != "link"
                    or os.readlink(path) != entry.target
                ):
                    path.unlink(missing_ok=True)
                    os.symlink(entry.target, path)
            elif (
                info is None
                or _kind(info.st_mode) != "file"
                or info.st_size != len(entry.data)
                or not _same(path, entry.data)
            ):
                path.unlink(missing_ok=True)
                path.write_bytes(entry.data)
                path.chmod(entry.mode)
            elif stat.S_IMODE(info.st_mode) != entry.mode:
                path.chmod(entry.mode)
        _chmod(self.root, self.mode, None)

    def _present(self) -> dict[str, os.stat_result]:
        """Everything under the root now, by relative path; a directory the submission made
        unreadable is opened up first (what it holds must be seen to be removed)."""
        present: dict[str, os.stat_result] = {}
        stack = [str(self.root)]
        while stack:
            directory = stack.pop()
            try:
                found = _scan(directory)
            except OSError:
                continue
            for name, path, info in found:
                present[Path(path).relative_to(self.root).as_posix()] = info
                if _walkable(info, self.device):
                    stack.append(path)
        return present


def _scan(directory: str) -> list[tuple[str, str, os.stat_result]]:
    try:
        entries = list(os.scandir(directory))
    except PermissionError:
        os.chmod(directory, 0o700)
        entries = list(os.scandir(directory))
    found = []
    for entry in entries:
        try:
            found.append((entry.name, entry.path, entry.stat(follow_symlinks=False)))
        except OSError:
            continue
    return found


def _rel(root: Path, dirpath: str, name: str) -> str:
    return Path(dirpath, name).relative_to(root).as_posix()


def _walkable(info: os.stat_result | None, device: int) -> bool:
    """A real directory of the same filesystem (never a link, never another mount)."""
    return info is not None and stat.S_ISDIR(info.st_mode) and info.st_dev == device


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


def _chmod(path: Path, mode: int, info: os.stat_result | None) -> None:
    """Put a directory's mode back; one the program does not own (the sandbox's own /tmp/home,
    made by root) is left as it is: the submission cannot change it either."""
    if info is not None and _kind(info.st_mode) == "dir" and stat.S_IMODE(info.st_mode) == mode:
        return
    try:
        path.chmod(mode)
    except PermissionError:
        pass


def _same(path: Path, data: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def _remove(path: Path, info: os.stat_result) -> None:
    try:
        if stat.S_ISDIR(info.st_mode):
            _open_up(path)
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:
        pass


def _open_up(root: Path) -> None:
    """Give the owner access to every directory under `root` (the submission may leave some
    mode 000, deep down), so that all of it can be removed."""
    stack = [str(root)]
    while stack:
        directory = stack.pop()
        try:
            os.chmod(directory, 0o700)
            with os.scandir(directory) as entries:
                stack += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
