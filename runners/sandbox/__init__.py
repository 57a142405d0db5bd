"""Sandboxes: where a command runs and what it may touch. See `base.Sandbox`.

The names below are imported on first use (PEP 562): the CLI reads the backend names from
`registry` without paying for pydantic.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Mount": "runners.sandbox.base",
    "Sandbox": "runners.sandbox.base",
    "SandboxRequest": "runners.sandbox.base",
    "SandboxResult": "runners.sandbox.base",
    "register_sandbox": "runners.sandbox.registry",
    "resolve_sandbox": "runners.sandbox.registry",
    "sandbox_names": "runners.sandbox.registry",
}

__all__ = [
    "Mount",
    "Sandbox",
    "SandboxRequest",
    "SandboxResult",
    "register_sandbox",
    "resolve_sandbox",
    "sandbox_names",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
