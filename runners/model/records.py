"""What a parser produces: one raw record per test, before groups are assigned.

Parsers know their framework; nothing after them does. A record carries the framework's facts
(status, markers, file) and `categorize` turns it into a `TestResult`.

Plain slotted dataclasses, not pydantic models: they never cross a boundary (the parsers build
them from reports they have already type-checked, and `TestResult` validates everything that
reaches a result), and with 100,000 tests validating each record twice was a fifth of the time
of normalizing a report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runners.model.results import TestStatus


@dataclass(slots=True)
class LoadError:
    """What is known of why a test file failed to load (a collection error), for
    `runners.engine.blame`: the error (`Type: message`), the traceback's frames and the files the
    error names (each `(path, line or None)`, paths as the sandbox saw them, maybe relative to its
    working directory), the module a ModuleNotFoundError misses, and whether the submission was on
    the import path when it happened (None: not known)."""

    error: str = ""
    frames: list[tuple[str, int | None]] = field(default_factory=list)
    files: list[tuple[str, int | None]] = field(default_factory=list)
    missing_module: str | None = None
    submission_on_path: bool | None = None


@dataclass(slots=True, kw_only=True)
class RawRecord:
    id: str
    name: str
    file: str | None = None  # the test file, relative to the tests root
    line: int | None = None
    status: TestStatus
    raw_status: str | None = None
    duration_ms: float | None = None
    markers: list[str] = field(default_factory=list)
    message: str | None = None
    traceback: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    attempts: int = 1
    flaky: bool = False
    collection_error: bool = False
    load_error: LoadError | None = None  # a collection error's facts, where the parser has them
    # Case-based problems only (see TestResult): the case's score, attributes and diff.
    score: float | None = None
    attributes: list[dict[str, Any]] | None = None
    diff: str | None = None


@dataclass(slots=True)
class ParsedReport:
    """A parser's whole output: the records plus what the report itself says about the run."""

    records: list[RawRecord] = field(default_factory=list)
    collected: int | None = None
    exit_code: int | None = None  # the exit code the report claims, if any
    errors: list[str] = field(default_factory=list)  # run-level errors in the report
