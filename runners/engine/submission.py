"""Sizing and copying a submission: its limits are checked before anything is copied.

A submission is a directory an agent wrote; it may hold a 64 GiB sparse file or a million tiny
ones. `inventory()` walks it once (`os.scandir`, links never followed, the ignored names pruned,
stopping at the first limit exceeded) and raises `SubmissionTooLarge` naming the limit, what was
found and the largest entries. `copy_inventory()` then copies exactly what was listed: holes stay
holes (SEEK_DATA/SEEK_HOLE), data moves in the kernel (`copy_file_range`), and a deadline (the
run's wall clock) is checked as it goes.
"""

from __future__ import annotations

import errno
import fnmatch
import heapq
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from runners.model.errors import InfrastructureError, UserInputError
from runners.model.limits import DEFAULT_LIMITS, ResourceLimits

MiB = 1024 * 1024
SMALL = MiB  # smaller files: one read and one write (cheaper than copy_file_range for tiny files)
CHUNK = 64 * MiB  # bytes per copy_file_range call: the deadline is checked between chunks
SHOWN = 5  # largest entries named in an error

# The submission limits: (field of ResourceLimits, what it counts, command-line option).
LIMIT_TEXT = {
    "submission_mb": ("apparent size (the sum of file sizes)", "--max-submission-mb"),
    "submission_disk_mb": ("size allocated on disk", "--max-submission-disk-mb"),
    "submission_files": ("files, directories and links", "--max-submission-files"),
    "submission_depth": ("directory depth", "--max-submission-depth"),
}


class SubmissionTooLarge(UserInputError):
    """The submission exceeds one of its limits; nothing was copied."""

    def __init__(
        self, source: Path, limit: str, found: str, allowed: str, largest: list[str]
    ) -> None:
        self.limit, self.largest = limit, largest
        what, option = LIMIT_TEXT[limit]
        head = (
            f"option --submission: {source} is too large: {what} {found}, over the limit of "
            f"{allowed} (limit `{limit}`; raise it with {option}, `limits: {{{limit}: N}}` in the "
            "problem's config.yaml, or EnvironmentSpec.limits)"
        )
        lines = [head]
        if largest:
            lines.append("largest entries:")
            lines += [f"  {entry}" for entry in largest]
        super().__init__("\n".join(lines))


class CopyTimeout(InfrastructureError):
    """The wall clock ran out while the submission was being copied."""


# A file system that is full (or over its quota): the machine's to fix, never the submission's.
FULL = (errno.ENOSPC, errno.EDQUOT)


def is_full(exc: OSError) -> bool:
    """Whether `exc` says a file system is full; shutil.copytree gathers its errors as text."""
    if exc.errno in FULL:
        return True
    errors = (
        exc.args[0]
        if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list)
        else []
    )
    return any(f"[Errno {code}]" in str(error) for error in errors for code in FULL)


def no_space(exc: OSError, where: Path | str, doing: str) -> InfrastructureError:
    """The infrastructure failure for a full file system under `where` while `doing`."""
    try:
        info = os.statvfs(where)
        free, total = (n * info.f_frsize / (1 << 20) for n in (info.f_bavail, info.f_blocks))
        left = f"{free:.1f} MiB free of {total:.1f} MiB"
    except OSError:
        left = "free space unknown"
    return InfrastructureError(
        f"no space left on the file system of {where} ({left}) while {doing}: "
        f"{exc.strerror}; free some space, or put the workspaces elsewhere "
        "(RUNNERS_WORKSPACE_DIR)"
    )


@dataclass(frozen=True)
class Entry:
    rel: str
    kind: str  # "d" directory, "f" regular file, "l" symlink
    mode: int = 0
    size: int = 0
    mtime_ns: int = 0
    atime_ns: int = 0


@dataclass
class Inventory:
    """What will be copied, in an order where every directory precedes its content."""

    source: Path
    entries: list[Entry] = field(default_factory=list)
    apparent: int = 0
    allocated: int = 0
    depth: int = 0
    skipped: list[str] = field(default_factory=list)  # FIFOs, sockets, devices: never opened


def submission_limits(limits: ResourceLimits) -> dict[str, int]:
    """The four submission limits (defaults where `limits` leaves them unset)."""
    merged = limits.merged_over(DEFAULT_LIMITS)
    return {name: int(getattr(merged, name)) for name in LIMIT_TEXT}


