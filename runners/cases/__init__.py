"""Case-based problems: groups of cases (input, expected) run through an adapter (CLI, HTTP API,
browser) and checked attribute by attribute by a verifier (SCBench's case-based evaluation).

Two halves share this package:

- the harness side (`runners.frameworks.cases_runner`) validates the problem and its case files
  before any sandbox starts, copies them where only the case program can find them, and turns the
  program's signed report into `TestResult`s;
- the case program (`program.py`, started by `runners_cases_main.py`) runs *inside* the sandbox
  as the test program: it loads the problem's cases, runs the submission as its own processes
  through the adapter, verifies, and writes the signed report.

Everything here imports only the standard library, pydantic, PyYAML, jsonschema, deepdiff and
this package: the case program's library is a copy of exactly this package
(`tests/test_cases_model.py` checks it).
"""
