import pytest

from rangeset import parse


@pytest.mark.text
def test_canonical_text():
    assert str(parse(" 8-10, 5 ,1-3")) == "1-3,5,8-10"


@pytest.mark.text
def test_two_adjacent_numbers_stay_a_range():
    assert str(parse("4,5")) == "4-5"


@pytest.mark.text
def test_empty_set_text():
    assert str(parse("")) == ""


def test_repr_round_trips():
    value = parse("1-3,9")
    assert repr(value) == "RangeSet('1-3,9')"
