"""The RangeSet type."""


class RangeSet:
    def __init__(self, pairs=()):
        merged = []
        for start, end in sorted(pairs):
            if merged and start <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self.ranges = tuple(merged)

    @classmethod
    def from_ints(cls, values):
        return cls((v, v) for v in values)

    def __len__(self):
        return sum(e - s + 1 for s, e in self.ranges)

    def __contains__(self, value):
        return any(s <= value <= e for s, e in self.ranges)

    def __eq__(self, other):
        return isinstance(other, RangeSet) and self.ranges == other.ranges

    def __hash__(self):
        return hash(self.ranges)

    def __str__(self):
        return ",".join(f"{s}" if s == e else f"{s}-{e}" for s, e in self.ranges)

    def __repr__(self):
        return f"RangeSet('{self}')"

    def __or__(self, other):
        from .ops import union
        return union(self, other)

    def __and__(self, other):
        from .ops import intersection
        return intersection(self, other)

    def __sub__(self, other):
        from .ops import difference
        return difference(self, other)
