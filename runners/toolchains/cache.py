"""Prepared environments, built once per content hash and reused read-only by every run.

An environment directory is complete only when its `.ready` file exists; it is built under an
exclusive file lock into a temporary sibling and renamed into place, so concurrent runs build it
once and a crash never leaves a half-built environment that looks complete.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

READY = ".ready"


def content_key(material: dict[str, Any]) -> str:
    blob = json.dumps(material, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


@dataclass(frozen=True)
class CachedEnv:
    host_dir: Path
    sandbox_dir: str
    built: bool  # True when this call built it (the cold path)
    seconds: float


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_env(
    host_root: Path,
    sandbox_root: str,
    kind: str,
    material: dict[str, Any],
    build: Callable[[Path, str], None],
) -> CachedEnv:
    """Return the environment for `material`, calling `build(host_tmp, sandbox_tmp)` if needed.

    `build` must populate the temporary directory; it is renamed into place afterwards.
    """
    started = time.monotonic()
    key = content_key({"kind": kind, **material})
    name = f"{kind}-{key}"
    host_dir = host_root / name
    sandbox_dir = f"{sandbox_root}/{name}"
    if (host_dir / READY).is_file():
        return CachedEnv(host_dir, sandbox_dir, built=False, seconds=time.monotonic() - started)
    with _locked(host_root / "locks" / f"{name}.lock"):
        if (host_dir / READY).is_file():  # built by a concurrent run while we waited
            return CachedEnv(host_dir, sandbox_dir, built=False, seconds=time.monotonic() - started)
        tmp_name = f".{name}.tmp-{os.getpid()}"
        host_tmp = host_root / tmp_name
        shutil.rmtree(host_tmp, ignore_errors=True)
        if host_dir.exists():  # an incomplete leftover from a crash
            shutil.rmtree(host_dir, ignore_errors=True)
        try:
            build(host_tmp, f"{sandbox_root}/{tmp_name}")
            (host_tmp / READY).write_text(json.dumps(material, sort_keys=True, indent=1))
            host_tmp.rename(host_dir)
        finally:
            shutil.rmtree(host_tmp, ignore_errors=True)
    return CachedEnv(host_dir, sandbox_dir, built=True, seconds=time.monotonic() - started)
