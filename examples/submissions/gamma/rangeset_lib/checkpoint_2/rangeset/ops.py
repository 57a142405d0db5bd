"""
>>> from rangeset import parse
>>> str(parse("1-5") | parse("7"))
'1-5,7'
>>> str(parse("1-10") & parse("4-12"))
'4-10'
>>> str(parse("1-10") - parse("4-5"))
'1-3,6-10'
"""
from rangeset.parse import RangeSet


def union(a, b):
    return RangeSet([tuple(r) for r in a.ranges] + [tuple(r) for r in getattr(b, "ranges", [])])


def intersection(a, b):
    return union(a, b)  # TODO
