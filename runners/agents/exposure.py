"""Whether a directory handed to an agent (a mount, its home template) holds a copy of what it
must never see: the problem's hidden tests, their data, the reference solutions, later
specifications.

Comparing paths (runners.agents.spec.refuse_exposure) catches the problem directory itself, not
a copy of it elsewhere: mounting another checkout of the problems showed an agent its hidden
tests. So contents are compared: every file of the problem (but its `starter/`, which the agent
starts from, and files too small to carry anything) against every file under the directory, by
size first (a stat each) and by SHA-256 where the sizes match. Bounded: a directory of more than
MAX_ENTRIES entries is refused as too large to check rather than trusted unchecked.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from runners.model.config import ProblemConfig
from runners.model.errors import UserInputError

MIN_BYTES = 32  # an empty `__init__.py`, a one-line marker: everywhere, and give nothing away
MAX_ENTRIES = 200_000
SEEN_BY_THE_AGENT = ("starter",)  # the problem's files the agent is given anyway
NEVER_WALKED = (".git", ".hg", ".svn", "__pycache__")


@dataclass
class HiddenFiles:
    """The problem's files an agent must not see, by size, with their digests once needed."""

    by_size: dict[int, list[Path]] = field(default_factory=lambda: defaultdict(list))
    digests: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: ProblemConfig) -> HiddenFiles:
        hidden = cls()
        roots = [
            problem.path,
            *(p for p in problem.asset_paths().values() if not _inside(p, problem.path)),
        ]
        for root in roots:
            for path, info in _files(root, skip=SEEN_BY_THE_AGENT if root == problem.path else ()):
                if info.st_size >= MIN_BYTES:
                    hidden.by_size[info.st_size].append(path)
        return hidden

    def copy_of(self, path: Path, size: int) -> Path | None:
        """The hidden file `path` is a copy of, if any."""
        candidates = self.by_size.get(size)
        if not candidates:
            return None
        digest = _digest(path)
        for hidden in candidates:
            if hidden not in self.digests:
                self.digests[hidden] = _digest(hidden)
            if self.digests[hidden] == digest:
                return hidden
        return None


def refuse_copies(
    directories: dict[str, str],
    problem: ProblemConfig,
    where: str,
    hidden: HiddenFiles | None = None,
) -> None:
    """UserInputError naming the field and both files when one of `directories` (field ->
    path) holds a copy of a hidden file of `problem`, or is too large to check."""
    hidden = hidden or HiddenFiles.of(problem)
    for field_name, text in directories.items():
        root = Path(text)
        for count, (path, info) in enumerate(_files(root), start=1):
            if count > MAX_ENTRIES:
                raise UserInputError(
                    f"{where}: field `{field_name}`: {root} holds over {MAX_ENTRIES:,} entries, "
                    "too many to check that none is a copy of the problem's hidden files; mount a "
                    "smaller directory"
                )
            original = hidden.copy_of(path, info.st_size)
            if original is not None:
                raise UserInputError(
                    f"{where}: field `{field_name}`: {path} is a copy of {original} (the problem's "
                    f"hidden tests or their data, which the agent must never see); give it a "
                    "directory of its own"
                )


def _files(root: Path, skip: tuple[str, ...] = ()) -> Iterator[tuple[Path, os.stat_result]]:
    """Regular files under `root` (links never followed), with their stat."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name in NEVER_WALKED or (directory == root and entry.name in skip):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                stack.append(Path(entry.path))
            elif stat.S_ISREG(info.st_mode):
                yield Path(entry.path), info


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                sha.update(chunk)
    except OSError:
        return f"unreadable:{path}"
    return sha.hexdigest()


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False
