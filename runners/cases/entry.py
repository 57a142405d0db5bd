"""The case program's entry point, copied to `<config>/lib/runners_cases_main.py` for each run:
run by path (never `-m`), so the working directory (the submission) is not on `sys.path`."""

import os
import sys

# SCBench's problem scripts import `slop_code...`: the compatibility package, found last.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runners", "cases", "compat"))

from runners.cases.program import main

if __name__ == "__main__":
    sys.exit(main())
