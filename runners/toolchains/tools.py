"""The programs a submission and its tests find beside Python: those of SCBench's image.

SCBench grades in one image (`astral-sh/uv:python3.12-trixie-slim` plus build-essential, bzip2,
tar, gzip, zip, unzip, curl, ca-certificates, gnupg, procps, Node 22 through nvm and Rust through
rustup), and its tests use them: `uv run run.py`, `node`, `g++`, `cargo` and `rustc`, `bzcat`.
A run here finds the same programs on PATH, after the submission's environment:

- docker: our python image has them (runners/docker/python.Dockerfile); nothing to add.
- bubblewrap, none: the host's /usr is the sandbox's, so its compilers and archivers are there
  (docs list the packages). What usually lives elsewhere is found here and added: `uv` and `uvx`
  (the harness's own), Rust (the toolchain `rustc --print sysroot` names, e.g. rustup's), and
  Node when it is not under /usr (nvm's). bubblewrap mounts each read-only at its own path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from runners.sandbox.base import Mount
from runners.toolchains.cache import ensure_env
from runners.util.probe_memo import file_identity, remembered

# What SCBench's image offers a submission besides its Python (docs: docs/scbench.md).
SCBENCH_TOOLS = (
    "uv",
    "uvx",
    "node",
    "npm",
    "npx",
    "gcc",
    "g++",
    "make",
    "cargo",
    "rustc",
    "bzip2",
    "bzcat",
    "tar",
    "gzip",
    "zip",
    "unzip",
    "curl",
    "gpg",
    "ps",
)
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
_NODE = ("node", "npm", "npx")


@dataclass(frozen=True)
class SubmissionTools:
    """Directories to put on PATH after the submission's environment, and what they need mounted."""

    bin_dirs: tuple[str, ...] = ()
    mounts: tuple[Mount, ...] = field(default_factory=tuple)

    def path(self, *first: str) -> str:
        """PATH: `first` (the submission's environment), these tools, then the system's."""
        return ":".join(dict.fromkeys([*first, *self.bin_dirs, *SYSTEM_PATH]))


def host_tools(cache_root: Path, mount: bool) -> SubmissionTools:
    """The host's tools outside /usr as one directory of links (in the cache, built once per set of
    targets), plus Rust's bin directory; `mount`: bubblewrap, each target mounted read-only."""
    links: dict[str, str] = {}
    prefixes: list[Path] = []
    from uv import find_uv_bin

    uv = Path(os.path.realpath(find_uv_bin()))
    for name, path in (("uv", uv), ("uvx", uv.with_name("uvx"))):
        if path.is_file():
            links[name] = str(path)
            prefixes.append(path)
    node = shutil.which("node")
    if node and not os.path.realpath(node).startswith("/usr/"):  # nvm's, a tarball's: its prefix
        for name in _NODE:
            if (Path(node).parent / name).exists():
                links[name] = os.path.realpath(Path(node).parent / name)
        real_bin = Path(os.path.realpath(node)).parent
        prefixes.append(real_bin.parent if real_bin.name == "bin" else real_bin)
    bin_dirs: list[str] = []
    if links:

        def build(host_tmp: Path, _: str) -> None:
            host_tmp.mkdir(parents=True)
            for name, target in links.items():
                (host_tmp / name).symlink_to(target)

        made = ensure_env(cache_root, str(cache_root), "tools", {"links": links}, build)
        bin_dirs.append(str(made.host_dir))
        prefixes.append(made.host_dir)
    sysroot = rust_sysroot()
    if sysroot is not None and not sysroot.startswith("/usr/"):
        bin_dirs.append(f"{sysroot}/bin")
        prefixes.append(Path(sysroot))
    mounts = tuple(Mount(source=p, target=str(p)) for p in dict.fromkeys(prefixes)) if mount else ()
    return SubmissionTools(tuple(bin_dirs), mounts)


def rust_sysroot() -> str | None:
    """The Rust toolchain `rustc` on PATH runs (rustup's proxy resolves its default), or None."""
    rustc = shutil.which("rustc")
    if rustc is None:
        return None

    def ask() -> str | None:
        try:
            out = subprocess.run(
                [rustc, "--print", "sysroot"],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        return os.path.realpath(out) if out and Path(out, "bin", "rustc").is_file() else None

    # rustup's proxy answers from its settings: they are part of the key, with the proxy itself.
    settings = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup") / "settings.toml"
    return remembered(
        "rust-sysroot",
        [file_identity(rustc), file_identity(settings)],
        ask,
        keep=lambda found: found is not None,
    )
