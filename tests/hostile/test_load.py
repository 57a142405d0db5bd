"""Load: 40 evaluations back to back and 8 at once under `auto`, nothing lost or leaked,
memory flat.

Slow (about a minute): deselect locally with `-m "not slow"`; CI runs it.
"""

from __future__ import annotations

import pytest
from support import need

from runners.model.errors import InfrastructureError
from runners.sandbox.registry import resolve_sandbox

from .harness import World
from .load import run_load

RSS_GROWTH_MB = 150  # generous: a leak of one result per run would exceed it long before 48 runs


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_forty_back_to_back_and_eight_at_once() -> None:
    reason = None
    try:
        resolve_sandbox("auto")
    except InfrastructureError as exc:
        reason = str(exc)
    need(reason is None, f"no sandbox for `auto`: {reason}")
    with World([]) as world:
        load = run_load(world, sequential=40, concurrent=8)
    figures = load.figures()
    print(f"\nload: {figures}")
    broken = [(o.case, o.outcome, o.violations) for o in load.observations if o.violations]
    assert not broken, broken[:3]
    assert load.lost == 0 and len(load.observations) == 48
    assert not load.workspaces_left, load.workspaces_left
    assert not load.containers_left, load.containers_left
    assert load.rss["end"] - load.rss["start"] < RSS_GROWTH_MB, load.rss
