from rangeset.parse import RangeSet, parse
