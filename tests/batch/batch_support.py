"""Helpers of the batch tests (imported by the tests by name; the fixtures are in conftest.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from runners.util.processes import start_time


def runners_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 900, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runners", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        check=False,
    )


_WORKSPACE = re.compile(r"(?:/[^/\s'\"\\]+)*/runners-[a-z0-9_]{8}(?![A-Za-z0-9_])")
_ADDRESS = re.compile(r"0x[0-9a-f]{6,16}")
# Prepared environments in the cache are named by a hash of what they hold (and of the harness
# code that builds them): the same cell can use a newer one when that code changed in between.
_CACHE_KEY = re.compile(r"(?<=/)([a-z]+)-[0-9a-f]{20}(?=/)")
_VOLATILE = {"started_at", "duration", "artifacts_dir", "stdout", "stderr"}


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    """A result without what differs between two runs of the same cell: times, durations, the
    output tails, the temporary workspace's path, object addresses in tracebacks, and the order
    of the lines of a message (pytest lists set differences in hash order; the harness pins
    PYTHONHASHSEED, but a problem's own tests may start processes that do not)."""

    def clean(value: Any, key: str = "") -> Any:
        if isinstance(value, str):
            value = _WORKSPACE.sub("<workspace>", value)
            value = _CACHE_KEY.sub(r"\1-<key>", _ADDRESS.sub("0x?", value))
            if key in ("failure_message", "traceback"):
                return sorted(value.splitlines())
            return value
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v, k) for k, v in value.items() if k != "duration_ms"}
        return value

    kept = {k: v for k, v in result.items() if k not in _VOLATILE}
    if isinstance(kept.get("quality"), dict):  # the figures' measuring time (0 from the cache)
        kept["quality"] = {k: v for k, v in kept["quality"].items() if k != "seconds"}
    return clean(kept)


def assert_same_results(
    batch_dir: Path, cells: list[Any], reference: dict[str, dict[str, Any]]
) -> None:
    mismatched = []
    for cell in cells:
        got = json.loads(
            (
                batch_dir / "cells" / cell.agent / cell.problem / cell.checkpoint / "result.json"
            ).read_text()
        )
        want = reference[cell.id]
        if comparable(got) != comparable(want):
            diff = _first_difference(comparable(want), comparable(got))
            mismatched.append(f"{cell.id}: {diff}")
    assert not mismatched, "\n".join(mismatched)


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: runners run {str(a)[:300]!r} != batch {str(b)[:300]!r}"


def running_with(text: str) -> list[str]:
    """Live processes (zombies aside) whose command line mentions `text`, e.g. a test's private
    TMPDIR: what a batch left running."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = (
                Path(f"/proc/{entry}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
            )
        except OSError:
            continue
        if text in cmdline and start_time(int(entry)) is not None:
            found.append(f"{entry}: {cmdline[:200]}")
    return found
