"""`deepdiff_verify`, `jsonschema_verify`, `matches_status_code`, `matches_regex`: each returns a
`VerificationResult` (diff, is_correct, weight)."""

from __future__ import annotations

import re
from typing import Any

from ..scoring import VerificationResult, VerifierError

DEFAULT_DEEPDIFF_KWARGS: dict[str, Any] = {
    "ignore_string_type_changes": True,
    "ignore_numeric_type_changes": True,
    "ignore_nan_inequality": True,
    "math_epsilon": 1e-6,
}


def deepdiff_verify(
    actual: Any, expected: Any, weight: float = 1.0, **kwargs: Any
) -> VerificationResult:
    """DeepDiff with `expected` as the old value and `actual` as the new one: correct when empty."""
    from deepdiff import DeepDiff

    diff = DeepDiff(expected, actual, **{**DEFAULT_DEEPDIFF_KWARGS, **kwargs})
    return VerificationResult.create(diff=diff, is_correct=not diff, weight=weight)


def jsonschema_verify(
    actual: Any, schema: dict[str, Any], weight: float = 1.0
) -> VerificationResult:
    from jsonschema import Draft7Validator

    errors = list(Draft7Validator(schema).iter_errors(actual))
    if not errors:
        return VerificationResult(diff="Schema validation passed", is_correct=True, weight=weight)
    return VerificationResult(
        diff={e.json_path: e.message for e in errors}, is_correct=False, weight=weight
    )


def matches_status_code(actual: Any, expected: Any, weight: float = 1.0) -> VerificationResult:
    same = actual == expected
    return VerificationResult(
        diff=f"{actual} == {expected} -> {same}", is_correct=same, weight=weight
    )


def matches_regex(
    actual: Any,
    expected_pattern: Any,
    weight: float = 1.0,
    flags: int | None = None,
    *,
    lstrip: bool = True,
) -> VerificationResult:
    """`re.match` (anchored at the start), case-insensitive unless `flags` says otherwise."""
    if not isinstance(expected_pattern, str) or not expected_pattern.strip():
        raise VerifierError(f"matches_regex needs a non-blank pattern, got {expected_pattern!r}")
    if actual is None:
        actual = ""
    elif isinstance(actual, bytes):
        actual = actual.decode("utf-8", "replace")
    text = str(actual).lstrip() if lstrip else str(actual)
    found = re.match(expected_pattern, text, re.IGNORECASE if flags is None else flags) is not None
    verb = "matches" if found else "does not match"
    return VerificationResult(
        diff=f"{text[:200]!r} {verb} /{expected_pattern}/", is_correct=found, weight=weight
    )
