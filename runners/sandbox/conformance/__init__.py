"""The sandbox conformance suite: what every backend promises, checked by running it for real.

Like inspect_ai's sandbox self-check, a backend is run through the same checks whatever it is:
limits, network off and on (and the allow-list), file operations, kills, what a kill leaves
behind, and what the submission can see. A backend that does not give a guarantee says so
(`Sandbox.limitations()`), and the check is reported as *not promised* with its reason instead of
being run; everything else must pass.

    runners sandbox check NAME [--only PREFIX]...      # one command, any registered backend
    python -m runners.sandbox.conformance NAME

From code or a test suite: `run_suite(sandbox)`, or one check with `run_check(sandbox, check)`
(`tests/sandbox/test_conformance.py` parametrizes pytest over backends and `CHECKS`).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["CHECKS", "Check", "CheckFailed", "Outcome", "run_check", "run_suite", "select_checks"]


def __getattr__(name: str) -> Any:
    """The names above, imported on first use: the command line registers `sandbox check`
    without loading the suite."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module("runners.sandbox.conformance.suite"), name)
