"""Verifiers: what judges a case. The built-in one applies the matchers of the case file; given
an expected result without matchers (a problem's own loader), it compares every field the loader
set, exactly (structures as JSON). A problem's own `verifier.py` defines `Verifier(checkpoint)`,
called as `verifier(group_name=, case_name=, actual=, expected=)` -> {attribute:
VerificationResult}; it may subclass `BuiltinVerifier` and change what it returns.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from .matchers import Exact, Json
from .model import RESULT_FIELDS, CaseResult
from .scoring import VerificationResult

VerifierReturnType = dict[str, VerificationResult]


@runtime_checkable
class VerifierProtocol(Protocol):
    def __call__(
        self, group_name: str, case_name: str, actual: CaseResult, expected: CaseResult
    ) -> VerifierReturnType: ...


def attribute_value(actual: CaseResult, name: str) -> Any:
    """The actual value an attribute names (`files-<path>`: that file, None when not written)."""
    if name.startswith("files-"):
        return actual.files.get(name[len("files-") :])
    return getattr(actual, name, None)


class BuiltinVerifier:
    def __init__(self, checkpoint: Any = None) -> None:
        self.checkpoint = checkpoint

    def __call__(
        self, group_name: str, case_name: str, actual: CaseResult, expected: CaseResult
    ) -> VerifierReturnType:
        checks = expected._matchers or self.plain_checks(expected)
        results: VerifierReturnType = {}
        for name, matcher in checks.items():
            correct, diff = matcher.check(attribute_value(actual, name))
            results[name] = VerificationResult(diff=diff, is_correct=correct, weight=matcher.weight)
        return results

    @staticmethod
    def plain_checks(expected: CaseResult) -> dict[str, Any]:
        """Exact checks of the fields a loader set on `expected` (not identity or timing)."""
        checks: dict[str, Any] = {}
        for name in sorted(
            expected.model_fields_set - set(RESULT_FIELDS) - {"elapsed", "resource_path"}
        ):
            value = getattr(expected, name)
            if name == "files":
                for path, content in value.items():
                    checks[f"files-{path}"] = Exact(exact=content)
            elif isinstance(value, (dict, list)):
                checks[name] = Json.model_validate({"json": value})
            else:
                checks[name] = Exact(exact=value)
        return checks
