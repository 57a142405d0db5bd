"""The problem's own conftest (trusted): fixtures every test folder shares."""

import pytest


@pytest.fixture
def sample():
    from rangeset import parse

    return parse("1-3, 7, 10-12")
