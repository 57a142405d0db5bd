"""Keep what a run produced: result JSON, raw reports, generated config, stdout and stderr.

Reports are copied with the same no-symlink, size-capped reads used for grading, so a hostile
submission cannot make the harness copy a host file into the artifacts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from runners.engine.workspace import Workspace
from runners.model.results import ExecutionResult
from runners.parsers.report_file import ReportError, read_report
from runners.sandbox.base import SandboxResult

if TYPE_CHECKING:
    from runners.engine.context import Invocation

RESULT_FILE = "result.json"


def save_artifacts(
    output_dir: Path,
    result: ExecutionResult,
    workspace: Workspace,
    report_paths: Iterable[Path],
    outcome: SandboxResult | None,
    invocation: Invocation | None,
    env: dict[str, str] | None,
) -> Path:
    output_dir.mkdir(parents=True, exist_ok=True)
    reports = output_dir / "reports"
    reports.mkdir(exist_ok=True)
    for path in report_paths:
        try:
            (reports / path.name).write_bytes(read_report(path))
        except ReportError as exc:
            (reports / f"{path.name}.missing.txt").write_text(f"{exc}\n", encoding="utf-8")
    config = output_dir / "config"
    if workspace.config.is_dir():
        config.mkdir(exist_ok=True)
        for item in workspace.config.iterdir():
            if item.is_file() and not item.is_symlink():
                (config / item.name).write_bytes(item.read_bytes())
    if outcome is not None:
        (output_dir / "stdout.txt").write_text(outcome.stdout, encoding="utf-8")
        (output_dir / "stderr.txt").write_text(outcome.stderr, encoding="utf-8")
    if invocation is not None:
        (output_dir / "command.json").write_text(
            json.dumps(
                {
                    "argv": invocation.argv,
                    "env": env if env is not None else invocation.env,
                    "entrypoint": invocation.entrypoint,
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return result.save(output_dir / RESULT_FILE)
