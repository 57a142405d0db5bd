"""`python -m runners.sandbox.conformance NAME`: the same as `runners sandbox check NAME`."""

import sys

from runners.cli import main

sys.exit(main(["sandbox", "check", *sys.argv[1:]]))
