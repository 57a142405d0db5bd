"""A DeepDiff report (what SCBench's `deepdiff_verify` puts in a verdict's diff: expected is the
old value, actual the new one) as one readable line per difference, in the built-in matchers'
style: `$.words[0]: expected "apple", got "pear"`, `$.id: missing`, `$.extra: unexpected`.
A report with anything else in it is left to the caller (shown as JSON)."""

from __future__ import annotations

import json
import re
from typing import Any

KINDS = (
    "values_changed",
    "type_changes",
    "dictionary_item_added",
    "dictionary_item_removed",
    "iterable_item_added",
    "iterable_item_removed",
    "set_item_added",
    "set_item_removed",
    "repetition_change",
)
MAX_LINES = 60
_KEY = re.compile(r"\['([A-Za-z_][A-Za-z0-9_-]*)'\]")


def is_deepdiff(diff: Any) -> bool:
    return isinstance(diff, dict) and bool(diff) and all(k in KINDS for k in diff)


def deepdiff_lines(diff: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for kind, entries in diff.items():
        items = entries.items() if isinstance(entries, dict) else ((path, None) for path in entries)
        for path, detail in items:
            lines += _describe(kind, _path(str(path)), detail)
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], f"... {len(lines) - MAX_LINES} more differences"]
    return lines


def _describe(kind: str, where: str, detail: Any) -> list[str]:
    at = "" if where == "$" else f"{where}: "  # the whole value: no path
    if kind == "values_changed":
        if isinstance(detail.get("diff"), str):  # two multi-line texts: their unified diff
            return [f"{where}:", *(f"  {line}" for line in detail["diff"].splitlines()[2:])]
        return [
            f"{at}expected {_value(detail.get('old_value'))}, got {_value(detail.get('new_value'))}"
        ]
    if kind == "type_changes":
        return [
            (
                f"{at}expected {_value(detail.get('old_value'))} ({detail.get('old_type')}), "
                f"got {_value(detail.get('new_value'))} ({detail.get('new_type')})"
            )
        ]
    if kind == "repetition_change":
        return [
            (
                f"{at}{_value(detail.get('value'))} expected {detail.get('old_repeat')} time(s), "
                f"got {detail.get('new_repeat')}"
            )
        ]
    missing = kind.endswith("_removed")
    shown = "" if detail is None else f" {_value(detail)}"
    return [f"{at}{'missing' if missing else 'unexpected'}{shown}"]


def _path(path: str) -> str:
    """`root['words'][0]` -> `$.words[0]`."""
    return _KEY.sub(r".\1", path.replace("root", "$", 1))


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:119] + "…"
