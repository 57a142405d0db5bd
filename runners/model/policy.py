"""Pass policies (SCBench names) decide whether a checkpoint result counts as passed.

Unlike SCBench's count-only check, an infrastructure failure, a problem error (the problem's own
files failed to load) or a run with no tests where tests were expected never passes any policy
except `any`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Protocol

from runners.model.groups import GroupType


class Counted(Protocol):
    """What a policy reads of a result (`runners.model.results.ExecutionResult`): the policy sits
    below the result model, which asks it (`passes_policy`), and never imports it."""

    @property
    def graded(self) -> bool: ...
    @property
    def pass_counts(self) -> Mapping[GroupType, int]: ...
    @property
    def total_counts(self) -> Mapping[GroupType, int]: ...


class PassPolicy(str, Enum):
    ANY = "any"
    ANY_CASE = "any-case"
    ALL_CASES = "all-cases"
    ALL_NON_ERROR_CASES = "all-non-error-cases"
    CORE_CASES = "core-cases"
    ALL_CORE_CASES = "all-core-cases"
    ANY_CORE_CASES = "any-core-cases"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    def check(self, result: Counted) -> bool:
        if self is PassPolicy.ANY:
            return True
        if not result.graded:
            return False
        passed, total = result.pass_counts, result.total_counts
        all_passed = sum(passed.values())
        all_total = sum(total.values())
        core_passed = passed.get(GroupType.CORE, 0)
        core_total = total.get(GroupType.CORE, 0)
        if self is PassPolicy.ANY_CASE:
            return all_passed > 0
        if self is PassPolicy.ALL_CASES:
            return all_total > 0 and all_passed == all_total
        if self is PassPolicy.ALL_NON_ERROR_CASES:
            groups = [g for g in total if g is not GroupType.ERROR]
            return bool(groups) and all(passed.get(g, 0) == total[g] for g in groups)
        if self in (PassPolicy.CORE_CASES, PassPolicy.ALL_CORE_CASES):
            return core_total > 0 and core_passed == core_total
        if self is PassPolicy.ANY_CORE_CASES:
            return core_passed > 0
        raise AssertionError(f"unhandled policy {self}")  # pragma: no cover


_DESCRIPTIONS = {
    PassPolicy.ANY: "always passes, even an infrastructure failure or a problem error",
    PassPolicy.ANY_CASE: "at least one test passed",
    PassPolicy.ALL_CASES: "every test passed, Regression included",
    PassPolicy.ALL_NON_ERROR_CASES: "every Core, Functionality and Regression test passed",
    PassPolicy.CORE_CASES: "every Core test passed (at least one Core test)",
    PassPolicy.ALL_CORE_CASES: "same as core-cases",
    PassPolicy.ANY_CORE_CASES: "at least one Core test passed",
}
