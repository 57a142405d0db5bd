"""Toolchain hosts: where a sandbox backend's toolchains live and what they need mounted.

A sandbox only runs commands; what toolchains need from it — the interpreter and its identity
(a cache key), uv, node and npm, the cache directory, the image of a kind, read-only mounts of an
interpreter's prefix — is asked of the `ToolchainHost` its backend's class names
(`Sandbox.toolchains`, inherited by a subclass): `toolchain_host(sandbox)`. The default serves
backends that run this machine's own programs in place (`none`); bubblewrap adds mounts; docker
(`docker_host.py`) answers from its images. One host per sandbox instance, so what it learns
(docker: the cache dir) lasts as long as the sandbox.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import threading
import weakref
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from runners.model.errors import InfrastructureError
from runners.sandbox.base import Mount, Sandbox
from runners.toolchains.which_python import PythonRequest
from runners.util.probe_memo import file_identity, interpreter_key, remembered

if TYPE_CHECKING:
    from runners.toolchains.tools import SubmissionTools

_hosts: weakref.WeakKeyDictionary[Sandbox, ToolchainHost] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


class ToolchainHost:
    """The host machine's programs, run in place (the `none` backend, and the default)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def use_cache(self, host_cache: Path) -> None:
        """Where this run's toolchains are cached, known before anything is probed (docker keeps
        what it learnt of an image beside it, so a run does not start a probe container)."""

    def for_python(self, request: PythonRequest | None) -> tuple[ToolchainHost, str]:
        """The host a run's Python toolchains use (docker: one per image, so per version) and the
        interpreter in it that meets `request` (None: the default). UserInputError when nothing
        here meets it."""
        from runners.toolchains.which_python import find_host_python

        return self, find_host_python(request)

    def uv_binary(self) -> str:
        from uv import find_uv_bin

        return find_uv_bin()

    def interpreter_identity(self, python: str) -> str:
        """What makes environments built from `python` different from others (cache key)."""
        return host_interpreter_identity(python)

    def python_version(self, python: str) -> str | None:
        """`major.minor.micro` of the interpreter toolchains are built from (None: unknown)."""
        from runners.toolchains.which_python import interpreter_version

        return interpreter_version(python)

    def interpreter_mounts(self, python: str) -> list[Mount]:
        """Read-only mounts a toolchain interpreter needs inside the sandbox."""
        return []

    def node_for_toolchains(self, requested: str | None) -> str:
        """The Node binary JavaScript toolchains run on, as the sandbox sees it: `requested` (a
        version, a range or a path: runners.toolchains.which_node), else the first on PATH."""
        from runners.toolchains.which_node import find_host_node

        return find_host_node(requested)

    def node_version(self, node: str) -> str | None:
        """`major.minor.patch` of that Node (None: unknown), recorded in the result."""
        from runners.toolchains.which_node import node_version

        return node_version(node)

    def npm_for_toolchains(self, node: str) -> list[str]:
        """How to run npm with that Node."""
        npm = shutil.which("npm", path=f"{os.path.dirname(node)}:/usr/local/bin:/usr/bin:/bin")
        if not npm:
            raise InfrastructureError(f"npm is not installed next to {node}")
        return [node, os.path.realpath(npm)]

    def program_mounts(self, program: str) -> list[Mount]:
        """Read-only mounts a toolchain program (e.g. node) needs inside the sandbox."""
        return []

    def uv_mounts(self, uv: str) -> list[Mount]:
        """Read-only mounts the install steps need to run `uv_binary()` inside the sandbox."""
        return []

    def submission_tools(self, host_cache: Path) -> SubmissionTools:
        """The programs beside Python that SCBench's image gives a submission (uv, Node, Rust, ...),
        as PATH entries and the mounts they need (`runners.toolchains.tools`)."""
        from runners.toolchains.tools import host_tools

        return host_tools(self.cache_root(host_cache)[0], mount=False)

    def program_identity(self, program: str, version_args: list[str]) -> str:
        """What makes environments built with `program` different from others (cache key)."""
        return host_program_identity(program, tuple(version_args))

    def image_for(self, kind: str) -> str | None:
        """The container image toolchains of `kind` ("python", "node") run in; None: the host."""
        return None

    def check_python_of(self, image: str | None, why: str) -> None:
        """UserInputError unless `image` (an image derived from the python one, e.g. for browser
        cases) has the interpreter the run's Python toolchains were built from. `why`: who chose
        it."""

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        """Where prepared toolchains of `kind` live: (host path, path inside the sandbox)."""
        return host_cache / "host", str(host_cache / "host")


