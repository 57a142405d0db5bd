"""Labels on every container a run starts, and the sweep of those a dead harness left behind."""

from __future__ import annotations

import threading

from runners.processes import owner_gone
from runners.sandbox.docker.client import docker_client

LABEL_MANAGED = "runners.managed"
LABEL_RUN = "runners.run"
LABEL_OWNER = "runners.owner"
LABEL_PURPOSE = "runners.purpose"
LABEL_REQUEST = "runners.request"

_swept = False
_sweep_lock = threading.Lock()


def sweep_orphans() -> int:
    """Remove containers labelled `runners.managed` whose owning process on this host is gone
    (another machine's, on a shared engine, are not ours to judge)."""
    import docker

    client = docker_client()
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


def sweep_once() -> None:
    """The first run of this process sweeps; later ones do not pay for the listing."""
    global _swept
    if _swept:
        return
    with _sweep_lock:
        if _swept:
            return
        _swept = True
        sweep_orphans()
