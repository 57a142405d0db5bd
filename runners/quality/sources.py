"""Which of a submission's files are measured, and a private copy of them for the tools.

The files come from the submission's inventory (`runners.engine.submission.inventory`: its limits
are checked first, so a 1 GiB or 100,000-file submission is refused before anything is read). Only
regular files with a source extension are taken, never through a link, and within the bounds
below; dependency and build directories are left out. The tools then read a copy holding those
files and nothing else: no configuration file of the submission (pyproject.toml, ruff.toml,
eslint.config.js, .jscpd.json, package.json) is ever next to what they read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from runners.engine.submission import Inventory

MiB = 1024 * 1024
#: Bounds of what is measured: lizard reads about 5 s of Python per MiB on a busy core.
MAX_FILE_BYTES = 1 * MiB  # a larger file is generated or data: left out, and said
MAX_SOURCE_BYTES = 8 * MiB  # more source than this: nothing is measured, and said
MAX_SOURCE_FILES = 5_000

LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
}
#: Directories of installed dependencies, build output and tool caches (beyond the names the
#: inventory already prunes: .git, node_modules, .venv, venv, __pycache__, ...).
SKIPPED_DIRS = frozenset(
    {"site-packages", "dist", "build", "coverage", ".tox", ".nox", ".next", ".eggs", "vendor"}
)


class TooMuchSource(Exception):
    """More source than the bounds allow: the submission is not measured."""


@dataclass
class Sources:
    """The files to measure: relative path -> content, and what was left out."""

    files: dict[str, bytes] = field(default_factory=dict)
    oversized: list[str] = field(default_factory=list)

    def language(self, rel: str) -> str:
        return LANGUAGES[os.path.splitext(rel)[1].lower()]

    def languages(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for rel in self.files:
            counts[self.language(rel)] = counts.get(self.language(rel), 0) + 1
        return dict(sorted(counts.items()))

    def of(self, *languages: str) -> list[str]:
        return [rel for rel in self.files if self.language(rel) in languages]

    def digest(self) -> str:
        """A hash of the paths and contents: equal sources give equal figures."""
        total = hashlib.sha256()
        for rel in sorted(self.files):
            total.update(rel.encode("utf-8", "surrogateescape") + b"\0")
            total.update(hashlib.sha256(self.files[rel]).digest())
        return total.hexdigest()

    def write(self, root: Path) -> Path:
        """The files under `root/src` (a directory the caller owns); returns that directory."""
        src = root / "src"
        for rel, data in self.files.items():
            path = src / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return src


def _measured(rel: str) -> bool:
    parts = rel.split("/")
    if any(part in SKIPPED_DIRS for part in parts[:-1]):
        return False
    name = parts[-1]
    return os.path.splitext(name)[1].lower() in LANGUAGES and not name.endswith(
        (".min.js", ".d.ts")
    )


def select_sources(found: Inventory) -> Sources:
    """Read the source files `found` lists (links never followed). Raises `TooMuchSource`."""
    sources = Sources()
    total = 0
    for entry in found.entries:
        if entry.kind != "f" or not _measured(entry.rel):
            continue
        if entry.size > MAX_FILE_BYTES:
            sources.oversized.append(entry.rel)
            continue
        if len(sources.files) >= MAX_SOURCE_FILES:
            raise TooMuchSource(f"more than {MAX_SOURCE_FILES:,} source files")
        data = _read(found.source / entry.rel, entry.size)
        if data is None:
            continue
        total += len(data)
        if total > MAX_SOURCE_BYTES:
            raise TooMuchSource(f"more than {MAX_SOURCE_BYTES // MiB} MiB of source files")
        sources.files[entry.rel] = data
    return sources


def _read(path: Path, size: int) -> bytes | None:
    """At most `size` bytes of a regular file; None when it is no longer one (or unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], min(size, MAX_FILE_BYTES)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
