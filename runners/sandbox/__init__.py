"""Sandboxes: where a command runs and what it may touch. See `base.Sandbox`."""

from runners.sandbox.base import Mount, Sandbox, SandboxRequest, SandboxResult
from runners.sandbox.registry import register_sandbox, resolve_sandbox, sandbox_names

__all__ = [
    "Mount",
    "Sandbox",
    "SandboxRequest",
    "SandboxResult",
    "register_sandbox",
    "resolve_sandbox",
    "sandbox_names",
]
