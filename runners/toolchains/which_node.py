"""Which Node a JavaScript problem's tests run on: `--node` (provider config `node`), else the
`node` first on PATH (bubblewrap, none) or the node image's own (docker).

Without a choice the Node is whatever the PATH of the shell gives, which differs between a
terminal (`/usr/bin/node`, v20 here) and `npx` (the project's `node_modules/.bin/node`, v22): the
version that ran is recorded in every result (`node`), and `--node` picks one.

A choice is a version (`22`, `22.22`, `22.22.0`, `v22`), a range (`>=22`, `>=20,<23`) or a path to
a `node` binary. A version or range must be met by a Node found here, or the run is refused with
what was found, never a silent fallback: on the host the candidates are every `node` on PATH,
`./node_modules/.bin/node` (a project that pins Node as a package, like this one), and the
versions nvm, fnm, n and Volta installed; docker checks its node image's version.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from runners.model.errors import InfrastructureError, UserInputError
from runners.util.probe_memo import file_identity, remembered

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

_VERSION = re.compile(r"^v?\d+(\.\d+){0,2}$")
_OPERATORS = ("==", "!=", "<=", ">=", "<", ">", "~=")
EXPECTED = (
    "expected a Node version (e.g. 22), a version range (e.g. >=22) or a path to a node binary"
)


def is_path(text: str) -> bool:
    return "/" in text or text.startswith(("~", "."))


def parse_requirement(text: str) -> SpecifierSet:
    """`22` -> `==22.*`, `22.22` -> `==22.22.*`, `v22.22.0` -> `==22.22.0`, a range as written."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = text.strip()
    if _VERSION.match(text):
        parts = text.lstrip("v").split(".")
        return SpecifierSet(f"=={'.'.join(parts)}" + (".*" if len(parts) < 3 else ""))
    if not text.startswith(_OPERATORS):
        raise ValueError(EXPECTED)
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise ValueError(EXPECTED) from None


def validate_option(text: str | None, where: str = "option --node") -> str | None:
    """The choice as given, checked for its form (not yet whether such a Node exists)."""
    if not text:
        return None
    if is_path(text):
        path = Path(text).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise UserInputError(f"{where}: {text} is not an executable file ({EXPECTED})")
        return str(path.resolve())
    try:
        parse_requirement(text)
    except ValueError as exc:
        raise UserInputError(f"{where}: {text!r}: {exc}") from None
    return text


@dataclass(frozen=True)
class NodeRequest:
    spec: str

    @property
    def is_path(self) -> bool:
        return is_path(self.spec)

    def matches(self, version: str | None) -> bool:
        from packaging.version import InvalidVersion, Version

        if version is None:
            return False
        try:
            return parse_requirement(self.spec).contains(
                Version(version.lstrip("v")), prereleases=True
            )
        except (InvalidVersion, ValueError):
            return False


@lru_cache(maxsize=64)
def node_version(node: str) -> str | None:
    """`major.minor.patch` of a node binary (`node --version` without its `v`), None when it
    does not run. Remembered per binary (its path, inode, size and time)."""

    def ask() -> str | None:
        try:
            out = subprocess.run(
                [node, "--version"], capture_output=True, text=True, timeout=30, check=True
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        version = out.strip().lstrip("v")
        return version if re.match(r"^\d+\.\d+\.\d+", version) else None

    return remembered(
        "node-version", [file_identity(node)], ask, keep=lambda found: found is not None
    )


def host_candidates() -> list[str]:
    """Every node binary here, in the order they are tried: PATH first (the default), then
    the project's `node_modules/.bin/node`, then version managers' installs (newest first)."""
    found: list[str] = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        found.append(os.path.join(folder, "node"))
    found.append(os.path.join(os.getcwd(), "node_modules", ".bin", "node"))
    home = Path.home()
    managed = [
        Path(os.environ.get("NVM_DIR") or home / ".nvm") / "versions" / "node",
        Path(os.environ.get("FNM_DIR") or home / ".local" / "share" / "fnm") / "node-versions",
        Path(os.environ.get("N_PREFIX") or "/usr/local") / "n" / "versions" / "node",
        Path(os.environ.get("VOLTA_HOME") or home / ".volta") / "tools" / "image" / "node",
    ]
    for root in managed:
        try:
            versions = sorted(root.iterdir(), key=lambda p: _sort_key(p.name), reverse=True)
        except OSError:
            continue
        for version in versions:
            found += [str(version / "bin" / "node"), str(version / "installation" / "bin" / "node")]
    real: dict[str, str] = {}
    for path in found:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            real.setdefault(os.path.realpath(path), path)
    return list(real)


def _sort_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name)[:3])


def find_host_node(requested: str | None) -> str:
    """The node binary (resolved) for `requested` (None: the first on PATH)."""
    if requested is None or is_path(requested):
        import shutil

        found = requested or shutil.which("node")
        if not found:
            raise InfrastructureError(
                "node is not installed (needed for vitest/jest problems); install Node, "
                "or name one with --node PATH"
            )
        if not os.path.isfile(found):
            raise UserInputError(f"--node {requested}: no such file")
        return os.path.realpath(found)
    request = NodeRequest(requested)
    tried = []
    for node in host_candidates():
        version = node_version(node)
        if request.matches(version):
            return node
        tried.append(f"{node} v{version}" if version else f"{node} (does not run)")
    raise UserInputError(
        f"--node {requested}: no Node matching {parse_requirement(requested)} here (found: "
        f"{', '.join(tried) or 'none'}); install it (e.g. `nvm install 22`, or `npm install "
        "node@22` in the project) or give its path"
    )
