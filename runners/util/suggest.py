""" "Did you mean ...?" for a name the user wrote that is not one we know (an option's value, a
config key, a checkpoint, a problem): difflib's close matches among the names that are.

No suggestion when none is close, nor when several are equally close (`checkpoint_9` among
`checkpoint_1..3`): the list of known names says more then.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6


def closest(word: str, known: Iterable[str]) -> str | None:
    """The one known name closest to `word`, if it is close and not tied with another."""
    names = [name for name in dict.fromkeys(known) if name != word]
    matches = difflib.get_close_matches(word, names, n=2, cutoff=CUTOFF)
    if not matches:
        return None
    if len(matches) > 1 and _ratio(word, matches[0]) == _ratio(word, matches[1]):
        return None
    return matches[0]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)`, or "" when nothing is close (see `closest`)."""
    match = closest(word, known)
    return f" (did you mean {match!r}?)" if match else ""


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()
