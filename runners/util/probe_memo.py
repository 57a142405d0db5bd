"""Facts about this host that cost a subprocess to learn, remembered across harness processes.

Every CLI evaluation used to ask the same questions again (does bwrap work here, does it know
`--disable-userns`, where is this interpreter's prefix, which version is it): six short
subprocesses, about a tenth of a second before the tests could start. The answers only change
when the programs asked, the kernel (a reboot) or the user change, so each is remembered in a small
JSON file under the cache directory, keyed by exactly that: the identity (device, inode, size,
mtime) of every file the answer depends on, the boot id and the uid. A changed binary or a reboot
is a new key, so a stale answer is never read; a missing, unreadable or foreign file is simply
asked again. The files sit outside every directory a sandbox mounts, so no run can rewrite them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
DIR_NAME = "probes"
# The in-process layer: a harness process asks the disk at most once per key.
_seen: dict[str, Any] = {}


def file_identity(path: str | os.PathLike[str]) -> str:
    """What changes when a file is replaced or rewritten: its resolved path, device, inode, size
    and mtime (or `missing`)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return f"{real}:missing"
    return f"{real}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


# Kernel settings that decide whether unprivileged user namespaces (so bwrap) work.
_USERNS_SETTINGS = (
    "/proc/sys/kernel/random/boot_id",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def kernel_identity() -> list[str]:
    """The boot id (a reboot asks again) and the user-namespace settings (a sysctl change too)."""
    values = []
    for name in _USERNS_SETTINGS:
        try:
            values.append(Path(name).read_text().strip())
        except OSError:
            values.append("-")
    return values


def memo_dir() -> Path:
    from runners.model.environment import default_cache_dir

    return default_cache_dir() / DIR_NAME


def interpreter_key(python: str) -> list[str] | None:
    """What an interpreter's answers depend on: the path asked, the binary it resolves to and a
    venv's `pyvenv.cfg`. None for a launcher script (a pyenv shim picks its Python from the
    environment and the working directory): its answers are never remembered."""
    try:
        with open(os.path.realpath(python), "rb") as handle:
            if handle.read(2) == b"#!":
                return None
    except OSError:
        return None
    cfg = Path(python).parent.parent / "pyvenv.cfg"
    return [os.path.abspath(python), file_identity(python), file_identity(cfg)]


def remembered(
    name: str,
    key: Iterable[str] | None,
    compute: Callable[[], T],
    *,
    keep: Callable[[T], bool] = lambda _: True,
) -> T:
    """`compute()`, or the answer it gave before for the same `name` and `key` (None: not to be
    remembered, always asked).

    `keep(answer)` says whether an answer may be reused (e.g. only successes: a failed probe is
    asked again next time, since what made it fail may have been fixed). Answers must be JSON.
    """
    if key is None:
        return compute()
    material = json.dumps([name, os.geteuid(), *key])
    digest = hashlib.sha256(material.encode()).hexdigest()[:20]
    if digest in _seen:
        return _seen[digest]  # type: ignore[no-any-return]
    path = memo_dir() / f"{name}-{digest}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("key") == material:
            _seen[digest] = data["value"]
            return data["value"]  # type: ignore[no-any-return]
    except (OSError, ValueError, KeyError):
        pass
    value = compute()
    if keep(value):
        _seen[digest] = value
        _write(path, {"key": material, "value": value})
    return value


def forget() -> None:
    """Drop the in-process layer (tests; a long-lived process after the host changed)."""
    _seen.clear()


def _write(path: Path, data: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the answer is simply asked again next time
