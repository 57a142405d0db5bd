"""Pause Python's cyclic garbage collector while a report is turned into results.

Parsing a big report allocates millions of small, acyclic objects (the JSON tree, one record and
one result per test). Every few hundred allocations the collector runs, and every so often it
traverses everything alive: for a 100,000-test pytest-json-report that was ~40 % of the time of
normalizing it (bench: `python -m bench --only parsing`). Nothing built there has reference
cycles, so pausing collection loses nothing; it resumes (if it was on) when the outermost paused
block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Usable as a context manager or as a decorator; nesting is fine."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
