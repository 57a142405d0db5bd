"""The code-quality figures as flat columns of the batch's tables (results.jsonl, results.parquet):
`quality_<figure>` and `quality_<figure>_growth`, null where not measured."""

from __future__ import annotations

from typing import Any

from runners.quality.model import GROWING, QualityReport

_FLOATS = {"complexity_mean"}

#: Column name -> pyarrow type name (runners.batch.store.COLUMNS).
QUALITY_COLUMNS: dict[str, str] = {
    "quality_files": "int64",
    **{f"quality_{name}": "float64" if name in _FLOATS else "int64" for name in GROWING},
    **{f"quality_{name}_growth": "float64" for name in GROWING},
    "quality_previous_checkpoint": "string",
}


def quality_columns(report: QualityReport | None) -> dict[str, Any]:
    metrics = report.metrics if report else None
    row: dict[str, Any] = {
        "quality_files": metrics.files if metrics else None,
        "quality_previous_checkpoint": report.previous_checkpoint if report else None,
    }
    for name in GROWING:
        row[f"quality_{name}"] = getattr(metrics, name) if metrics else None
        row[f"quality_{name}_growth"] = report.growth.get(name) if report else None
    return row
