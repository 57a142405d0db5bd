import pytest

from rangeset import parse


def test_intersection():
    assert str(parse("1-10") & parse("3-4,8-12")) == "3-4,8-10"


def test_intersection_at_the_edges():
    assert str(parse("1-5") & parse("5-9")) == "5"


def test_disjoint_intersection_is_empty():
    assert len(parse("1-2") & parse("4-5")) == 0


def test_difference():
    assert str(parse("1-10") - parse("3-4,10")) == "1-2,5-9"


def test_difference_splits_a_range():
    assert str(parse("1-9") - parse("5")) == "1-4,6-9"


@pytest.mark.error
def test_operands_must_be_rangesets():
    with pytest.raises(TypeError):
        parse("1-3") | {4}
