"""The process entry point of the command line: `python -m runners` and the `runners` script.

What only a whole process may do, kept out of `runners.cli` (which tests and other programs call
in process): pause the cyclic collector for the start-up, answer pydantic's plugin lookup, and
leave without the interpreter's teardown.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
import types
from typing import NoReturn


def main() -> NoReturn:
    # Start-up (imports, pydantic's model schemas, click's parameters) allocates a great many
    # objects and leaves no garbage: with the cyclic collector off until the command has imported
    # what it needs, it takes about a third less CPU (bench: `python -m bench --only startup`).
    gc.disable()
    # No pydantic plugins in the command line: looking for them scans every installed package's
    # entry points, and none of them has anything to do with a grade.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if (
        os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
        and "pydantic.plugin._loader" not in sys.modules
    ):
        # pydantic imports its plugin loader for the first model only to be told "disabled", and
        # the loader's import of importlib.metadata alone is ~10 ms of every command: answer it
        # here.
        no_plugins = types.ModuleType("pydantic.plugin._loader")
        no_plugins.get_plugins = lambda: ()  # type: ignore[attr-defined]
        sys.modules["pydantic.plugin._loader"] = no_plugins

    from runners import cli

    cli.startup_gc_paused = True
    code = cli.main()
    if threading.active_count() > 1:  # a worker thread still running: let the interpreter join it
        sys.exit(code)
    # The interpreter's teardown (freeing every module, pydantic's schemas, a last collection over
    # the whole heap) is ~40 ms of every command and does nothing for a process that is ending: run
    # the exit hooks (temporary directories, Ray, logging), flush, and leave.
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more to say
            code = code or 1
    os._exit(code)