class BubblewrapToolchains(ToolchainHost):
    """This machine's programs in a fresh root holding only /usr and /etc: what lives elsewhere
    (a pyenv or uv-managed Python, a Node under /opt) is mounted read-only."""

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        from runners.sandbox.bubblewrap import SANDBOX_UID, _is_root

        # Its own cache, owned by the sandbox uid: the prepare step runs unprivileged too.
        root = host_cache / "bwrap"
        root.mkdir(parents=True, exist_ok=True)
        if _is_root() and root.stat().st_uid != SANDBOX_UID:
            os.chown(root, SANDBOX_UID, SANDBOX_UID)
        return root, str(root)

    def interpreter_mounts(self, python: str) -> list[Mount]:
        return host_interpreter_mounts(python)

    def program_mounts(self, program: str) -> list[Mount]:
        """A program outside /usr brings its installation prefix (the parent of its bin/)."""
        real = Path(os.path.realpath(program))
        if str(real).startswith("/usr/"):
            return []
        prefix = real.parent.parent if real.parent.name == "bin" else real.parent
        return [Mount(source=prefix, target=str(prefix))]

    def uv_mounts(self, uv: str) -> list[Mount]:
        return [Mount(source=Path(uv), target=uv)]

    def submission_tools(self, host_cache: Path) -> SubmissionTools:
        from runners.toolchains.tools import host_tools

        return host_tools(self.cache_root(host_cache)[0], mount=True)


def toolchain_host(sandbox: Sandbox) -> ToolchainHost:
    """The toolchain host of `sandbox`'s backend, one per sandbox instance."""
    with _lock:
        host = _hosts.get(sandbox)
        if host is None:
            host = _hosts[sandbox] = _host_class(type(sandbox))(sandbox)
        return host


def _host_class(backend: type[Sandbox]) -> type[ToolchainHost]:
    named = backend.toolchains
    if isinstance(named, str):
        module, _, attr = named.partition(":")
        named = getattr(importlib.import_module(module), attr)
    if not (isinstance(named, type) and issubclass(named, ToolchainHost)):
        raise InfrastructureError(
            f"the sandbox backend {backend.name!r} names {backend.toolchains!r} as its "
            "toolchain host, which is not a ToolchainHost class"
        )
    return named


def host_interpreter_mounts(python: str) -> list[Mount]:
    """The prefix an interpreter (and the venvs built from it) needs, read-only."""
    prefix = _interpreter_prefix(python)
    if prefix is None or prefix.startswith("/usr/"):
        return []  # already in the sandbox
    return [Mount(source=Path(prefix), target=prefix)]


@lru_cache(maxsize=16)
def _interpreter_prefix(python: str) -> str | None:
    def ask() -> str | None:
        try:
            out = subprocess.run(
                [python, "-I", "-S", "-c", "import sys; print(sys.base_prefix)"],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        return os.path.realpath(out) if out else None

    return remembered(
        "python-prefix", interpreter_key(python), ask, keep=lambda found: found is not None
    )


@lru_cache(maxsize=16)
def host_program_identity(program: str, version_args: tuple[str, ...]) -> str:
    def ask() -> str:
        try:
            out = subprocess.run(
                [program, *version_args], capture_output=True, text=True, timeout=30, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError) as exc:
            raise InfrastructureError(f"cannot run {program!r}: {exc}") from None
        return f"{os.path.realpath(program)} {out}"

    return remembered("program-identity", [file_identity(program), *version_args], ask)


@lru_cache(maxsize=16)
def host_interpreter_identity(python: str) -> str:
    def ask() -> str:
        try:
            # -I -S and os.uname(): the same line as `platform.machine()` gives, in a quarter of the
            # start-up time (no site, no platform import).
            out = subprocess.run(
                [
                    python,
                    "-I",
                    "-S",
                    "-c",
                    "import os, sys; print(sys.version, os.uname().machine, sys.base_prefix)",
                ],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError) as exc:
            raise InfrastructureError(
                f"cannot run the Python interpreter {python!r}: {exc}"
            ) from None
        return f"{os.path.realpath(python)} {out}"

    return remembered("python-identity", interpreter_key(python), ask)
