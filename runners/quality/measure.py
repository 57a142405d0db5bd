"""Measure a submission's code, and the previous checkpoint's, into a `QualityReport`.

    job = QualityJob.start(listed, previous_dir, "checkpoint_1", limits, cache_dir)   # a thread
    ... the tests run meanwhile ...
    result.quality = job.report()

Figures are cached by a hash of the measured files and the tools' versions
(`<cache_dir>/quality/<hash>.json`): the previous checkpoint, measured when it was graded, is
then read back, and an unchanged submission costs a hash. Nothing here raises for what is in the
submission: what could not be measured is a note in the report.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import ValidationError

from runners.engine.submission import Inventory, inventory
from runners.model.errors import UserInputError
from runners.model.limits import ResourceLimits
from runners.quality import tools
from runners.quality.model import COMPLEX_ABOVE, CodeMetrics, QualityReport
from runners.quality.sources import Sources, TooMuchSource, select_sources

#: Bump when a figure's definition changes: cached figures of another version are not used.
QUALITY_VERSION = 1
CACHE_DIR = "quality"


class Measured:
    """One submission's figures, with the notes and the tools' versions that go with them."""

    def __init__(
        self,
        metrics: CodeMetrics | None,
        notes: list[str],
        tools_used: dict[str, str],
        seconds: float,
    ) -> None:
        self.metrics, self.notes, self.tools, self.seconds = metrics, notes, tools_used, seconds


def measure_inventory(
    found: Inventory, cache_dir: Path | None, running: tools.Running | None = None
) -> Measured:
    """The figures of the submission `found` lists (its limits already checked)."""
    try:
        sources = select_sources(found)
    except TooMuchSource as exc:
        return Measured(
            None, [f"not measured: {exc} (the bounds are in runners/quality/sources.py)"], {}, 0.0
        )
    notes = []
    if sources.oversized:
        shown = ", ".join(sources.oversized[:3]) + (" ..." if len(sources.oversized) > 3 else "")
        notes.append(f"{len(sources.oversized)} source file(s) over 1 MiB left out: {shown}")
    if not sources.files:
        return Measured(
            CodeMetrics(), [*notes, "no source files (Python, JavaScript, TypeScript, Go)"], {}, 0.0
        )
    versions = tools.tool_versions()
    key = _cache_key(sources, versions)
    cached = _read_cache(cache_dir, key)
    if cached is not None:
        return Measured(cached.metrics, [*notes, *cached.notes], cached.tools, 0.0)
    started = time.monotonic()
    measured = _run_tools(sources, versions, running or tools.Running())
    measured.notes[:0] = notes
    measured.seconds = round(time.monotonic() - started, 3)
    if measured.metrics is not None and not (running and running.cancelled):
        _write_cache(cache_dir, key, measured)
    return measured


def measure_directory(
    submission: Path,
    limits: ResourceLimits,
    cache_dir: Path | None,
    running: tools.Running | None = None,
) -> Measured:
    """The figures of a submission directory, within the submission limits of `limits`."""
    from runners.engine.workspace import SUBMISSION_IGNORE

    try:
        found = inventory(submission, limits, SUBMISSION_IGNORE)
    except UserInputError as exc:  # over a limit, or unreadable
        return Measured(None, [f"not measured: {str(exc).splitlines()[0]}"], {}, 0.0)
    return measure_inventory(found, cache_dir, running)


def _run_tools(
    sources: Sources, versions: dict[str, str | None], running: tools.Running
) -> Measured:
    home = Path(tempfile.mkdtemp(prefix="runners-quality-"))
    try:
        root = sources.write(home)
        found = tools.Findings()
        python, scripts = sources.of("python"), sources.of("javascript", "typescript")
        jobs = [
            lambda: tools.lizard(list(sources.files), root, home, running, found),
            lambda: tools.jscpd(root, home, running, found),
        ]
        if python:
            jobs.append(lambda: tools.ruff(python, root, home, running, found))
        if scripts:
            jobs.append(lambda: tools.eslint(scripts, root, home, running, found))
        with ThreadPoolExecutor(
            max_workers=len(jobs), thread_name_prefix="runners-quality"
        ) as pool:
            for future in [pool.submit(job) for job in jobs]:
                future.result()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    ran = {
        "lizard",
        "jscpd",
        *(["ruff"] if python else []),
        *(["eslint", "typescript-eslint"] if scripts else []),
    }
    used = {name: version for name, version in versions.items() if version and name in ran}
    return Measured(_metrics(sources, found, bool(python or scripts)), found.notes, used, 0.0)


def _metrics(sources: Sources, found: tools.Findings, lint_here: bool) -> CodeMetrics | None:
    if not found.measured_complexity:
        return None
    complexities = [ccn for ccn, _ in found.functions]
    lint = found.lint
    return CodeMetrics(
        files=len(sources.files),
        languages=sources.languages(),
        loc=found.loc,
        functions=len(complexities),
        complexity_total=sum(complexities),
        complexity_mean=round(sum(complexities) / len(complexities), 2) if complexities else 0.0,
        complexity_max=max(complexities, default=0),
        complex_functions=sum(ccn > COMPLEX_ABOVE for ccn in complexities),
        hotspots=tools.hotspots(found.functions),
        duplicate_blocks=found.duplicate_blocks,
        duplicated_lines=found.duplicated_lines,
        lint_findings=sum(lint.values()) if lint is not None and lint_here else None,
        lint_rules=dict(lint.most_common(tools.TOP_RULES)) if lint else {},
    )


# ---- the cache ---------------------------------------------------------------------------------


def _cache_key(sources: Sources, versions: dict[str, str | None]) -> str:
    settings = {
        "version": QUALITY_VERSION,
        "tools": versions,
        "ruff": tools.RUFF_SELECT,
        "ruff_ignore": tools.RUFF_IGNORE,
        "eslint": _file_hash(tools.ESLINT_CONFIG),
        "jscpd": [tools.JSCPD_MIN_TOKENS, tools.JSCPD_MIN_LINES],
    }
    text = json.dumps(settings, sort_keys=True) + sources.digest()
    return hashlib.sha256(text.encode()).hexdigest()


def _file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _read_cache(cache_dir: Path | None, key: str) -> QualityReport | None:
    if cache_dir is None:
        return None
    try:
        return QualityReport.model_validate_json(
            (cache_dir / CACHE_DIR / f"{key}.json").read_bytes()
        )
    except (OSError, ValidationError):
        return None


def _write_cache(cache_dir: Path | None, key: str, measured: Measured) -> None:
    if cache_dir is None:
        return
    folder = cache_dir / CACHE_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        record = QualityReport(metrics=measured.metrics, notes=measured.notes, tools=measured.tools)
        partial = folder / f".{key}.{os.getpid()}.{threading.get_ident()}.partial"
        partial.write_text(record.model_dump_json(), encoding="utf-8")
        partial.replace(folder / f"{key}.json")
    except OSError:
        pass  # a cache that cannot be written only costs time


# ---- one checkpoint, beside its test run ---------------------------------------------------------


def previous_submission(
    submission: Path, checkpoint: str, previous_checkpoint: str | None
) -> Path | None:
    """The previous checkpoint's submission when the layout says where it is: a directory named
    after the checkpoint, beside one named after the previous checkpoint (SCBench's
    `<agent>/<problem>/checkpoint_N`, a batch's and an agent run's snapshots)."""
    if previous_checkpoint is None or submission.name != checkpoint:
        return None
    candidate = submission.parent / previous_checkpoint
    return candidate if candidate.is_dir() and not candidate.is_symlink() else None


class QualityJob:
    """Measures in a thread of its own, started at once, while the tests run; `report()` waits
    for it."""

    def __init__(
        self,
        found: Inventory,
        previous: Path | None,
        previous_checkpoint: str | None,
        limits: ResourceLimits,
        cache_dir: Path | None,
    ) -> None:
        self.running = tools.Running()
        self._report: QualityReport | None = None
        self.found, self.previous, self.previous_checkpoint = found, previous, previous_checkpoint
        self.limits, self.cache_dir = limits, cache_dir
        self._thread = threading.Thread(target=self._work, name="runners-quality", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        started = time.monotonic()
        previous, previous_checkpoint, cache_dir = (
            self.previous,
            self.previous_checkpoint,
            self.cache_dir,
        )
        try:
            current = measure_inventory(self.found, cache_dir, self.running)
            before = (
                measure_directory(previous, self.limits, cache_dir, self.running)
                if previous
                else None
            )
            notes = list(current.notes)
            if before is not None and before.metrics is None:
                notes.append(
                    f"previous checkpoint {previous_checkpoint}: {'; '.join(before.notes)}"
                )
            self._report = QualityReport.of(
                current.metrics,
                before.metrics if before else None,
                previous_checkpoint if before is not None else None,
                tools=current.tools,
                notes=notes,
                seconds=round(time.monotonic() - started, 3),
            )
        except Exception as exc:  # noqa: BLE001 - the figures are an extra: a bug here must not lose the grade
            self._report = QualityReport(
                notes=[f"not measured: harness error {type(exc).__name__}: {exc}"]
            )

    def report(self, timeout: float | None = None) -> QualityReport:
        """The report; if the tools are still at work after `timeout` s, they are stopped."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.cancel()
            self._thread.join(5.0)
        return self._report or QualityReport(
            notes=["not measured: stopped before the tools finished"]
        )

    def cancel(self) -> None:
        self.running.kill()
