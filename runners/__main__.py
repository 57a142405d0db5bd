import gc
import os
import sys

# Start-up (imports, pydantic's model schemas, typer's parameters) allocates a great many objects
# and leaves no garbage: with the cyclic collector off until the command has imported what it
# needs, it takes about a third less CPU (bench: `python -m bench --only startup`).
gc.disable()
# No pydantic plugins in the command line: looking for them scans every installed package's entry
# points (7 ms of each start), and none of them has anything to do with a grade.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from runners import cli

cli.startup_gc_paused = True
sys.exit(cli.main())
