from rangeset import parse


def test_small(small):
    assert len(small) == 2


def test_text():
    assert str(parse("2,1")) == "1-2"
