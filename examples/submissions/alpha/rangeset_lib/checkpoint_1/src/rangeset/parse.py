"""Parsing range-set text, and the RangeSet type."""

from __future__ import annotations

from collections.abc import Iterable


def _merge(pairs: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for start, end in sorted(pairs):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((start, end) for start, end in merged)


def _number(text: str, token: str) -> int:
    text = text.strip()
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"not a non-negative integer in {token!r}")
    return int(text)


class RangeSet:
    """A set of non-negative integers kept as merged inclusive ranges."""

    def __init__(self, pairs: Iterable[tuple[int, int]] = ()) -> None:
        self.ranges = _merge(pairs)

    @classmethod
    def from_ints(cls, values: Iterable[int]) -> RangeSet:
        return cls((value, value) for value in values)

    def __len__(self) -> int:
        return sum(end - start + 1 for start, end in self.ranges)

    def __contains__(self, value: object) -> bool:
        return any(start <= value <= end for start, end in self.ranges)  # type: ignore[operator]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RangeSet) and self.ranges == other.ranges

    def __hash__(self) -> int:
        return hash(self.ranges)

    def __str__(self) -> str:
        return ",".join(str(s) if s == e else f"{s}-{e}" for s, e in self.ranges)

    def __repr__(self) -> str:
        return f"RangeSet({str(self)!r})"

    def __or__(self, other: RangeSet) -> RangeSet:
        from rangeset import ops

        return ops.union(self, other)

    def __and__(self, other: RangeSet) -> RangeSet:
        from rangeset import ops

        return ops.intersection(self, other)

    def __sub__(self, other: RangeSet) -> RangeSet:
        from rangeset import ops

        return ops.difference(self, other)


def parse(text: str) -> RangeSet:
    """The RangeSet that `text` writes.

    >>> from rangeset import parse
    >>> str(parse("3, 1-2"))
    '1-3'
    >>> parse("1-3,7").ranges
    ((1, 3), (7, 7))
    >>> 7 in parse("5-9")
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str, got {type(text).__name__}")
    if not text.strip():
        return RangeSet()
    pairs = []
    for token in text.split(","):
        ends = token.split("-")
        if len(ends) == 1:
            value = _number(ends[0], token)
            pairs.append((value, value))
        elif len(ends) == 2:
            start, end = _number(ends[0], token), _number(ends[1], token)
            if start > end:
                raise ValueError(f"range {token.strip()!r} starts after it ends")
            pairs.append((start, end))
        else:
            raise ValueError(f"too many '-' in {token!r}")
    return RangeSet(pairs)
