import gc
import sys

# Start-up (imports, pydantic's model schemas, typer's parameters) allocates a great many objects
# and leaves no garbage: with the cyclic collector off until the command has imported what it
# needs, it takes about a third less CPU (bench: `python -m bench --only startup`).
gc.disable()

from runners import cli

cli.startup_gc_paused = True
sys.exit(cli.main())
