"""The sandbox registry and the `auto` choice.

`auto` prefers Docker when an engine answers, then bubblewrap when it is usable, and otherwise
refuses: running untrusted code without isolation must be asked for by name (`none`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from runners.errors import InfrastructureError, UserInputError
from runners.sandbox.base import SANDBOX_CLASSES as _REGISTRY
from runners.sandbox.base import Sandbox, register_sandbox

__all__ = ["register_sandbox", "resolve_sandbox", "sandbox_class", "sandbox_names"]

_loaded = False
_load_lock = threading.Lock()
AUTO_ORDER = ("docker", "bubblewrap")


def sandbox_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def sandbox_class(name: str) -> type[Sandbox]:
    _load_builtins()
    if name not in _REGISTRY:
        raise UserInputError(
            f"option --sandbox: unknown sandbox {name!r} (expected auto, {', '.join(sorted(_REGISTRY))})"
        )
    return _REGISTRY[name]


def resolve_sandbox(name: str, factory: Callable[[type[Sandbox]], Sandbox] | None = None) -> Sandbox:
    """An instance of the named backend, checked usable; `auto` picks the best usable one."""
    _load_builtins()
    make = factory or (lambda cls: cls())
    if name == "auto":
        reasons = []
        for candidate in AUTO_ORDER:
            cls = _REGISTRY.get(candidate)
            if cls is None:
                continue
            reason = cls.probe()
            if reason is None:
                return make(cls)
            reasons.append(f"{candidate}: {reason}")
        raise InfrastructureError(
            "no sandbox is usable here, and running untrusted code unsandboxed needs "
            "`--sandbox none`:\n  " + "\n  ".join(reasons)
        )
    cls = sandbox_class(name)
    reason = cls.probe()
    if reason is not None:
        raise InfrastructureError(f"sandbox {name!r} is not usable: {reason}")
    return make(cls)


def _load_builtins() -> None:
    # Imported lazily so `import runners` stays fast and the docker SDK loads only when needed.
    # Under a lock, and marked loaded only once done: runs started at once from several threads
    # must not see a half-filled registry ("unknown sandbox 'none'").
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        from runners.sandbox import none  # noqa: F401

        try:
            from runners.sandbox import bubblewrap  # noqa: F401
        except ImportError:  # pragma: no cover - module lands with the bubblewrap backend
            pass
        try:
            from runners.sandbox import docker_backend  # noqa: F401
        except ImportError:  # pragma: no cover
            pass
        _loaded = True
