"""Load: evaluations back to back and at once under the default backend (`auto`).

Every run is checked like a hostile case (it must pass, leave no process, container or workspace,
and end in time); on top, the harness's own memory must stay flat.
"""

from __future__ import annotations

import gc
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .cases import BY_ID, PASS
from .harness import SESSION, Observation, World, containers_marked


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class LoadResult:
    backend: str
    sequential: list[Observation] = field(default_factory=list)
    concurrent: list[Observation] = field(default_factory=list)
    sequential_seconds: float = 0.0
    concurrent_seconds: float = 0.0
    rss: dict[str, float] = field(default_factory=dict)
    workspaces_left: list[str] = field(default_factory=list)
    containers_left: list[str] = field(default_factory=list)

    @property
    def observations(self) -> list[Observation]:
        return self.sequential + self.concurrent

    @property
    def lost(self) -> int:
        return sum(1 for o in self.observations if o.result is None or o.outcome != PASS)

    def figures(self) -> dict[str, float | str]:
        return {
            "backend": self.backend,
            "sequential": len(self.sequential),
            "concurrent": len(self.concurrent),
            "sequential_seconds": self.sequential_seconds,
            "concurrent_seconds": self.concurrent_seconds,
            "lost": self.lost,
            "workspaces_left": len(self.workspaces_left),
            "containers_left": len(self.containers_left),
            "rss_start_mb": self.rss["start"],
            "rss_after_sequential_mb": self.rss["after_sequential"],
            "rss_end_mb": self.rss["end"],
            "rss_peak_mb": self.rss["peak"],
        }


def run_load(world: World, sequential: int = 40, concurrent: int = 8) -> LoadResult:
    honest = BY_ID["honest-reference"]
    warm = world.run_once(
        honest, "auto", label="load-warm"
    )  # builds toolchains if the cache is cold
    load = LoadResult(backend=warm.result.sandbox if warm.result else "?")
    gc.collect()
    load.rss["start"] = _status_mb("VmRSS")
    started = time.monotonic()
    for n in range(sequential):
        load.sequential.append(world.run_once(honest, "auto", label=f"load-{n}"))
    load.sequential_seconds = time.monotonic() - started
    gc.collect()
    load.rss["after_sequential"] = _status_mb("VmRSS")
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=concurrent) as pool:
        load.concurrent = list(
            pool.map(
                lambda n: world.run_once(honest, "auto", label=f"load-c{n}"), range(concurrent)
            )
        )
    load.concurrent_seconds = time.monotonic() - started
    gc.collect()
    load.rss["end"] = _status_mb("VmRSS")
    load.rss["peak"] = _status_mb("VmHWM")
    # Beyond each run's own checks: nothing of this session anywhere.
    load.workspaces_left = [
        str(p)
        for p in Path(tempfile.gettempdir()).glob(f"runners-*/submission/hostile-hx{SESSION}*")
    ]
    if load.backend == "docker":
        load.containers_left = containers_marked(f"hx{SESSION}")
    return load
