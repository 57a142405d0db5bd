"""Import, while the sandboxed tests run, the modules needed only after them.

A CLI evaluation spends most of its fixed cost importing; the harness then sits idle in `poll()`
while the tests run. Modules that only the end of a run needs (the report parsers, the table
renderer) are imported on a thread in that idle time instead of after it. The engine starts the
thread just before the sandbox runs and joins it when the run is over, so no import is ever under
way while the harness itself imports, and none outlives the run.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Iterable

_wanted: list[str] = []
_lock = threading.Lock()


def after_run(*modules: str) -> None:
    """Ask for `modules` to be imported during the next sandboxed run (the CLI's renderer)."""
    with _lock:
        _wanted.extend(modules)


class Preload:
    def __init__(self, modules: Iterable[str]) -> None:
        with _lock:
            names = [
                name for name in dict.fromkeys([*_wanted, *modules]) if name not in sys.modules
            ]
            _wanted.clear()
        self._thread: threading.Thread | None = None
        if names:
            self._thread = threading.Thread(
                target=_import_all, args=(names,), name="runners-preload", daemon=True
            )
            self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def _import_all(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S110 - imported again where it is used, and fails there, loudly
            pass
