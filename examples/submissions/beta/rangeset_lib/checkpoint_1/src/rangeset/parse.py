"""Range-set text -> RangeSet."""

from .core import RangeSet


def _int(text):
    text = text.strip()
    if not text.isdigit():
        raise ValueError(f"bad number {text!r}")
    return int(text)


def parse(text):
    """Parse range-set text.

    >>> from rangeset import parse
    >>> str(parse("3, 1-2"))
    '1-3'
    >>> parse("1-3,7").ranges
    ((1, 3), (7, 7))
    >>> 7 in parse("5-9")
    True
    """
    if not isinstance(text, str):
        raise TypeError("text must be a str")
    if text.strip() == "":
        return RangeSet()
    pairs = []
    for token in text.split(","):
        parts = token.split("-")
        if len(parts) > 2:
            raise ValueError(f"bad range {token!r}")
        start = _int(parts[0])
        end = _int(parts[-1])
        if start > end:
            raise ValueError(f"reversed range {token!r}")
        pairs.append((start, end))
    return RangeSet(pairs)
