"""Batch runs: every agent's submission for every checkpoint of every problem, as a matrix.

```
<submissions>/<agent>/<problem>/<checkpoint>/  x  <problems>/<problem>/   ->  cells
cells -> executor (local process pool | Ray tasks) -> <output>/cells/... + results.{jsonl,parquet}
      -> agents x problems matrix (strict / isolated / core solve rates, pass rate per group)
```

    from runners.batch import BatchOptions, run_batch
    outcome = run_batch(BatchOptions(problems=Path("problems"), submissions=Path("subs"), jobs=2))

`runners.batch.ray_executor.run_cell_remote(cell, address)` (also importable from `runners.batch`)
runs a single cell on a Ray cluster.
"""

from runners.batch.cells import Cell, Discovery, discover, problem_hash, submission_hash
from runners.batch.jobs import CellJob, CellOutcome
from runners.batch.local_pool import LocalExecutor
from runners.batch.orchestrator import BatchOptions, BatchOutcome, run_batch
from runners.batch.ray_executor import RayExecutor, run_cell_remote
from runners.batch.report import Matrix, build_matrix, matrix_markdown
from runners.batch.store import BatchStore, CellRecord

__all__ = [
    "BatchOptions",
    "BatchOutcome",
    "BatchStore",
    "Cell",
    "CellJob",
    "CellOutcome",
    "CellRecord",
    "Discovery",
    "LocalExecutor",
    "Matrix",
    "RayExecutor",
    "build_matrix",
    "discover",
    "matrix_markdown",
    "problem_hash",
    "run_batch",
    "run_cell_remote",
    "submission_hash",
]
