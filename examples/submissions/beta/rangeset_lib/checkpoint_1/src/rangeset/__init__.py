"""Integer range sets."""

from importlib.metadata import version

from .core import RangeSet
from .parse import parse

__version__ = version("rangeset")  # from the installed package's metadata
__all__ = ["RangeSet", "parse"]
