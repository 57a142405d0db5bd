"""Read a report file that untrusted code may have touched.

Never follows a symlink (neither the file nor the directory it sits in), accepts only a regular
file, caps the size, and can require the file to be newer than the run's start. Every refusal is a
`ReportError` whose message says why, and the caller turns it into an infrastructure failure.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from pydantic_core import from_json

# Reports are parsed in the harness's memory: a test that prints hundreds of MB inside the test
# process must not take the harness down with it (a bigger report is an infrastructure failure).
DEFAULT_MAX_BYTES = 128 * 1024 * 1024


class ReportError(Exception):
    """The report cannot be trusted or read; the message is the reason."""


def read_report(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, not_before: float | None = None
) -> bytes:
    path = Path(path)
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise ReportError(f"report directory {path.parent} is missing") from None
    except OSError as exc:
        raise ReportError(
            f"report directory {path.parent} is not a plain directory ({exc.strerror})"
        ) from None
    try:
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        except FileNotFoundError:
            raise ReportError(f"report {path.name} was not written") from None
        except OSError as exc:
            raise ReportError(
                f"report {path.name} cannot be opened safely ({exc.strerror}; a symlink?)"
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ReportError(f"report {path.name} is not a regular file")
            if info.st_size == 0:
                raise ReportError(f"report {path.name} is empty")
            if info.st_size > max_bytes:
                raise ReportError(
                    f"report {path.name} is {info.st_size} bytes, over the {max_bytes}-byte cap"
                )
            if not_before is not None and info.st_mtime < not_before - 1:
                raise ReportError(f"report {path.name} was written before the run started")
            chunks, remaining = [], max_bytes + 1
            while remaining > 0 and (chunk := os.read(fd, min(remaining, 1 << 20))):
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
            if len(data) > max_bytes:
                raise ReportError(
                    f"report {path.name} grew past the {max_bytes}-byte cap while read"
                )
            return data
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def check_no_links(root: Path, relative: str) -> Path:
    """`root/relative`, refusing any symlink among its directories (the file itself is checked
    when opened): a submission could otherwise point the harness at a host file."""
    current = Path(root)
    parts = Path(relative).parts
    for part in parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            raise ReportError(f"report directory {current} is missing") from None
        if not stat.S_ISDIR(mode):
            raise ReportError(
                f"report path component {current} is not a plain directory (a symlink?)"
            )
    return current / parts[-1]


def load_json_object(data: bytes | str | dict[str, Any], label: str) -> dict[str, Any]:
    """A report's top-level JSON object; anything else is a `ReportError` naming the format."""
    if isinstance(data, dict):
        return data
    try:
        # pydantic's JSON parser: 2.5x json.loads on a 100,000-test report, same Python objects.
        report = from_json(data, cache_strings="keys")
    except ValueError:
        report = _stdlib_json(data, label)  # it rejects lone surrogates ("\udcff"), json keeps them
    if not isinstance(report, dict):
        raise ReportError(f"{label} report is not a JSON object")
    return report


def _stdlib_json(data: bytes | str, label: str) -> Any:
    try:
        return json.loads(data)
    except ValueError as exc:  # malformed JSON or bytes that are not UTF-8
        raise ReportError(f"{label} report is not valid JSON ({exc})") from None
