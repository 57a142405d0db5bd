"""What a parser produces: one raw record per test, before groups are assigned.

Parsers know their framework; nothing after them does. A record carries the framework's facts
(status, markers, file) and `categorize` turns it into a `TestResult`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from runners.results import TestStatus


class RawRecord(BaseModel):
    id: str
    name: str
    file: str | None = Field(None, description="Test file, relative to the tests root.")
    line: int | None = None
    status: TestStatus
    raw_status: str | None = None
    duration_ms: float | None = None
    markers: list[str] = Field(default_factory=list)
    message: str | None = None
    traceback: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    attempts: int = 1
    flaky: bool = False
    collection_error: bool = False


class ParsedReport(BaseModel):
    """A parser's whole output: the records plus what the report itself says about the run."""

    records: list[RawRecord] = Field(default_factory=list)
    collected: int | None = None
    exit_code: int | None = Field(None, description="The exit code the report claims, if any.")
    errors: list[str] = Field(default_factory=list, description="Run-level errors in the report.")
