"""Input files written into the workspace before a case, and tracked files read back after it.

`InputFile` keeps SCBench's shape (`path`, `content`, `file_type`, `compression`) and its
`from_path`/`from_absolute`/`resolve_suffix` helpers, which problem loaders call. One deliberate
difference: BINARY content given as text is base64-*decoded* when written (SCBench writes the
base64 encoding of its repr); bytes are written as they are in both.
"""

from __future__ import annotations

import base64
import bz2
import csv
import glob
import gzip
import io
import json
import os
import sqlite3
from enum import Enum
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict

from . import bounded_yaml


class FileType(Enum):
    TEXT = "text"
    BINARY = "binary"
    JSON = "json"
    JSONL = "jsonl"
    CSV = "csv"
    TSV = "tsv"
    SQLITE = "sqlite"
    PARQUET = "parquet"
    YAML = "yaml"


class Compression(Enum):
    NONE = "none"
    GZIP = "gzip"
    BZIP2 = "bzip2"


class FileSignature(NamedTuple):
    file_type: FileType
    compression: Compression


class InputFileReadError(Exception):
    pass


class InputFileWriteError(Exception):
    pass


_BASE = {
    ".txt": FileType.TEXT,
    ".md": FileType.TEXT,
    ".py": FileType.TEXT,
    ".js": FileType.TEXT,
    ".html": FileType.TEXT,
    ".css": FileType.TEXT,
    ".xml": FileType.TEXT,
    ".json": FileType.JSON,
    ".jsonl": FileType.JSONL,
    ".ndjson": FileType.JSONL,
    ".csv": FileType.CSV,
    ".tsv": FileType.TSV,
}
_COMPRESSED = {".gz": Compression.GZIP, ".bz2": Compression.BZIP2}
SUFFIXES: dict[str, FileSignature] = {
    suffix: FileSignature(kind, Compression.NONE) for suffix, kind in _BASE.items()
}
SUFFIXES.update(
    {
        f"{suffix}{extra}": FileSignature(kind, comp)
        for suffix, kind in _BASE.items()
        for extra, comp in _COMPRESSED.items()
    }
)
SUFFIXES.update(
    {
        ".yaml": FileSignature(FileType.YAML, Compression.NONE),
        ".yml": FileSignature(FileType.YAML, Compression.NONE),
        ".parquet": FileSignature(FileType.PARQUET, Compression.NONE),
    }
)
SUFFIXES.update(
    {s: FileSignature(FileType.SQLITE, Compression.NONE) for s in (".sqlite", ".sqlite3", ".db")}
)
SUFFIXES.update(
    {
        s: FileSignature(FileType.BINARY, Compression.NONE)
        for s in (".bin", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2")
    }
)


def detect_file_signature(path: Path | str) -> FileSignature:
    suffixes = [s.lower() for s in PurePosixPath(str(path)).suffixes]
    for candidate in ("".join(suffixes[-2:]), "".join(suffixes[-1:])):
        if candidate and candidate in SUFFIXES:
            return SUFFIXES[candidate]
    return FileSignature(FileType.TEXT, Compression.NONE)


class InputFile(BaseModel):
    """A file a case needs in the workspace; `path` is relative to the workspace."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    content: Any
    file_type: FileType
    compression: Compression = Compression.NONE

    @staticmethod
    def resolve_suffix(
        path: Path | str,
        file_type: FileType | str | None = None,
        compression: Compression | str | None = None,
    ) -> tuple[FileType, Compression]:
        found = detect_file_signature(path)
        kind = FileType(file_type) if file_type is not None else found.file_type
        comp = Compression(compression) if compression is not None else found.compression
        return kind, comp

    @classmethod
    def from_path(
        cls,
        path: Path | str,
        content: Any = None,
        file_type: FileType | str | None = None,
        compression: Compression | str | None = None,
        relative_to: Path | str | None = None,
    ) -> InputFile:
        path = Path(path)
        kind, comp = cls.resolve_suffix(path, file_type, compression)
        if content is None:
            # SCBench reads `path` itself when it exists, else under `relative_to`; its harness
            # never runs in the workspace, ours does: a relative path with `relative_to` is read
            # there only, never from the previous case's leftovers (or the submission's files) in
            # the cwd.
            if relative_to is not None and not path.is_absolute():
                source: Path | None = Path(relative_to) / path
            else:
                source = (
                    path if path.exists() else (Path(relative_to) / path if relative_to else None)
                )
            if source is None or not source.exists():
                raise ValueError(f"input file {path} not found (relative to {relative_to})")
            content = read_content(source, kind, comp)
        stored = path.relative_to(relative_to) if path.is_absolute() and relative_to else path
        return cls(path=stored, content=content, file_type=kind, compression=comp)

    @classmethod
    def from_absolute(
        cls,
        path: Path | str,
        save_path: Path | str,
        content: Any = None,
        file_type: FileType | str | None = None,
        compression: Compression | str | None = None,
    ) -> InputFile:
        kind, comp = cls.resolve_suffix(path, file_type, compression)
        if content is None:
            content = read_content(Path(path), kind, comp)
        return cls(path=Path(save_path), content=content, file_type=kind, compression=comp)


def _open_read(path: Path, compression: Compression) -> bytes:
    if compression is Compression.GZIP:
        return gzip.decompress(path.read_bytes())
    if compression is Compression.BZIP2:
        return bz2.decompress(path.read_bytes())
    return path.read_bytes()


def read_content(path: Path, kind: FileType, compression: Compression = Compression.NONE) -> Any:
    """A file's content as a loader wants it: text, bytes, parsed JSON/YAML, rows."""
    try:
        data = _open_read(path, compression)
        if kind is FileType.BINARY:
            return data
        if kind is FileType.SQLITE:
            return _read_sqlite(path)
        if kind is FileType.PARQUET:
            import pyarrow.parquet as pq  # only parquet files pay for it

            return pq.read_table(io.BytesIO(data)).to_pylist()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if kind is FileType.TEXT:
                return data
            raise
        if kind is FileType.JSON:
            return json.loads(text)
        if kind is FileType.JSONL:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        if kind in (FileType.CSV, FileType.TSV):
            return list(
                csv.DictReader(io.StringIO(text), delimiter="\t" if kind is FileType.TSV else ",")
            )
        if kind is FileType.YAML:
            return bounded_yaml.load(text)
        return text
    except (OSError, ValueError, yaml.YAMLError, sqlite3.Error) as exc:
        raise InputFileReadError(f"{path}: cannot be read as {kind.value}: {exc}") from None


def _read_sqlite(path: Path) -> dict[str, Any]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {"tables": {n: [dict(r) for r in db.execute(f'SELECT * FROM "{n}"')] for n in names}}


def render_content(file: InputFile) -> bytes:
    """The bytes `file` is written as (before compression)."""
    content, kind = file.content, file.file_type
    if isinstance(content, bytes):
        return content
    if kind is FileType.BINARY:
        return base64.b64decode(str(content))
    if kind is FileType.JSON:
        return (
            content
            if isinstance(content, str)
            else json.dumps(content, indent=2, ensure_ascii=False)
        ).encode()
    if kind is FileType.JSONL:
        rows = content if isinstance(content, list) else [content]
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    if kind in (FileType.CSV, FileType.TSV):
        return _csv(content, "\t" if kind is FileType.TSV else ",").encode()
    if kind is FileType.YAML:
        return (content if isinstance(content, str) else yaml.safe_dump(content)).encode()
    if kind is FileType.PARQUET:
        return _parquet(file.path, content)
    if kind is FileType.SQLITE:
        raise InputFileWriteError(f"{file.path}: writing {kind.value} input files is not supported")
    return str(content).encode()


def _parquet(path: object, content: Any) -> bytes:
    """Rows (a list of dicts) as SCBench writes them: pyarrow, zstd level 10."""
    import pyarrow as pa  # only parquet files pay for it
    import pyarrow.parquet as pq

    if not isinstance(content, list):
        raise InputFileWriteError(
            f"{path}: parquet content must be a list of rows, got {type(content).__name__}"
        )
    sink = io.BytesIO()
    try:
        pq.write_table(
            pa.Table.from_pylist(content), sink, compression="zstd", compression_level=10
        )
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputFileWriteError(f"{path}: cannot be written as parquet: {exc}") from None
    return sink.getvalue()


def _csv(content: Any, delimiter: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content)
    if not isinstance(content, list):
        raise InputFileWriteError(f"CSV content must be rows, got {type(content).__name__}")
    out = io.StringIO()
    if content and isinstance(content[0], dict):
        writer = csv.DictWriter(
            out, fieldnames=list(content[0]), delimiter=delimiter, lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(content)
    else:
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(content)
    return out.getvalue()


def safe_target(root: Path, relative: Path | str) -> Path:
    """`root/relative`, refusing absolute paths, `..` and symlinked directories on the way (the
    workspace belongs to the submission, which may have planted links)."""
    rel = PurePosixPath(str(relative))
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise InputFileWriteError(
            f"input file path {str(relative)!r} must be relative to the workspace, without '..'"
        )
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        if current.is_symlink():
            current.unlink()
        current.mkdir(exist_ok=True)
    target = current / rel.parts[-1]
    if target.is_symlink() or target.is_file():
        target.unlink()
    return target


def materialize_input_files(files: list[InputFile], cwd: Path | str) -> None:
    for file in files:
        data = render_content(file)
        if file.compression is Compression.GZIP:
            data = gzip.compress(data)
        elif file.compression is Compression.BZIP2:
            data = bz2.compress(data)
        try:
            safe_target(Path(cwd), file.path).write_bytes(data)
        except OSError as exc:
            raise InputFileWriteError(f"{file.path}: cannot be written ({exc.strerror})") from None


def collect_tracked(
    root: Path, patterns: list[str], max_bytes: int = 8 * 1024 * 1024
) -> dict[str, Any]:
    """Files matching `patterns` (paths or globs, relative to `root`), directories expanded:
    relative POSIX path -> text, or bytes when not UTF-8. Links are never followed."""
    found: dict[str, Any] = {}
    root_real = os.path.realpath(root)
    for pattern in sorted(set(patterns)):
        cleaned = _relative_pattern(pattern)
        if not cleaned:
            continue
        if any(ch in cleaned for ch in "*?["):
            matches = sorted(glob.glob(cleaned, root_dir=root, recursive=True))
        else:
            matches = [cleaned]
        for match in matches:
            path = root / match
            if path.is_symlink() or not os.path.realpath(path).startswith(root_real + os.sep):
                continue
            if path.is_dir():
                for sub in sorted(path.rglob("*")):
                    if sub.is_file() and not sub.is_symlink():
                        found[sub.relative_to(root).as_posix()] = _read_tracked(sub, max_bytes)
            elif path.is_file():
                found[path.relative_to(root).as_posix()] = _read_tracked(path, max_bytes)
    return found


def _relative_pattern(pattern: str) -> str:
    """Without leading `./` and `/`. (SCBench strips every leading '.' and '/' character, so
    `.tally/x` became `tally/x`: a hidden directory could never be tracked.)"""
    while pattern.startswith(("./", "/")):
        pattern = pattern[2:] if pattern.startswith("./") else pattern[1:]
    return "" if pattern == "." else pattern


def _read_tracked(path: Path, max_bytes: int) -> Any:
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        data = data[:max_bytes]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data
