"""Rust in the python image: this machine's toolchain, copied (as a host Python is for the local
base), else the base's distribution packages (`rustc`, `cargo`; runners/docker/python.Dockerfile).

A toolchain is relocatable (rustc finds its sysroot from its own path), so the one rustup
installed here runs from /usr/local/rust in any glibc image; its documentation is left out.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from runners.util.probe_memo import file_identity

RUST_DIST_DIR = "rust-dist"
_SKIP = ("doc", "zsh")  # under share/: 800 MB of HTML, shell completions


def host_rust() -> Path | None:
    """The toolchain `rustc` on PATH runs (rustup's default), or None."""
    from runners.toolchains.tools import rust_sysroot

    found = rust_sysroot()
    return Path(found) if found else None


def rust_identity(sysroot: Path | None) -> str:
    """What the image's Rust depends on: the toolchain's rustc and cargo, or the distribution's."""
    if sysroot is None:
        return "distribution"
    return " ".join(file_identity(sysroot / "bin" / name) for name in ("rustc", "cargo"))


def copy_rust(sysroot: Path | None, target: Path) -> None:
    """The toolchain into `target` (the build context's rust-dist/); an empty directory without
    one."""
    if sysroot is None:
        target.mkdir()
        return

    def skip(directory: str, names: list[str]) -> list[str]:
        return [n for n in names if Path(directory).name == "share" and n in _SKIP]

    shutil.copytree(sysroot, target, symlinks=True, ignore=skip)
