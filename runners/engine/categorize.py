"""The group rules, one function for every framework.

1. A test from an earlier checkpoint's file is REGRESSION, whatever its markers.
2. `error` marker -> ERROR.  3. `regression` marker -> REGRESSION.
4. The first custom marker from the problem config -> its group.
5. `functionality` -> FUNCTIONALITY.  6. Otherwise CORE.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePosixPath

from runners.model.records import RawRecord
from runners.model.results import GroupType, TestResult
from runners.util.gcpause import gc_paused


def checkpoint_of_file(file: str | None, checkpoints: Iterable[str], current: str) -> str:
    """The checkpoint a test file belongs to: a known checkpoint name appearing as a whole token
    in its name (`test_checkpoint_2.py`, `checkpoint_2.test.ts`, `checkpoint_2_test.go`), else
    in its directories. Files that name no known checkpoint belong to the current one.
    """
    if not file:
        return current
    path = PurePosixPath(file.replace("\\", "/"))
    names = sorted(
        set(checkpoints), key=len, reverse=True
    )  # longest first: checkpoint_10 before _1
    for part in (path.name, *reversed(path.parent.parts)):
        for name in names:
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", part):
                return name
    return current


def group_for(
    markers: Sequence[str],
    test_checkpoint: str,
    current_checkpoint: str,
    order: Mapping[str, int],
    custom_markers: Mapping[str, GroupType],
) -> GroupType:
    if order.get(test_checkpoint, 0) < order.get(current_checkpoint, 0):
        return GroupType.REGRESSION
    marker_set = set(markers)
    if "error" in marker_set:
        return GroupType.ERROR
    if "regression" in marker_set:
        return GroupType.REGRESSION
    for marker in markers:
        if marker in custom_markers:
            return custom_markers[marker]
    if "functionality" in marker_set:
        return GroupType.FUNCTIONALITY
    return GroupType.CORE


@gc_paused()
def categorize(
    records: Iterable[RawRecord],
    current_checkpoint: str,
    order: Mapping[str, int],
    custom_markers: Mapping[str, GroupType],
    checkpoint_of: Callable[[str | None, str], str] | None = None,
) -> list[TestResult]:
    """Turn parser records into grouped `TestResult`s (`checkpoint_of(file, current)`: the
    checkpoint a test file belongs to, by default the one its name mentions).

    Each file's checkpoint is worked out once (with 100,000 tests in a few hundred files, the
    per-test path parsing and regex searches were most of the time of normalizing a report).
    """
    results = []
    checkpoints: dict[str, str] = {}
    for record in records:
        # Without a file (some JUnit producers), the id usually names the module or file.
        file = record.file or record.id.split("::", 1)[0]
        checkpoint = checkpoints.get(file)
        if checkpoint is None:
            checkpoint = checkpoints[file] = (
                checkpoint_of(file, current_checkpoint)
                if checkpoint_of
                else checkpoint_of_file(file, order, current_checkpoint)
            )
        results.append(
            TestResult(
                id=record.id,
                name=record.name,
                checkpoint=checkpoint,
                group_type=group_for(
                    record.markers, checkpoint, current_checkpoint, order, custom_markers
                ),
                status=record.status,
                raw_status=record.raw_status,
                duration_ms=record.duration_ms,
                file_path=record.file,
                line=record.line,
                markers=list(record.markers),
                failure_message=record.message,
                traceback=record.traceback,
                stdout=record.stdout,
                stderr=record.stderr,
                attempts=record.attempts,
                flaky=record.flaky,
                collection_error=record.collection_error,
                score=record.score,
                attributes=record.attributes,  # type: ignore[arg-type]  # validated by TestResult
                diff=record.diff,
            )
        )
    return results