def _ignore_rule(patterns: tuple[str, ...]):
    exact = {p for p in patterns if not any(c in p for c in "*?[")}
    wild = [p for p in patterns if p not in exact]
    return lambda name: name in exact or any(fnmatch.fnmatchcase(name, p) for p in wild)


def inventory(source: Path, limits: ResourceLimits, ignore: tuple[str, ...] = ()) -> Inventory:
    """List the submission at `source` (names matching `ignore` pruned) and check its limits.

    Stops at the first limit exceeded (so a huge tree costs no more than the limit) and raises
    `SubmissionTooLarge`. Symlinks are listed as links, never followed.
    """
    source = Path(source)
    caps = submission_limits(limits)
    max_apparent, max_allocated = caps["submission_mb"] * MiB, caps["submission_disk_mb"] * MiB
    max_entries, max_depth = caps["submission_files"], caps["submission_depth"]
    ignored = _ignore_rule(ignore)
    found = Inventory(source=source)
    biggest: list[tuple[int, str, int, int]] = []  # a min-heap of the SHOWN largest files
    per_dir: dict[str, int] = {}
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        rel_dir, depth = stack.pop()
        try:
            with os.scandir(source / rel_dir if rel_dir else source) as listing:
                children = list(listing)
        except OSError as exc:
            raise UserInputError(
                f"option --submission: cannot read {source / rel_dir}: {exc.strerror}"
            ) from None
        subdirs: list[tuple[str, int]] = []
        for child in children:
            if ignored(child.name):
                continue
            rel = f"{rel_dir}/{child.name}" if rel_dir else child.name
            info = child.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                kind = "d"
                subdirs.append((rel, depth + 1))
            elif stat.S_ISREG(info.st_mode):
                kind = "f"
                found.apparent += info.st_size
                found.allocated += info.st_blocks * 512
                weight = max(info.st_size, info.st_blocks * 512)
                item = (weight, rel, info.st_size, info.st_blocks * 512)
                if len(biggest) < SHOWN:
                    heapq.heappush(biggest, item)
                elif weight > biggest[0][0]:
                    heapq.heapreplace(biggest, item)
            elif stat.S_ISLNK(info.st_mode):
                kind = "l"
            else:
                found.skipped.append(rel)
                continue
            found.entries.append(
                Entry(
                    rel,
                    kind,
                    stat.S_IMODE(info.st_mode),
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_atime_ns,
                )
            )
            per_dir[rel_dir or "."] = per_dir.get(rel_dir or ".", 0) + 1
            found.depth = max(found.depth, depth + 1)
            if found.apparent > max_apparent:
                raise SubmissionTooLarge(
                    source,
                    "submission_mb",
                    _size(found.apparent) + " or more",
                    f"{caps['submission_mb']:,} MiB",
                    _largest(biggest),
                )
            if found.allocated > max_allocated:
                raise SubmissionTooLarge(
                    source,
                    "submission_disk_mb",
                    _size(found.allocated) + " or more",
                    f"{caps['submission_disk_mb']:,} MiB",
                    _largest(biggest),
                )
            if len(found.entries) > max_entries:
                crowded = sorted(per_dir.items(), key=lambda item: -item[1])[:SHOWN]
                raise SubmissionTooLarge(
                    source,
                    "submission_files",
                    f"{len(found.entries):,} or more",
                    f"{max_entries:,}",
                    [f"{count} entries in {name}/" for name, count in crowded],
                )
            if depth + 1 > max_depth:
                shown = rel if len(rel) <= 200 else f"{rel[:90]}...{rel[-90:]}"
                raise SubmissionTooLarge(
                    source,
                    "submission_depth",
                    f"{depth + 1} or more",
                    str(max_depth),
                    [f"deepest: {shown}"],
                )
        stack.extend(reversed(subdirs))  # depth first, in listing order
    return found


def _largest(biggest: list[tuple[int, str, int, int]]) -> list[str]:
    return [
        f"{rel}: {_size(size)} ({_size(allocated)} on disk)"
        for _, rel, size, allocated in sorted(biggest, reverse=True)
    ]


