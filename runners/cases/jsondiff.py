"""A JSON deep diff that reads well: one line per difference, at its path (`$.items[2].qty`).

Options: paths to ignore (`$.meta.time`, `$.items[*].id`, wildcards `*` and `[*]`), an absolute
tolerance for numbers, lists compared as multisets (everywhere, or at given paths), and objects
allowed keys beyond the expected ones (`subset`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

Path = tuple[str | int, ...]
_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\*|\d+)\]|\[['\"]([^'\"]+)['\"]\]")
MAX_LINES = 30


def parse_path(text: str) -> tuple[str | int, ...]:
    """`$.a.b[0]`, `a.b[*]`, `$['odd key']` -> ('a', 'b', 0); '*' is a wildcard."""
    text = text.strip()
    if text.startswith("$"):
        text = text[1:]
    elif text and not text.startswith((".", "[")):
        text = "." + text
    parts: list[str | int] = []
    pos = 0
    while pos < len(text):
        found = _TOKEN.match(text, pos)
        if not found:
            raise ValueError(f"not a JSON path: {text!r} (expected e.g. $.items[*].id)")
        key, index, quoted = found.groups()
        if index is not None:
            parts.append("*" if index == "*" else int(index))
        else:
            parts.append(quoted if quoted is not None else key)
        pos = found.end()
    return tuple(parts)


def format_path(path: Path) -> str:
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _matches(pattern: tuple[str | int, ...], path: Path) -> bool:
    return len(pattern) == len(path) and all(p == "*" or p == q for p, q in zip(pattern, path))


class JsonDiff:
    def __init__(
        self,
        ignore: Sequence[str] = (),
        tolerance: float = 0.0,
        unordered: bool | Sequence[str] = False,
        subset: bool = False,
    ) -> None:
        self.ignore = [parse_path(p) for p in ignore]
        self.subset = subset  # keys the actual object has beyond the expected ones are fine
        self.tolerance = tolerance
        self.unordered_all = unordered is True
        self.unordered = [] if isinstance(unordered, bool) else [parse_path(p) for p in unordered]

    def diff(self, expected: Any, actual: Any) -> list[str]:
        """Differences of `actual` from `expected` (empty: equal)."""
        lines: list[str] = []
        self._walk(expected, actual, (), lines)
        return lines

    def _ignored(self, path: Path) -> bool:
        return any(_matches(p, path) for p in self.ignore)

    def _walk(self, expected: Any, actual: Any, path: Path, lines: list[str]) -> None:
        if self._ignored(path):
            return
        if isinstance(expected, dict) and isinstance(actual, dict):
            for key in expected:
                if key not in actual:
                    if not self._ignored((*path, key)):
                        lines.append(
                            f"{format_path((*path, key))}: missing (expected "
                            f"{_short(expected[key])})"
                        )
                else:
                    self._walk(expected[key], actual[key], (*path, key), lines)
            for key in () if self.subset else actual:
                if key not in expected and not self._ignored((*path, key)):
                    lines.append(
                        f"{format_path((*path, key))}: unexpected (got {_short(actual[key])})"
                    )
        elif isinstance(expected, list) and isinstance(actual, list):
            if self.unordered_all or any(_matches(p, path) for p in self.unordered):
                self._multiset(expected, actual, path, lines)
                return
            for index, (e, a) in enumerate(zip(expected, actual)):
                self._walk(e, a, (*path, index), lines)
            if len(expected) != len(actual):
                lines.append(
                    f"{format_path(path)}: expected {len(expected)} items, got {len(actual)}"
                )
        elif not self._equal(expected, actual):
            lines.append(f"{format_path(path)}: expected {_short(expected)}, got {_short(actual)}")

    def _multiset(
        self, expected: list[Any], actual: list[Any], path: Path, lines: list[str]
    ) -> None:
        left = list(range(len(actual)))
        for index, item in enumerate(expected):
            hit = next((j for j in left if not self._sub_diff(item, actual[j], (*path, j))), None)
            if hit is None:
                lines.append(
                    f"{format_path((*path, index))}: no matching item for {_short(item)} (order "
                    "ignored)"
                )
            else:
                left.remove(hit)
        for j in left:
            lines.append(
                f"{format_path((*path, j))}: unexpected item {_short(actual[j])} (order ignored)"
            )

    def _sub_diff(self, expected: Any, actual: Any, path: Path) -> list[str]:
        found: list[str] = []
        self._walk(expected, actual, path, found)
        return found

    def _equal(self, expected: Any, actual: Any) -> bool:
        if isinstance(expected, bool) or isinstance(actual, bool):
            return type(expected) is type(actual) and expected == actual
        if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
            return abs(expected - actual) <= self.tolerance
        return type(expected) is type(actual) and expected == actual


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_lines(lines: list[str], limit: int = MAX_LINES) -> str:
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more differences"]
    return "\n".join(lines)
