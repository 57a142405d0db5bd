"""The runner registry: (framework, problem kind) -> Runner class.

Built-in runners register on import; third-party ones are found through the
`runners.frameworks` entry point group (`name = "package.module:RunnerClass"`).
"""

from __future__ import annotations

import threading

from runners.errors import UserInputError
from runners.frameworks.base import Runner
from runners.scan.core import Protected

ENTRY_POINT_GROUP = "runners.frameworks"
_REGISTRY: dict[tuple[str, str], type[Runner]] = {}
_loaded = False
_load_lock = threading.Lock()
# Built-in frameworks and their modules: a run imports only its own runner's module (the JS
# runners and the command runner bring parsers a pytest run never needs).
_BUILTINS = {
    "pytest": "pytest_runner",
    "vitest": "js_runners",
    "jest": "js_runners",
    "junit": "command_runner",
    "ctrf": "command_runner",
    "go": "go_runner",
    "cases": "cases_runner",
}
# Runners of other problem kinds, by framework (imported when a problem of that kind asks).
_KIND_BUILTINS = {
    ("pytest", "repository"): "repo_pytest",
    ("vitest", "repository"): "repo_js",
    ("jest", "repository"): "repo_js",
}
_BUILTIN_MODULES = tuple(dict.fromkeys(_BUILTINS.values()))


def register_runner(cls: type[Runner]) -> type[Runner]:
    _REGISTRY[(cls.name, cls.kind)] = cls
    return cls


def runner_names() -> list[str]:
    _load()
    return sorted({name for name, _ in _REGISTRY})


def builtin_runner_classes() -> list[type[Runner]]:
    """The runners shipped with `runners` (their modules imported on the way)."""
    return [runner_class(name) for name in _BUILTINS]


def builtin_protected() -> Protected:
    """What all built-in runners protect together (for a scan outside a run)."""
    merged = Protected()
    for runner in builtin_runner_classes():
        merged = merged | runner.protected()
    return merged


def runner_class(framework: str, kind: str = "suite") -> type[Runner]:
    key = (framework, kind)
    if key not in _REGISTRY and kind == "suite" and framework in _BUILTINS:
        _import_builtin(_BUILTINS[framework])
    if key not in _REGISTRY and key in _KIND_BUILTINS:
        _import_builtin(_KIND_BUILTINS[key])
    if key not in _REGISTRY:  # a third-party runner, or a mistake: look everywhere
        _load()
    if key not in _REGISTRY:
        from runners.suggest import did_you_mean

        known = sorted(name for name, k in _REGISTRY if k == kind)
        raise UserInputError(
            f"framework {framework!r} has no runner for kind {kind!r}{did_you_mean(framework, known)} "
            f"(known: {', '.join(known) or 'none'})"
        )
    return _REGISTRY[key]


def _load() -> None:
    # Under a lock, and marked loaded only once done: runs started at once from several threads
    # must not see a half-filled registry ("framework 'vitest' has no runner").
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        for module in (*_BUILTIN_MODULES, *dict.fromkeys(_KIND_BUILTINS.values())):
            _import_builtin(module)
        from importlib.metadata import entry_points  # ~10 ms: only when a third party is looked for

        for point in entry_points(group=ENTRY_POINT_GROUP):
            cls = point.load()
            if not (isinstance(cls, type) and issubclass(cls, Runner)):
                raise UserInputError(f"entry point {point.name!r} in {ENTRY_POINT_GROUP} is not a Runner class")
            _REGISTRY.setdefault((point.name, cls.kind), cls)
        _loaded = True


def _import_builtin(module: str) -> None:
    """Import a built-in runner module (it registers its runners on import)."""
    import importlib

    try:
        importlib.import_module(f"runners.frameworks.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"runners.frameworks.{module}":
            raise
