"""Set operations.

>>> from rangeset import parse
>>> str(parse("1-5") | parse("7"))
'1-5,7'
>>> str(parse("1-10") & parse("4-12"))
'4-10'
>>> str(parse("1-10") - parse("4-5"))
'1-3,6-10'
"""

from .core import RangeSet


def _ints(rs):
    return {n for s, e in rs.ranges for n in range(s, e + 1)}


def union(a, b):
    if not isinstance(b, RangeSet):
        raise TypeError("not a RangeSet")
    return RangeSet([*a.ranges, *b.ranges])


def intersection(a, b):
    if not isinstance(b, RangeSet):
        raise TypeError("not a RangeSet")
    out = []
    for s1, e1 in a.ranges:
        for s2, e2 in b.ranges:
            start, end = max(s1, s2), min(e1, e2)
            if start < end:  # drops overlaps of a single number
                out.append((start, end))
    return RangeSet(out)


def difference(a, b):
    if not isinstance(b, RangeSet):
        raise TypeError("not a RangeSet")
    return RangeSet.from_ints(_ints(a) - _ints(b))
