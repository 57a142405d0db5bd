"""The results directory of a batch.

```
<output>/
  batch.json                       settings, counts and times of the last batch run here
  cells/<agent>/<problem>/<checkpoint>/
      result.json                  ExecutionResult (from run_checkpoint(output_dir=...))
      reports/ config/ stdout.txt stderr.txt command.json     raw artifacts of the run
      cell.json                    CellRecord: written last; its presence marks the cell finished
  results.jsonl  results.parquet   one row per test of every cell (regenerated at the end)
  summary.md                       the agents x problems matrix
```

A finished cell is current while its content hashes (problem, submission) and settings match;
`plan()` says whether to run it again, and why.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runners.agents.repeats import split_label
from runners.batch.cells import Cell
from runners.engine.artifacts import RESULT_FILE
from runners.model.policy import PassPolicy
from runners.model.results import ExecutionResult
from runners.quality.columns import QUALITY_COLUMNS, quality_columns

CELL_FILE = "cell.json"
BATCH_FILE = "batch.json"
JSONL_FILE = "results.jsonl"
PARQUET_FILE = "results.parquet"
REPEATS_JSONL_FILE = "repeats.jsonl"
REPEATS_PARQUET_FILE = "repeats.parquet"
SUMMARY_FILE = "summary.md"
CELLS_DIR = "cells"
RECORD_VERSION = 1
MESSAGE_CHARS = 4000

CellStatus = Literal["ok", "infra", "problem", "crashed"]


class CellRecord(BaseModel):
    """How and from what a cell's result was produced. `status`: `ok` a grade; `infra` the run
    reported an infrastructure failure (kept; re-run with --retry-failed); `problem` a problem
    error (the problem's own files failed to load: re-run when the problem changes); `crashed`
    the harness itself failed (exception, worker died): always re-run."""

    model_config = ConfigDict(extra="ignore")

    record_version: int = RECORD_VERSION
    agent: str
    problem: str
    checkpoint: str
    status: CellStatus
    problem_hash: str
    submission_hash: str
    settings: dict[str, Any] = Field(default_factory=dict)
    reason: str | None = None
    executor: str = "local"
    worker: str = ""
    seconds: float = 0.0
    finished_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def rmtree_forcibly(path: Path) -> None:
    """rmtree that first restores write permission (runs seal trees read-only)."""
    if not path.exists() and not path.is_symlink():
        return
    for dirpath, dirnames, _ in os.walk(path):
        for name in dirnames:
            try:
                os.chmod(os.path.join(dirpath, name), 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


class BatchStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    # ---- cells --------------------------------------------------------------------------------

    def cell_dir(self, cell: Cell) -> Path:
        return self.root / CELLS_DIR / cell.agent / cell.problem / cell.checkpoint

    def record(self, cell: Cell) -> CellRecord | None:
        try:
            return CellRecord.model_validate_json((self.cell_dir(cell) / CELL_FILE).read_bytes())
        except (OSError, ValueError):
            return None

    def result(self, cell: Cell) -> ExecutionResult | None:
        try:
            return ExecutionResult.load(self.cell_dir(cell) / RESULT_FILE)
        except (OSError, ValueError):
            return None

    def plan(
        self,
        cell: Cell,
        hashes: dict[str, str],
        settings: dict[str, Any],
        *,
        overwrite: bool = False,
        retry_failed: bool = False,
    ) -> str | None:
        """None to keep the finished cell, else why it runs."""
        record = self.record(cell)
        if record is None:
            return "new"
        if overwrite:
            return "--overwrite"
        if record.status == "crashed":
            return f"the last run crashed: {record.reason or 'unknown'}"
        if record.status == "infra" and retry_failed:
            return "--retry-failed: the last run was an infrastructure failure"
        if record.problem_hash != hashes["problem"]:
            return "problem changed"
        if record.submission_hash != hashes["submission"]:
            return "submission changed"
        if record.settings != settings:
            changed = sorted(
                k
                for k in {*record.settings, *settings}
                if record.settings.get(k) != settings.get(k)
            )
            return "settings changed: " + ", ".join(
                f"{k} {record.settings.get(k)!r} -> {settings.get(k)!r}" for k in changed
            )
        if self.result(cell) is None:
            return "result.json missing or unreadable"
        return None

    def clear(self, cell: Cell) -> Path:
        """An empty directory for a cell about to run (drops a stale or cancelled one)."""
        path = self.cell_dir(cell)
        rmtree_forcibly(path)
        path.mkdir(parents=True)
        return path

    def finish(self, cell: Cell, record: CellRecord, result: ExecutionResult) -> None:
        """Make a cell finished: its result.json (when the run did not write one) then cell.json."""
        path = self.cell_dir(cell)
        result_file = path / RESULT_FILE
        if record.status == "crashed":  # whatever a crashed run (or an older run) left is stale
            self.clear(cell)
        if not result_file.is_file():
            path.mkdir(parents=True, exist_ok=True)
            result.artifacts_dir = str(path)
            _atomic_write(result_file, result.model_dump_json(indent=2))
        _atomic_write(path / CELL_FILE, record.model_dump_json(indent=2))

    # ---- batch-level files ---------------------------------------------------------------------

    def write_batch_info(self, info: dict[str, Any]) -> None:
        _atomic_write(self.root / BATCH_FILE, json.dumps(info, indent=2, default=str) + "\n")

    def write_summary(self, markdown: str) -> Path:
        path = self.root / SUMMARY_FILE
        _atomic_write(path, markdown)
        return path

    def write_tables(
        self,
        finished: Sequence[tuple[Cell, CellRecord, ExecutionResult]],
        policy: PassPolicy,
        agent_failures: Mapping[str, str] | None = None,
    ) -> tuple[Path, Path]:
        """results.jsonl and results.parquet from the cells' results (the whole batch, resumed
        cells included), one row per test; a cell without tests gets one row with null test
        fields."""
        failures = agent_failures or {}
        rows = [
            row
            for item in finished
            for row in table_rows(*item, policy=policy, agent_failure=failures.get(item[0].id))
        ]
        jsonl = self.root / JSONL_FILE
        _atomic_write(jsonl, "".join(json.dumps(r, default=_json_default) + "\n" for r in rows))
        parquet = self.root / PARQUET_FILE
        write_parquet(rows, parquet)
        return jsonl, parquet

    def write_repeats(self, rows: Sequence[dict[str, Any]]) -> tuple[Path, Path] | None:
        """repeats.jsonl and repeats.parquet: pass@k and the spread per agent, problem and
        checkpoint (`runners.agents.repeats.repeat_rows`); none when no agent has repeats."""
        jsonl, parquet = self.root / REPEATS_JSONL_FILE, self.root / REPEATS_PARQUET_FILE
        if not rows:
            for path in (jsonl, parquet):
                path.unlink(missing_ok=True)
            return None
        _atomic_write(jsonl, "".join(json.dumps(r) + "\n" for r in rows))
        import pyarrow as pa
        import pyarrow.parquet as pq

        tmp = parquet.with_name(f".{parquet.name}.tmp-{os.getpid()}")
        pq.write_table(pa.Table.from_pylist(list(rows)), tmp, compression="zstd")
        os.replace(tmp, parquet)
        return jsonl, parquet


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


# ---- the per-test table -------------------------------------------------------------------------

#: Column name -> pyarrow type name; the order is the column order of both files.
COLUMNS: dict[str, str] = {
    "agent": "string",
    "agent_name": "string",  # the agent without its repeat (`alpha` of `alpha@r2`)
    "repeat": "int32",  # which repeat (1 when the agent has none)
    "problem": "string",
    "checkpoint": "string",
    "checkpoint_order": "int32",
    "test_id": "string",
    "test_name": "string",
    "test_checkpoint": "string",
    "group": "string",
    "status": "string",
    "raw_status": "string",
    "duration_ms": "float64",
    "message": "string",
    "file_path": "string",
    "markers": "list<string>",
    "collection_error": "bool",
    "passed": "bool",
    "score": "float64",  # case-based problems: the case's score (null for other tests)
    "diff": "string",  # case-based problems: what a failing case got wrong
    # cell-level columns, repeated on each row of the cell
    "problem_name": "string",
    "problem_version": "int64",
    "checkpoint_version": "int64",
    "framework": "string",
    "sandbox": "string",
    "cell_status": "string",
    "infrastructure_failure": "bool",
    "infrastructure_reason": "string",
    "problem_error": "bool",
    "problem_error_reason": "string",
    "timed_out": "bool",
    "exit_code": "int64",
    "cell_duration": "float64",
    "cell_tests": "int64",
    "cell_passed": "int64",
    "policy": "string",
    "policy_met": "bool",
    "agent_failure": "string",
    "started_at": "timestamp[us, tz=UTC]",
    "result_path": "string",
    "schema_version": "int64",
    # the submission's code-quality figures (docs/quality.md), repeated on each row of the cell;
    # `*_growth`: since the previous checkpoint. Null: not measured.
    **QUALITY_COLUMNS,
}


def table_rows(
    cell: Cell,
    record: CellRecord,
    result: ExecutionResult,
    *,
    policy: PassPolicy,
    agent_failure: str | None = None,
) -> list[dict[str, Any]]:
    agent_name, repeat = split_label(cell.agent)
    base = {
        "agent": cell.agent,
        "agent_name": agent_name,
        "repeat": repeat,
        "problem": cell.problem,
        "checkpoint": cell.checkpoint,
        "checkpoint_order": cell.order,
        "problem_name": result.problem_name,
        "problem_version": result.problem_version,
        "checkpoint_version": result.checkpoint_version,
        "framework": result.framework,
        "sandbox": result.sandbox,
        "cell_status": record.status,
        "infrastructure_failure": result.infrastructure_failure,
        "infrastructure_reason": result.infrastructure_reason,
        "problem_error": result.problem_error,
        "problem_error_reason": result.problem_error_reason,
        "timed_out": result.timed_out,
        "exit_code": result.exit_code,
        "cell_duration": result.duration,
        "cell_tests": len(result.tests),
        "cell_passed": sum(t.passed for t in result.tests),
        "policy": policy.value,
        "policy_met": policy.check(result) and agent_failure is None,
        "agent_failure": agent_failure,
        "started_at": result.started_at,
        "result_path": result.artifacts_dir and str(Path(result.artifacts_dir) / RESULT_FILE),
        "schema_version": result.schema_version,
        **quality_columns(result.quality),
    }
    empty: dict[str, Any] = {
        "test_id": None,
        "test_name": None,
        "test_checkpoint": None,
        "group": None,
        "status": None,
        "raw_status": None,
        "duration_ms": None,
        "message": None,
        "file_path": None,
        "markers": [],
        "collection_error": None,
        "passed": None,
        "score": None,
        "diff": None,
    }
    if not result.tests:
        return [_ordered({**base, **empty})]
    rows = []
    for test in result.tests:
        message = test.failure_message
        if message and len(message) > MESSAGE_CHARS:
            message = message[: MESSAGE_CHARS - 1] + "…"
        rows.append(
            _ordered(
                {
                    **base,
                    "test_id": test.id,
                    "test_name": test.name,
                    "test_checkpoint": test.checkpoint,
                    "group": test.group_type.value,
                    "status": test.status,
                    "raw_status": test.raw_status,
                    "duration_ms": test.duration_ms,
                    "message": message,
                    "file_path": test.file_path,
                    "markers": list(test.markers),
                    "collection_error": test.collection_error,
                    "passed": test.passed,
                    "score": test.score,
                    "diff": test.diff[:MESSAGE_CHARS] if test.diff else None,
                }
            )
        )
    return rows


def _ordered(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row.get(name) for name in COLUMNS}


def arrow_schema() -> Any:
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int32": pa.int32(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "list<string>": pa.list_(pa.string()),
        "timestamp[us, tz=UTC]": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([pa.field(name, types[kind]) for name, kind in COLUMNS.items()])


def write_parquet(rows: Iterable[dict[str, Any]], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(rows)
    schema = arrow_schema()
    table = pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)
    return path
