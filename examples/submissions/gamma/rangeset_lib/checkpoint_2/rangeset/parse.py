class RangeSet:
    def __init__(self, pairs=()):
        merged = []
        for start, end in sorted(pairs):
            if merged and start <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.ranges = merged

    def __len__(self):
        return sum(e - s + 1 for s, e in self.ranges)

    def __contains__(self, value):
        return any(s <= value <= e for s, e in self.ranges)

    def __eq__(self, other):
        return self.ranges == other.ranges

    def __str__(self):
        return ",".join(str(s) if s == e else f"{s}-{e}" for s, e in self.ranges)

    def __repr__(self):
        return f"RangeSet('{self}')"

    @classmethod
    def from_ints(cls, values):
        return cls([(v, v) for v in values])

    def __or__(self, other):
        from rangeset.ops import union
        return union(self, other)

    def __and__(self, other):
        from rangeset.ops import intersection
        return intersection(self, other)


def parse(text):
    """
    >>> from rangeset import parse
    >>> str(parse("3, 1-2"))
    '1-3'
    >>> parse("1-3,7").ranges
    ((1, 3), (7, 7))
    >>> 7 in parse("5-9")
    True
    """
    pairs = []
    for token in text.split(","):
        if not token.strip():
            continue
        if "-" in token:
            start, end = token.split("-", 1)
            pairs.append((int(start), int(end)))
        else:
            pairs.append((int(token), int(token)))
    return RangeSet([p for p in pairs if p[0] <= p[1]])
