"""Shared by the test modules (imported relatively: `from .helpers import ...`)."""


def spans(text):
    """The ranges of `text` as the package parses them, as a list of pairs."""
    from rangeset import parse

    return [tuple(r) for r in parse(text).ranges]
