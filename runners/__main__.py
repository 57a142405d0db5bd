import gc
import os
import sys

# Start-up (imports, pydantic's model schemas, click's parameters) allocates a great many objects
# and leaves no garbage: with the cyclic collector off until the command has imported what it
# needs, it takes about a third less CPU (bench: `python -m bench --only startup`).
gc.disable()
# No pydantic plugins in the command line: looking for them scans every installed package's entry
# points (7 ms of each start), and none of them has anything to do with a grade.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
if os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__" and "pydantic.plugin._loader" not in sys.modules:
    # pydantic imports its plugin loader for the first model only to be told "disabled", and the
    # loader's import of importlib.metadata alone is ~10 ms of every command: answer it here.
    import types

    _no_plugins = types.ModuleType("pydantic.plugin._loader")
    _no_plugins.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = _no_plugins

import atexit
import threading

from runners import cli

cli.startup_gc_paused = True
code = cli.main()
if threading.active_count() > 1:  # a worker thread still running: let the interpreter join it
    sys.exit(code)
# The interpreter's teardown (freeing every module, pydantic's schemas, a last collection over
# the whole heap) is ~40 ms of every command and does nothing for a process that is ending: run the
# exit hooks (temporary directories, Ray, logging), flush, and leave.
atexit._run_exitfuncs()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except (OSError, ValueError):  # a closed pipe (`| head`): nothing more to say
        code = code or 1
os._exit(code)
