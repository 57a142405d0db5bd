"""Range-set text -> RangeSet (a regular expression per token)."""

import re

from .core import RangeSet

_TOKEN = re.compile(r"^\s*(\d+)(?:-(\d+))?\s*$")


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
        found = _TOKEN.match(token)
        if not found:
            raise ValueError(f"bad token {token!r}")
        start = int(found.group(1))
        end = int(found.group(2) or start)
        if start > end:
            raise ValueError(f"reversed range {token!r}")
        pairs.append((start, end))
    return RangeSet(pairs)
