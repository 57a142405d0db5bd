"""Cells of a batch: one agent's submission for one checkpoint of one problem.

```
<submissions>/<agent>/<problem>/<checkpoint>/      a cell, when <problems>/<problem>/config.yaml
                                                   exists and names <checkpoint>
```

Also the content hashes that decide whether a finished cell is still current, and the archives
that ship a problem or a submission to a machine that cannot see the driver's files (Ray). Hash
and archive walk the same files, so what is hashed is exactly what a run can see.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import stat
import tarfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runners.engine.submission import data_segments
from runners.engine.workspace import SUBMISSION_IGNORE
from runners.model.config import CONFIG_FILE, ProblemConfig
from runners.model.errors import UserInputError
from runners.model.problem_loader import load_problem
from runners.util.suggest import did_you_mean

#: Never part of a problem's identity: caches and installed toolchains (prepared from the
#: problem's package.json / test_dependencies, which *are* hashed).
PROBLEM_IGNORE = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    "*.pyc",
    "node_modules",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".venv",
    "venv",
)
HASH_VERSION = 1
HASH_CONTENT_MAX = 8 << 30  # bytes: bigger files are hashed by metadata (far over any sane limit)


@dataclass(frozen=True)
class Cell:
    """One evaluation of a batch. `problem` is the problem's directory name (as in the tree of
    submissions); `order` is the checkpoint's position in the problem, for sorting."""

    agent: str
    problem: str
    checkpoint: str
    problem_dir: Path
    submission_dir: Path
    order: int = 0

    @property
    def id(self) -> str:
        return f"{self.agent}/{self.problem}/{self.checkpoint}"

    @classmethod
    def of(
        cls,
        problem_dir: Path | str,
        checkpoint: str,
        submission_dir: Path | str,
        agent: str = "agent",
    ) -> Cell:
        """A cell outside any batch tree (e.g. one Promptfoo row)."""
        problem_dir = Path(problem_dir).resolve()
        return cls(
            agent=agent,
            problem=problem_dir.name,
            checkpoint=checkpoint,
            problem_dir=problem_dir,
            submission_dir=Path(submission_dir).resolve(),
        )

    def sort_key(self) -> tuple[str, str, int, str]:
        return (self.agent, self.problem, self.order, self.checkpoint)


@dataclass
class Discovery:
    """What a submissions tree holds, checked against a problems directory."""

    cells: list[Cell]
    problems: dict[str, ProblemConfig]  # problem dir name -> config (those with cells)
    agents: list[str]
    notes: list[str] = field(default_factory=list)  # unknown problems/checkpoints, skipped entries
    missing: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # no submission dir


def _visible_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def discover(
    problems_root: Path,
    submissions_root: Path,
    *,
    agents: Sequence[str] = (),
    problems: Sequence[str] = (),
) -> Discovery:
    """Every `<agent>/<problem>/<checkpoint>/` under `submissions_root` whose problem is in
    `problems_root`. Unknown problems and checkpoints are noted, not fatal; an invalid problem
    config that has submissions raises `ConfigError` (bad input). `agents`/`problems` filter."""
    problems_root = Path(problems_root).resolve()
    submissions_root = Path(submissions_root).resolve()
    if not problems_root.is_dir():
        raise UserInputError(f"option --problems: {problems_root} is not a directory")
    if not submissions_root.is_dir():
        raise UserInputError(f"option --submissions: {submissions_root} is not a directory")
    known = {p.name: p for p in _visible_dirs(problems_root) if (p / CONFIG_FILE).is_file()}
    if not known:
        raise UserInputError(f"option --problems: {problems_root} has no <problem>/{CONFIG_FILE}")
    agent_dirs = _visible_dirs(submissions_root)
    for flag, wanted, names in (
        ("--agent", agents, {a.name for a in agent_dirs}),
        ("--problem", problems, set(known)),
    ):
        unknown = sorted(set(wanted) - names)
        if unknown:
            raise UserInputError(
                f"option {flag}: unknown "
                f"{', '.join(repr(u) + did_you_mean(u, names) for u in unknown)} (known: "
                f"{', '.join(sorted(names)) or 'none'})"
            )
    if agents:
        agent_dirs = [a for a in agent_dirs if a.name in agents]

    loaded: dict[str, ProblemConfig] = {}
    cells: list[Cell] = []
    notes: list[str] = []
    seen_agents: list[str] = []
    missing: dict[tuple[str, str], list[str]] = {}
    unknown_problems: dict[str, list[str]] = {}
    for agent_dir in agent_dirs:
        for problem_sub in _visible_dirs(agent_dir):
            name = problem_sub.name
            if problems and name not in problems:
                continue
            if name not in known:
                unknown_problems.setdefault(name, []).append(agent_dir.name)
                continue
            if name not in loaded:
                loaded[name] = load_problem(known[name])  # ConfigError: bad input, exit 2
            config = loaded[name]
            found = False
            for checkpoint_dir in _visible_dirs(problem_sub):
                checkpoint = config.checkpoints.get(checkpoint_dir.name)
                if checkpoint is None:
                    notes.append(
                        f"{agent_dir.name}/{name}/{checkpoint_dir.name}: problem {name!r} "
                        f"has no checkpoint {checkpoint_dir.name!r}"
                        f"{did_you_mean(checkpoint_dir.name, config.checkpoints)} "
                        f"(known: {', '.join(config.checkpoints)}); skipped"
                    )
                    continue
                found = True
                cells.append(
                    Cell(
                        agent=agent_dir.name,
                        problem=name,
                        checkpoint=checkpoint.name,
                        problem_dir=config.path,
                        submission_dir=checkpoint_dir.resolve(),
                        order=checkpoint.order or 0,
                    )
                )
            if found:
                if agent_dir.name not in seen_agents:
                    seen_agents.append(agent_dir.name)
                have = {
                    c.checkpoint for c in cells if c.agent == agent_dir.name and c.problem == name
                }
                absent = [cp.name for cp in config.ordered_checkpoints() if cp.name not in have]
                if absent:
                    missing[(agent_dir.name, name)] = absent
    for name, who in sorted(unknown_problems.items()):
        notes.insert(
            0,
            f"unknown problem {name!r}{did_you_mean(name, known)} (no "
            f"{problems_root / name / CONFIG_FILE}); skipped for {', '.join(who)}",
        )
    cells.sort(key=Cell.sort_key)
    used = {c.problem for c in cells}
    return Discovery(
        cells=cells,
        problems={k: v for k, v in loaded.items() if k in used},
        agents=seen_agents,
        notes=notes,
        missing=missing,
    )


