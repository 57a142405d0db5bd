"""Where the cells of a batch run: the names of `jobs`, `local_pool` and `ray_executor` in one
place (the import path the docs and older callers use)."""

from runners.batch.jobs import (
    BAD_INPUT,
    DEFAULT_GRACE,
    POLL_SECONDS,
    Cancel,
    CellJob,
    CellOutcome,
    Executor,
    OnDone,
    OnStart,
    environment_payload,
    execute_cell,
    failure_result,
    ray_resources,
)
from runners.batch.local_pool import LocalExecutor
from runners.batch.ray_executor import RayExecutor, connect_ray, run_cell_remote

__all__ = [
    "BAD_INPUT",
    "DEFAULT_GRACE",
    "POLL_SECONDS",
    "Cancel",
    "CellJob",
    "CellOutcome",
    "Executor",
    "LocalExecutor",
    "OnDone",
    "OnStart",
    "RayExecutor",
    "connect_ray",
    "environment_payload",
    "execute_cell",
    "failure_result",
    "ray_resources",
    "run_cell_remote",
]
