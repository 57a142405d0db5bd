"""`--select` for vitest and jest: test ids -> files to run + an anchored name pattern, and the
tests the pattern filtered out dropped from the result.

An id is `file > describe... > title` (the result's ids) or a file alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from runners.model.errors import UserInputError
from runners.model.records import ParsedReport

_ORDINAL = re.compile(r" #\d+$")  # the ` #2` the parsers add to a repeated id


def js_escape(text: str) -> str:
    """Escape for a JavaScript RegExp (Python's re.escape also escapes characters JS rejects in
    unicode mode, such as spaces)."""
    return re.sub(r"[\\^$.*+?()[\]{}|/]", lambda m: "\\" + m.group(), text)


def select_tests(
    framework: str,
    available: list[str],
    select: Sequence[str],
    full_name_pattern: Callable[[list[str]], str],
) -> tuple[list[str], str | None]:
    """(test files to run, name pattern) for the ids in `select`; `full_name_pattern` turns the
    titles of one id into a regex for the framework's full test name. The pattern is anchored, so
    a title that is a prefix of another, or the same title in another describe, is not run too."""
    if not select:
        return available, None
    files: set[str] = set()
    whole: list[str] = []
    names: list[list[str]] = []
    for test_id in select:
        file, *titles = test_id.split(" > ")
        if file not in available:
            raise UserInputError(
                f"option --select: {test_id!r}: {file} is not a test file of this "
                f"checkpoint (files: {', '.join(available)})"
            )
        files.add(file)
        if titles:
            titles[-1] = _ORDINAL.sub("", titles[-1])
            names.append(titles)
        else:
            whole.append(file)
    if whole and names:
        raise UserInputError(
            f"option --select: {framework} can run whole files or single tests, "
            f"not both in one run ({', '.join(whole)} is a whole file)"
        )
    if not names:
        return sorted(files), None
    return sorted(files), "^(?:" + "|".join(full_name_pattern(t) for t in names) + ")$"


def keep_selected(select: Sequence[str], parsed: ParsedReport) -> None:
    """Tests the name pattern filtered out are reported as skipped: drop them, so that the
    result lists what was selected, as with pytest. Without any selected test left, the
    selection named nothing that exists."""
    if not select:
        return
    wanted = set(select)
    # A repeated title (`same title #2`) can only be selected with its twins: they ran too.
    twins = {_ORDINAL.sub("", i) for i in wanted}
    kept = [
        r
        for r in parsed.records
        if r.id in wanted
        or r.file in wanted
        or r.collection_error
        or (r.status != "skipped" and _ORDINAL.sub("", r.id) not in twins)
    ]
    if not any(r.id in wanted or r.file in wanted for r in kept):
        raise UserInputError(f"option --select: no such test among {' '.join(select)}")
    parsed.records = kept