# ---- walking, hashing, packing ------------------------------------------------------------------


def _ignored(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def walk_tree(root: Path, ignore: Sequence[str]) -> Iterator[tuple[str, os.stat_result, Path]]:
    """(relative posix path, lstat, path) of every directory, regular file and symlink under
    `root`, sorted, never following links; names matching `ignore` are pruned (files and dirs,
    like `shutil.ignore_patterns`); FIFOs, sockets and devices are left out."""
    root = Path(root)
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        base = root / rel_dir if rel_dir else root
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        subdirs = []
        for name in names:
            if _ignored(name, ignore):
                continue
            path = base / name
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                yield rel, info, path
                subdirs.append(rel)
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                yield rel, info, path
        stack.extend(reversed(subdirs))


def tree_hash(root: Path, ignore: Sequence[str]) -> str:
    """sha256 over names, kinds, the executable bit, link targets and file contents."""
    digest = hashlib.sha256(f"runners-tree-v{HASH_VERSION}\0".encode())
    for rel, info, path in walk_tree(root, ignore):
        if stat.S_ISDIR(info.st_mode):
            digest.update(f"D {rel}\0".encode())
        elif stat.S_ISLNK(info.st_mode):
            digest.update(f"L {rel}\0{os.readlink(path)}\0".encode())
        else:
            executable = "x" if info.st_mode & 0o111 else "-"
            digest.update(f"F {rel} {executable} {info.st_size}\0".encode())
            _hash_content(digest, path, info)
    return digest.hexdigest()


def _hash_content(digest: hashlib._Hash, path: Path, info: os.stat_result) -> None:
    """A file's data into `digest`. Holes are skipped (a 64 GiB sparse file hashes in no time) and
    a file too big for any submission limit is identified by its metadata instead of being read:
    such a cell is refused by the run anyway, and hashing must not take minutes first."""
    if info.st_size > HASH_CONTENT_MAX:
        digest.update(f"too big to read: {info.st_mtime_ns} {info.st_ino}\0".encode())
        return
    sparse = info.st_blocks * 512 < info.st_size
    with open(path, "rb") as handle:
        segments = data_segments(handle.fileno(), info.st_size) if sparse else [(0, info.st_size)]
        for start, end in segments:
            if sparse:  # where each data segment starts (ordinary files hash as they always did)
                digest.update(f"@{start}\0".encode())
            handle.seek(start)
            left = end - start
            while left > 0:
                chunk = handle.read(min(1 << 20, left))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)


def problem_hash(problem_dir: Path) -> str:
    """Identity of everything a problem's grading depends on: config.yaml, tests/, assets,
    dependency manifests (and the spec files, which are cheap to include)."""
    return tree_hash(problem_dir, PROBLEM_IGNORE)


def submission_hash(submission_dir: Path) -> str:
    """Identity of a submission as the workspace copies it (same ignore list)."""
    return tree_hash(submission_dir, SUBMISSION_IGNORE)


def pack_tree(root: Path, ignore: Sequence[str]) -> bytes:
    """An uncompressed tar of `root` (the files `walk_tree` yields), for shipping to a worker."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel, info, path in walk_tree(root, ignore):
            member = tarfile.TarInfo(rel)
            member.mtime = int(info.st_mtime)
            member.mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISDIR(info.st_mode):
                member.type = tarfile.DIRTYPE
                tar.addfile(member)
            elif stat.S_ISLNK(info.st_mode):
                member.type = tarfile.SYMTYPE
                member.linkname = os.readlink(path)
                tar.addfile(member)
            else:
                member.size = info.st_size
                with open(path, "rb") as handle:
                    tar.addfile(member, handle)
    return buffer.getvalue()


def pack_problem(problem_dir: Path) -> bytes:
    return pack_tree(problem_dir, PROBLEM_IGNORE)


def pack_submission(submission_dir: Path) -> bytes:
    return pack_tree(submission_dir, SUBMISSION_IGNORE)


def unpack_tree(data: bytes, target: Path) -> Path:
    """Extract an archive from `pack_tree` into `target` (created). Member paths that are absolute
    or leave `target` (also through a link) are refused; links themselves are kept as links."""
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        tar.extractall(target, filter="tar")
    return target


def content_hashes(
    cells: Sequence[Cell], on_each: Callable[[Cell], None] | None = None
) -> dict[str, dict[str, str]]:
    """{cell id: {"problem": hash, "submission": hash}}; each problem is hashed once."""
    problems: dict[Path, str] = {}
    hashes: dict[str, dict[str, str]] = {}
    for cell in cells:
        if cell.problem_dir not in problems:
            problems[cell.problem_dir] = problem_hash(cell.problem_dir)
        hashes[cell.id] = {
            "problem": problems[cell.problem_dir],
            "submission": submission_hash(cell.submission_dir),
        }
        if on_each:
            on_each(cell)
    return hashes
