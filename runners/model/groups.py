"""The groups a test counts in. Its own module because both the result model and the pass
policies need it, and the result model asks the policies (no import circle)."""

from __future__ import annotations

from enum import Enum


class GroupType(str, Enum):
    """The group a test counts in (SCBench's names and values)."""

    CORE = "Core"
    FUNCTIONALITY = "Functionality"
    ERROR = "Error"
    REGRESSION = "Regression"

    @property
    def key(self) -> str:
        """Lower-case name used for metric names (`core`, `functionality`, ...)."""
        return self.value.lower()


GROUP_ORDER: tuple[GroupType, ...] = (
    GroupType.CORE,
    GroupType.FUNCTIONALITY,
    GroupType.ERROR,
    GroupType.REGRESSION,
)
