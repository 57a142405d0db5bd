"""The case program's entry point, copied to `<config>/lib/runners_cases_main.py` for each run:
run by path (never `-m`), so the working directory (the submission) is not on `sys.path`; its
own directory (the library) is put first explicitly, whatever PYTHONSAFEPATH says, as no
variable of the program's own may be in the sandbox's environment (runners/cases/program.py)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if not sys.path or sys.path[0] != HERE:
    sys.path.insert(0, HERE)
# SCBench's problem scripts import `slop_code...`: the compatibility package, found last.
sys.path.append(os.path.join(HERE, "runners", "cases", "compat"))

from runners.cases.program import main

if __name__ == "__main__":
    sys.exit(main())
