"""Batch runs: every agent's submission for every checkpoint of every problem, as a matrix.

```
<submissions>/<agent>/<problem>/<checkpoint>/  x  <problems>/<problem>/   ->  cells
cells -> executor (local process pool | Ray tasks) -> <output>/cells/... + results.{jsonl,parquet}
      -> agents x problems matrix (strict / isolated / core solve rates, pass rate per group)
```

    from runners.batch import BatchOptions, run_batch
    outcome = run_batch(BatchOptions(problems=Path("problems"), submissions=Path("subs"), jobs=2))

`runners.batch.executors.run_cell_remote(cell, address)` runs a single cell on a Ray cluster.
"""

from runners.batch.cells import Cell, Discovery, discover, problem_hash, submission_hash
from runners.batch.executors import (
    CellJob,
    CellOutcome,
    LocalExecutor,
    RayExecutor,
    run_cell_remote,
)
from runners.batch.orchestrator import BatchOptions, BatchOutcome, run_batch
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
