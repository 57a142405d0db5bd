"""Sets of integers written as ranges: "1-3,5,8-10"."""

from rangeset.parse import RangeSet, parse

__version__ = "1.0.0"
__all__ = ["RangeSet", "parse"]
