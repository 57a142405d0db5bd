"""The sandbox registry: every sandbox name, the `auto` choice, and the sweep of all backends.

Backends are named here as `"module:Class"` strings and imported only when used (a pytest run
under bubblewrap never loads the docker SDK); third-party ones come from the `runners.sandboxes`
entry-point group (`name = "package.module:SandboxClass"`). A backend that fails to import is an
`InfrastructureError` naming it and the cause, never "unknown sandbox".

`auto` prefers Docker when an engine answers, then bubblewrap when it is usable, and otherwise
refuses: running untrusted code without isolation must be asked for by name (`none`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from runners.model.errors import InfrastructureError, UserInputError

if TYPE_CHECKING:
    from runners.sandbox.base import Sandbox

__all__ = [
    "AUTO_ORDER",
    "BUILTINS",
    "check_sandbox_name",
    "register_sandbox",
    "resolve_sandbox",
    "sandbox_choices",
    "sandbox_class",
    "sandbox_names",
    "sweep_orphans",
]

ENTRY_POINT_GROUP = "runners.sandboxes"
BUILTINS = {
    "docker": "runners.sandbox.docker.backend:DockerSandbox",
    "bubblewrap": "runners.sandbox.bubblewrap:BubblewrapSandbox",
    "none": "runners.sandbox.none:NoSandbox",
    "podman": "runners.sandbox.podman:PodmanSandbox",
}
AUTO_ORDER = ("docker", "bubblewrap")
_load_lock = threading.Lock()


def register_sandbox(cls: type[Sandbox]) -> type[Sandbox]:
    from runners.sandbox.base import register_sandbox as register

    return register(cls)


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}


def _targets() -> dict[str, str]:
    """name -> "module:Class" for every backend this installation knows."""
    return {**_entry_points(), **BUILTINS}


def sandbox_names() -> list[str]:
    """Every backend name (built in, registered in code, or from entry points): the one list
    the CLI, the environment, the batch and the Promptfoo provider check against."""
    from runners.sandbox.base import SANDBOX_CLASSES

    return [*BUILTINS, *sorted({*_targets(), *SANDBOX_CLASSES} - set(BUILTINS))]


def sandbox_choices() -> list[str]:
    """What `--sandbox` accepts: `auto`, then every backend."""
    return ["auto", *sandbox_names()]


def check_sandbox_name(name: str, where: str = "option --sandbox") -> str:
    """`name` when it is `auto` or a backend; a UserInputError naming `where` otherwise."""
    if name != "auto" and name not in BUILTINS and name not in sandbox_names():
        from runners.util.suggest import did_you_mean

        choices = sandbox_choices()
        raise UserInputError(
            f"{where}: {name!r} is not one of {', '.join(choices)}{did_you_mean(name, choices)}"
        )
    return name


def sandbox_class(name: str) -> type[Sandbox]:
    """The backend's class, its module imported now (under a lock: threads starting runs at once
    must not import a backend twice)."""
    from runners.sandbox.base import SANDBOX_CLASSES, Sandbox

    if name in SANDBOX_CLASSES:
        return SANDBOX_CLASSES[name]
    target = BUILTINS.get(name) or _targets().get(name)  # entry points only for another name
    if target is None:
        check_sandbox_name(name)
    assert target is not None
    module, _, attr = target.partition(":")
    with _load_lock:
        try:
            cls = getattr(importlib.import_module(module), attr)
        except Exception as exc:  # an ImportError, or a bug that breaks the module's import
            raise InfrastructureError(
                f"the sandbox backend {name!r} cannot be loaded from {target}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    if not (isinstance(cls, type) and issubclass(cls, Sandbox)):
        raise InfrastructureError(f"the sandbox backend {name!r} ({target}) is not a Sandbox class")
    SANDBOX_CLASSES.setdefault(name, cls)
    return cls


def resolve_sandbox(name: str, options: Mapping[str, Mapping[str, str]] | None = None) -> Sandbox:
    """An instance of the named backend, checked usable; `auto` picks the best usable one.
    `options`: the user's settings by backend name (`EnvironmentSpec.sandbox_options`)."""
    settings = options or {}
    if name == "auto":
        reasons = []
        for candidate in AUTO_ORDER:
            cls = sandbox_class(candidate)
            reason = cls.probe()
            if reason is None:
                return cls.from_options(settings.get(candidate, {}))
            reasons.append(f"{candidate}: {reason}")
        raise InfrastructureError(
            "no sandbox is usable here, and running untrusted code unsandboxed needs "
            "`--sandbox none`:\n  " + "\n  ".join(reasons)
        )
    cls = sandbox_class(name)
    reason = cls.probe()
    if reason is not None:
        raise InfrastructureError(f"sandbox {name!r} is not usable: {reason}")
    return cls.from_options(settings.get(name, {}))


def sweep_orphans(names: list[str] | None = None) -> dict[str, int]:
    """Let every usable backend (or those named) remove what runs of a dead harness left behind;
    how many each removed. Best effort: a backend that cannot be loaded or probed is skipped."""
    removed: dict[str, int] = {}
    for name in names if names is not None else sandbox_names():
        try:
            cls = sandbox_class(name)
            if cls.probe() is None:
                removed[name] = cls().sweep_orphans()
        except Exception:  # noqa: BLE001, S112 - a sweep must never fail the batch that asked for it
            continue
    return removed
