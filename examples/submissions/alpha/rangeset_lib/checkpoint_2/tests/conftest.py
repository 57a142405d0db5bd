import pytest


@pytest.fixture
def small():
    from rangeset import parse

    return parse("1-2")
