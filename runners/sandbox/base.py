"""The sandbox interface: one small contract, several backends behind a registry.

A runner describes *what* to run (`SandboxRequest`: argv, cwd, env, mounts, limits, network on or
off); a backend decides *how* to contain it. Paths in a request are paths as the sandboxed
process sees them; `Mount`s say where each host directory appears. Backends that cannot remap
paths (`none`) report `remaps_paths = False`, and the runner then uses host paths throughout.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits


class Mount(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: Path = Field(description="Host path.")
    target: str = Field(description="Path inside the sandbox.")
    writable: bool = False


class SandboxRequest(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

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
    # The agent step's extras (runners/egress, budgets); never serialized.
    egress: Any = Field(
        None,
        exclude=True,
        description="An allow-list proxy (runners.egress.proxy."
        "EgressProxy): the run's network namespace holds only its listeners.",
    )
    stop: Any = Field(
        None, exclude=True, description="A threading.Event: set, the run is ended early."
    )
    on_stdout: Any = Field(
        None, exclude=True, description="Called with each chunk of stdout as it comes."
    )


class SandboxResult(BaseModel):
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    oom_killed: bool = False
    stopped: bool = Field(False, description="ended early by the request's `stop` event")
    duration: float = 0.0
    notes: list[str] = Field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated


class Sandbox(ABC):
    """One backend: a built-in is one `"module:Class"` line in `runners.sandbox.registry.BUILTINS`;
    a third party's an entry point in `runners.sandboxes`, or `register_sandbox(cls)` in code."""

    name: ClassVar[str]
    isolated: ClassVar[bool] = True
    remaps_paths: ClassVar[bool] = True
    # Where this backend's toolchains live (`runners.toolchains.hosts`): a ToolchainHost class or
    # "module:Class", imported when first asked; a subclass inherits its parent's.
    toolchains: ClassVar[str | type] = "runners.toolchains.hosts:ToolchainHost"

    # The settings `from_options` takes (EnvironmentSpec.sandbox_options[name]): name -> meaning.
    options: ClassVar[dict[str, str]] = {}

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> Sandbox:
        """An instance with the user's settings for this backend (`sandbox_options: {NAME: {...}}`);
        a setting it does not take is bad input naming it and the ones it does."""
        unknown = sorted(set(options) - set(cls.options))
        if unknown:
            takes = ", ".join(sorted(cls.options)) or "none"
            raise UserInputError(
                f"sandbox_options.{cls.name}: {', '.join(unknown)} is not a setting of the "
                f"{cls.name} sandbox (it takes: {takes})"
            )
        return cls(**dict(options))

    @classmethod
    @abstractmethod
    def probe(cls) -> str | None:
        """None when this backend is usable here, else a reason and how to fix it."""

    @abstractmethod
    def run(self, request: SandboxRequest) -> SandboxResult:
        """Run the command to completion or timeout; nothing it started survives the call."""

    def memory_bounded(self) -> bool:
        """Whether everything the run writes (files in its workspace too) counts against a memory
        limit the backend enforces; then the workspace may live in memory (`workspace_place`)."""
        return False

    def sweep_orphans(self) -> int:
        """Remove leftovers of crashed earlier runs; returns how many were removed."""
        return 0

    def missing_image(self, image: str) -> str | None:
        """Why commands cannot run in `image` here (an agent's own image: "is not on this
        machine"); None when they can, or when this backend runs no images."""
        return None

    def leftovers(self, run_id: str) -> list[str]:
        """What of run `run_id` this backend made outside its processes (containers, cgroups)
        still exists, one line each; [] when nothing. The conformance suite's check that a run,
        a kill, and a sweep after a killed harness leave nothing behind."""
        return []

    def limitations(self) -> dict[str, str]:
        """The guarantees of the conformance suite (`runners.sandbox.conformance`) this backend
        does not give here: a check's name, or a group such as "network", -> why. Those checks
        are reported as not promised instead of run; every other one must pass."""
        return {}

    def prepare(self, request: SandboxRequest) -> SandboxResult:
        """Run an install step: like `run`, with the network and the host's proxy/CA settings."""
        env = {**base_env(), **network_env(), **request.env}
        return self.run(request.model_copy(update={"env": env, "network": True}))


# Backends by name: those imported so far, and those registered in code (`register_sandbox`).
SANDBOX_CLASSES: dict[str, type[Sandbox]] = {}


def register_sandbox(cls: type[Sandbox]) -> type[Sandbox]:
    SANDBOX_CLASSES[cls.name] = cls
    return cls


# Variables an install step needs to reach a package index through a proxy with its own CA.
NETWORK_ENV_NAMES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "PIP_CERT",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_INDEX",
    "UV_NATIVE_TLS",
    "UV_INSECURE_HOST",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "NPM_CONFIG_REGISTRY",
    "npm_config_registry",
    "NPM_CONFIG_CAFILE",
    "npm_config_cafile",
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
