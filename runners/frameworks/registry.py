"""The runner registry: (framework, problem kind) -> Runner class, in the sandbox registry's style.

`BUILTINS` is the one list of the runners shipped here, as `"module:Class"` targets imported when
first asked for (a pytest run never loads the JS runners' parsers): a new built-in runner is its
module and one line here. Third-party runners come from the `runners.frameworks` entry point
group (`name = "package.module:RunnerClass"`, the kind from the class), or `register_runner(cls)`
in code.
"""

from __future__ import annotations

import importlib
import threading

from runners.frameworks.base import Runner
from runners.model.errors import InfrastructureError, UserInputError
from runners.scan.core import Protected

ENTRY_POINT_GROUP = "runners.frameworks"
_F = "runners.frameworks"
BUILTINS: dict[tuple[str, str], str] = {
    ("pytest", "suite"): f"{_F}.pytest_runner:PytestRunner",
    ("vitest", "suite"): f"{_F}.js_runners:VitestRunner",
    ("jest", "suite"): f"{_F}.js_runners:JestRunner",
    ("junit", "suite"): f"{_F}.command_runner:JUnitRunner",
    ("ctrf", "suite"): f"{_F}.command_runner:CtrfRunner",
    ("go", "suite"): f"{_F}.go_runner:GoRunner",
    ("cases", "suite"): f"{_F}.cases_runner:CasesRunner",
    ("node-test", "suite"): f"{_F}.node_test:NodeTestRunner",
    ("pytest", "repository"): f"{_F}.repo_pytest:RepositoryPytestRunner",
    ("vitest", "repository"): f"{_F}.repo_js:RepositoryVitestRunner",
    ("jest", "repository"): f"{_F}.repo_js:RepositoryJestRunner",
}
_REGISTRY: dict[tuple[str, str], type[Runner]] = {}
_loaded = False
_load_lock = threading.Lock()


def register_runner(cls: type[Runner]) -> type[Runner]:
    """Register a runner made in code (a third party's, a test's) under (its name, its kind)."""
    _REGISTRY[(cls.name, cls.kind)] = cls
    return cls


def runner_names() -> list[str]:
    _load()
    return sorted({name for name, _ in _REGISTRY})


def builtin_runner_classes() -> list[type[Runner]]:
    """The runners shipped with `runners` for kind suite (their modules imported on the way)."""
    return [runner_class(name) for name, kind in BUILTINS if kind == "suite"]


def builtin_protected() -> Protected:
    """What all built-in runners protect together (for a scan outside a run)."""
    merged = Protected()
    for runner in builtin_runner_classes():
        merged = merged | runner.protected()
    return merged


def runner_class(framework: str, kind: str = "suite") -> type[Runner]:
    key = (framework, kind)
    if key not in _REGISTRY and key in BUILTINS:
        _REGISTRY[key] = _import(BUILTINS[key], f"the {framework} runner")
    if key not in _REGISTRY:  # a third-party runner, or a mistake: look everywhere
        _load()
    if key not in _REGISTRY:
        from runners.util.suggest import did_you_mean

        known = sorted(name for name, k in _REGISTRY if k == kind)
        raise UserInputError(
            f"framework {framework!r} has no runner for kind "
            f"{kind!r}{did_you_mean(framework, known)} (known: {', '.join(known) or 'none'})"
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
        for key, target in BUILTINS.items():
            _REGISTRY.setdefault(key, _import(target, f"the {key[0]} runner"))
        from importlib.metadata import entry_points  # ~10 ms: only when a third party is looked for

        for point in entry_points(group=ENTRY_POINT_GROUP):
            cls = point.load()
            if not (isinstance(cls, type) and issubclass(cls, Runner)):
                raise UserInputError(
                    f"entry point {point.name!r} in {ENTRY_POINT_GROUP} is not a Runner class"
                )
            _REGISTRY.setdefault((point.name, cls.kind), cls)
        _loaded = True


def _import(target: str, what: str) -> type[Runner]:
    module, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module), attr, None)
    if not (isinstance(cls, type) and issubclass(cls, Runner)):
        raise InfrastructureError(f"{what} ({target}) is not a Runner class")
    return cls
