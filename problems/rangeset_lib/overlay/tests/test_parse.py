import pytest

import rangeset
from rangeset import RangeSet, parse

from .helpers import spans


def test_single_numbers_and_ranges():
    assert spans("1-3,5,8-10") == [(1, 3), (5, 5), (8, 10)]


def test_spaces_around_tokens_are_allowed():
    assert spans(" 1 - 3 ,  5 ") == [(1, 3), (5, 5)]


def test_overlapping_and_adjacent_ranges_merge():
    assert spans("5-8,1-3,4,7-12") == [(1, 12)]


def test_unsorted_input_is_sorted():
    assert spans("9,2,5-6") == [(2, 2), (5, 6), (9, 9)]


def test_empty_text_is_the_empty_set():
    assert spans("") == []
    assert len(parse("  ")) == 0


def test_len_counts_integers(sample):
    assert len(sample) == 7


def test_membership(sample):
    assert 2 in sample and 7 in sample and 12 in sample
    assert 4 not in sample and 13 not in sample and 0 not in sample


def test_equality_compares_contents():
    assert parse("1-3") == parse("3,1,2")
    assert parse("1-3") != parse("1-4")


def test_rangeset_is_exported_and_versioned():
    assert isinstance(parse("1"), RangeSet)
    assert isinstance(rangeset.__version__, str) and rangeset.__version__


@pytest.mark.error
@pytest.mark.parametrize("bad", ["a", "1-", "-3", "3-1", "1,,2", "1-2-3", "1.5"])
def test_malformed_text_raises_value_error(bad):
    with pytest.raises(ValueError):
        parse(bad)


@pytest.mark.error
def test_non_string_raises_type_error():
    with pytest.raises(TypeError):
        parse(12)
