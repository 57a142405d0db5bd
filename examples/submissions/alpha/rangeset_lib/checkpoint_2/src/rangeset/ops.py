"""Set operations on RangeSets; each returns a new RangeSet.

>>> from rangeset import parse
>>> str(parse("1-5") | parse("7"))
'1-5,7'
>>> str(parse("1-10") & parse("4-12"))
'4-10'
>>> str(parse("1-10") - parse("4-5"))
'1-3,6-10'
"""

from __future__ import annotations

from rangeset.parse import RangeSet


def _check(*operands: object) -> None:
    for operand in operands:
        if not isinstance(operand, RangeSet):
            raise TypeError(f"expected a RangeSet, got {type(operand).__name__}")


def union(a: RangeSet, b: RangeSet) -> RangeSet:
    _check(a, b)
    return RangeSet([*a.ranges, *b.ranges])


def intersection(a: RangeSet, b: RangeSet) -> RangeSet:
    _check(a, b)
    out = []
    for s1, e1 in a.ranges:
        for s2, e2 in b.ranges:
            start, end = max(s1, s2), min(e1, e2)
            if start <= end:
                out.append((start, end))
    return RangeSet(out)


def difference(a: RangeSet, b: RangeSet) -> RangeSet:
    _check(a, b)
    out = []
    for start, end in a.ranges:
        pieces = [(start, end)]
        for s2, e2 in b.ranges:
            next_pieces = []
            for s, e in pieces:
                if e2 < s or s2 > e:
                    next_pieces.append((s, e))
                    continue
                if s < s2:
                    next_pieces.append((s, s2 - 1))
                if e2 < e:
                    next_pieces.append((e2 + 1, e))
            pieces = next_pieces
        out += pieces
    return RangeSet(out)
