"""The sandbox interface: one small contract, several backends behind a registry.

A runner describes *what* to run (`SandboxRequest`: argv, cwd, env, mounts, limits, network on or
off); a backend decides *how* to contain it. Paths in a request are paths as the sandboxed
process sees them; `Mount`s say where each host directory appears. Backends that cannot remap
paths (`none`) report `remaps_paths = False`, and the runner then uses host paths throughout.
"""

from __future__ import annotations

import os
import subprocess
from abc import ABC, abstractmethod
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from runners.limits import ResourceLimits

if TYPE_CHECKING:
    from runners.environment import EnvironmentSpec
from runners.pythons import PythonRequest


class Mount(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: Path = Field(description="Host path.")
    target: str = Field(description="Path inside the sandbox.")
    writable: bool = False


class SandboxRequest(BaseModel):
    argv: list[str]
    cwd: str
    env: dict[str, str] = Field(default_factory=dict)
    mounts: list[Mount] = Field(default_factory=list)
    network: bool = Field(False, description="Only the prepare step may use the network.")
    limits: ResourceLimits
    timeout: float = Field(gt=0, description="Wall clock for the whole command, in seconds.")
    image: str | None = Field(None, description="Container image (docker backend).")
    run_id: str = Field(description="Label put on everything the run starts, for sweeping.")
    purpose: str = Field("test", description="'prepare' or 'test', for logs and labels.")


class SandboxResult(BaseModel):
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    oom_killed: bool = False
    duration: float = 0.0
    notes: list[str] = Field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated


class Sandbox(ABC):
    """One backend. Subclasses register themselves with `@register_sandbox`."""

    name: ClassVar[str]
    isolated: ClassVar[bool] = True
    remaps_paths: ClassVar[bool] = True

    @classmethod
    def from_environment(cls, environment: "EnvironmentSpec") -> "Sandbox":
        """An instance set up from the user's execution settings (the docker backend takes its
        images from them); the default ignores them."""
        return cls()

    @classmethod
    @abstractmethod
    def probe(cls) -> str | None:
        """None when this backend is usable here, else a reason and how to fix it."""

    @abstractmethod
    def run(self, request: SandboxRequest) -> SandboxResult:
        """Run the command to completion or timeout; nothing it started survives the call."""

    def sweep_orphans(self) -> int:
        """Remove leftovers of crashed earlier runs; returns how many were removed."""
        return 0

    def prepare(self, request: SandboxRequest) -> SandboxResult:
        """Run an install step: like `run`, with the network and the host's proxy/CA settings."""
        env = {**base_env(), **network_env(), **request.env}
        return self.run(request.model_copy(update={"env": env, "network": True}))

    def uv_binary(self) -> str:
        from uv import find_uv_bin

        return find_uv_bin()

    def interpreter_identity(self, python: str) -> str:
        """What makes environments built from `python` different from others (cache key)."""
        return host_interpreter_identity(python)

    def python_version(self, python: str) -> str | None:
        """`major.minor.micro` of the interpreter toolchains are built from (None: unknown)."""
        from runners.pythons import interpreter_version

        return interpreter_version(python)

    def interpreter_mounts(self, python: str) -> list[Mount]:
        """Read-only mounts a toolchain interpreter needs inside the sandbox."""
        return []

    def node_for_toolchains(self, requested: str | None) -> str:
        """The Node binary JavaScript toolchains run on, as the sandbox sees it."""
        import shutil

        found = requested or shutil.which("node")
        if not found:
            from runners.errors import InfrastructureError

            raise InfrastructureError("node is not installed (needed for vitest/jest problems)")
        return os.path.realpath(found)

    def npm_for_toolchains(self, node: str) -> list[str]:
        """How to run npm with that Node."""
        import shutil

        npm = shutil.which("npm", path=f"{os.path.dirname(node)}:/usr/local/bin:/usr/bin:/bin")
        if not npm:
            from runners.errors import InfrastructureError

            raise InfrastructureError(f"npm is not installed next to {node}")
        return [node, os.path.realpath(npm)]

    def program_mounts(self, program: str) -> list[Mount]:
        """Read-only mounts a toolchain program (e.g. node) needs inside the sandbox."""
        return []

    def program_identity(self, program: str, version_args: list[str]) -> str:
        """What makes environments built with `program` different from others (cache key)."""
        return host_program_identity(program, tuple(version_args))

    def image_for(self, kind: str) -> str | None:
        """The container image toolchains of `kind` ("python", "node") run in; None: the host."""
        return None

    def cache_root(self, host_cache: Path, kind: str = "python") -> tuple[Path, str]:
        """Where prepared toolchains of `kind` live: (host path, path inside the sandbox)."""
        return host_cache / "host", str(host_cache / "host")

    def python_for_toolchains(self, requested: str | None) -> str:
        """The interpreter environments are built from, as the sandbox sees it."""
        return self.for_python(PythonRequest(requested, "option --python") if requested else None)[1]

    def for_python(self, request: PythonRequest | None) -> tuple[Sandbox, str]:
        """The sandbox a run's Python toolchains use (docker: one per image, so per version) and
        the interpreter in it that meets `request` (None: the default). UserInputError when
        nothing here meets it."""
        from runners.pythons import find_host_python

        return self, find_host_python(request)


# Backends by name, filled by `@register_sandbox`. Kept beside the interface so that a backend
# registers itself without importing `runners.sandbox.registry`, which imports the backends.
SANDBOX_CLASSES: dict[str, type[Sandbox]] = {}


def register_sandbox(cls: type[Sandbox]) -> type[Sandbox]:
    SANDBOX_CLASSES[cls.name] = cls
    return cls


# Variables an install step needs to reach a package index through a proxy with its own CA.
NETWORK_ENV_NAMES = (
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
    "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT",
    "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_NATIVE_TLS",
    "UV_INSECURE_HOST", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
    "NPM_CONFIG_REGISTRY", "npm_config_registry", "NPM_CONFIG_CAFILE", "npm_config_cafile",
)


def network_env() -> dict[str, str]:
    return {name: os.environ[name] for name in NETWORK_ENV_NAMES if name in os.environ}


def base_env() -> dict[str, str]:
    """The minimal, allow-listed environment every sandboxed process starts from."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


@lru_cache(maxsize=16)
def host_program_identity(program: str, version_args: tuple[str, ...]) -> str:
    try:
        out = subprocess.run([program, *version_args], capture_output=True, text=True, timeout=30,
                             check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        from runners.errors import InfrastructureError

        raise InfrastructureError(f"cannot run {program!r}: {exc}") from None
    return f"{os.path.realpath(program)} {out}"


@lru_cache(maxsize=16)
def host_interpreter_identity(python: str) -> str:
    try:
        # -I -S and os.uname(): the same line as `platform.machine()` gives, in a quarter of the
        # start-up time (no site, no platform import); every CLI run pays this once.
        out = subprocess.run(
            [python, "-I", "-S", "-c", "import os, sys; print(sys.version, os.uname().machine, sys.base_prefix)"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        from runners.errors import InfrastructureError

        raise InfrastructureError(f"cannot run the Python interpreter {python!r}: {exc}") from None
    return f"{os.path.realpath(python)} {out}"
