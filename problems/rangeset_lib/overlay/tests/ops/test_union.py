from rangeset import RangeSet, parse

from ..helpers import spans


def test_union_merges():
    assert str(parse("1-3") | parse("4-6,10")) == "1-6,10"


def test_union_with_empty():
    assert parse("") | parse("2") == parse("2")


def test_from_ints():
    assert str(RangeSet.from_ints([5, 1, 2, 3, 9, 2])) == "1-3,5,9"


def test_union_keeps_operands(sample):
    before = spans("1-3,7,10-12")
    _ = sample | parse("4-6")
    assert [tuple(r) for r in sample.ranges] == before
