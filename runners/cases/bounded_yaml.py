"""YAML read within bounds: every YAML the harness reads goes through `load`.

An alias (`*name`) repeats what an anchor (`&name`) marks without repeating its text, so a few
hundred bytes can stand for billions of values (the "billion laughs"): PyYAML builds them as
shared objects, but whatever walks the result (validation, error messages, JSON) walks every
repetition, and a 1 KB config once held a harness for minutes at 2 GB. `load` composes the
document (linear in its text), counts the values its aliases add when expanded, and refuses the
document when they add more than `max_alias_values` (or refer to themselves), before anything
is built from it. Ordinary aliases (a shared block of settings, `<<: *defaults`) stay well
within the bound.

Standalone on purpose (PyYAML only): the case program imports it inside the sandbox too.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_ALIAS_VALUES = 100_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YAMLBoundsError(yaml.YAMLError):
    """A document whose aliases expand beyond the bound (or into themselves)."""


def load(text: str | bytes, max_alias_values: int = MAX_ALIAS_VALUES) -> Any:
    """`yaml.safe_load(text)`, refusing a document whose aliases would expand it by more than
    `max_alias_values` values (YAMLBoundsError, a yaml.YAMLError)."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check(node, max_alias_values)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check(root: yaml.Node, budget: int) -> None:
    """Refuse a document whose aliases add more than `budget` values when expanded, or refer to
    themselves. Most documents have no alias: one pass finds none and is done."""
    if not _shared(root):
        return
    expanded: dict[int, int] = {}  # id(node) -> values it stands for, once counted
    written: set[int] = set()
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            active.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)] for child in _children(node))
            continue
        if key in expanded:
            continue
        if key in active:
            raise YAMLBoundsError(
                "an alias refers to a value that contains it (a recursive alias): refused"
            )
        written.add(key)
        active.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
    total = expanded[id(root)]
    if total - len(written) > budget:
        raise YAMLBoundsError(
            f"its aliases (*name) expand its {len(written):,} written values to {total:,}, "
            f"more than the {budget:,} extra values allowed (a YAML alias bomb?): refused"
        )


def _shared(root: yaml.Node) -> bool:
    """Whether any value is reached twice: an alias."""
    seen = {id(root)}
    stack = [root]
    while stack:
        for child in _children(stack.pop()):
            key = id(child)
            if key in seen:
                return True
            seen.add(key)
            stack.append(child)
    return False


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