def _size(size: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return str(size)


# ---- the copy ------------------------------------------------------------------------------------


def copy_inventory(found: Inventory, target: Path, deadline: float | None = None) -> list[str]:
    """Copy what `found` lists into the new directory `target`. Returns the special files that
    were left out (also those that became special since the walk). Raises `CopyTimeout` past
    `deadline` (time.monotonic()); an InfrastructureError when the target's file system is full."""
    try:
        return _copy_inventory(found, target, deadline)
    except OSError as exc:
        if is_full(exc):
            size = f"{found.allocated / (1 << 20):.1f} MiB"
            raise no_space(exc, target.parent, f"copying {found.source} ({size})") from None
        raise


def _copy_inventory(found: Inventory, target: Path, deadline: float | None) -> list[str]:
    source = found.source
    os.mkdir(target, 0o755)
    skipped = list(found.skipped)
    directories: list[tuple[str, Entry]] = []
    for entry in found.entries:
        if deadline is not None and time.monotonic() > deadline:
            raise CopyTimeout(
                f"the wall clock ran out while copying the submission "
                f"({len(directories)} directories and files so far)"
            )
        src, dst = os.path.join(source, entry.rel), os.path.join(target, entry.rel)
        if entry.kind == "d":
            os.mkdir(dst, 0o700)
            directories.append((dst, entry))
        elif entry.kind == "l":
            os.symlink(os.readlink(src), dst)
        elif not _copy_file(src, dst, entry, deadline):
            skipped.append(entry.rel)
    for dst, entry in reversed(directories):  # modes last: a read-only directory is still filled
        os.chmod(dst, (entry.mode & 0o777) | 0o700)
        os.utime(dst, ns=(entry.atime_ns, entry.mtime_ns), follow_symlinks=False)
    return skipped


def _copy_file(src: str, dst: str, entry: Entry, deadline: float | None) -> bool:
    """False when `src` is no longer a regular file (never opened for reading then)."""
    try:
        fd_in = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # replaced by a link since the walk
            return False
        raise
    try:
        info = os.fstat(fd_in)
        if not stat.S_ISREG(info.st_mode):
            return False
        mode = entry.mode & 0o777  # no set-id bits in a copy
        fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            size = min(info.st_size, entry.size)  # never more than the walk counted
            sparse = info.st_blocks * 512 < size
            if 0 < size <= SMALL and not sparse:
                data = os.read(fd_in, size)
                os.write(fd_out, data)
            elif size:
                _copy_data(fd_in, fd_out, size, sparse, deadline)
            os.fchmod(fd_out, mode)
            os.utime(fd_out, ns=(entry.atime_ns, entry.mtime_ns))
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    return True


def _copy_data(fd_in: int, fd_out: int, size: int, sparse: bool, deadline: float | None) -> None:
    """Copy [0, size): only the data segments of a sparse file, then extend it to `size`."""
    segments = data_segments(fd_in, size) if sparse else [(0, size)]
    for start, end in segments:
        offset = start
        while offset < end:
            if deadline is not None and time.monotonic() > deadline:
                raise CopyTimeout("the wall clock ran out while copying the submission")
            done = _copy_range(fd_in, fd_out, offset, min(CHUNK, end - offset))
            if done == 0:  # the file shrank since the walk: the rest stays a hole
                break
            offset += done
    os.ftruncate(fd_out, size)


def data_segments(fd: int, size: int) -> list[tuple[int, int]]:
    segments = []
    offset = 0
    while offset < size:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole from here to the end
                break
            return [(0, size)]  # no SEEK_DATA on this file system: copy everything
        if start >= size:
            break
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        segments.append((start, end))
        offset = end
    return segments


def _copy_range(fd_in: int, fd_out: int, offset: int, count: int) -> int:
    """Copy up to `count` bytes at `offset` (same offset in both); returns bytes copied."""
    try:
        done = os.copy_file_range(fd_in, fd_out, count, offset, offset)
    except OSError as exc:
        if exc.errno not in (
            errno.EXDEV,
            errno.ENOSYS,
            errno.EINVAL,
            errno.EOPNOTSUPP,
            errno.EPERM,
        ):
            raise
        data = os.pread(fd_in, min(count, 8 * MiB), offset)
        done = os.pwrite(fd_out, data, offset) if data else 0
    return done
