"""Labels on every container a run starts, and the sweep of those a dead harness left behind."""

from __future__ import annotations

import threading

from runners.sandbox.docker.client import Engine
from runners.util.processes import owner_gone

LABEL_MANAGED = "runners.managed"
LABEL_RUN = "runners.run"
LABEL_OWNER = "runners.owner"
LABEL_PURPOSE = "runners.purpose"
LABEL_REQUEST = "runners.request"

_swept: set[str | None] = set()  # engine URLs swept by this process
_sweep_lock = threading.Lock()


def sweep_orphans(engine: Engine) -> int:
    """Remove containers labelled `runners.managed` whose owning process on this host is gone
    (another machine's, on a shared engine, are not ours to judge)."""
    import docker

    client = engine.client
    removed = 0
    try:
        found = client.containers.list(all=True, filters={"label": f"{LABEL_MANAGED}=1"})
    except docker.errors.APIError:
        return 0
    for container in found:
        if not owner_gone((container.labels or {}).get(LABEL_OWNER, "")):
            continue
        try:
            container.remove(force=True)
            removed += 1
        except docker.errors.APIError:  # NotFound included: removed meanwhile
            pass
    return removed


def sweep_once(engine: Engine) -> None:
    """The first run of this process on an engine sweeps it; later ones do not pay for the
    listing."""
    if engine.url in _swept:
        return
    with _sweep_lock:
        if engine.url in _swept:
            return
        _swept.add(engine.url)
    sweep_orphans(engine)
