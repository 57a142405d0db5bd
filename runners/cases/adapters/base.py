"""What every adapter shares: the run's settings, timeouts, and cleaning up after the submission."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from ..model import BaseCase, CaseResult
from ..procs import kill_descendants
from ..spec import GroupConfig

DEFAULT_CASE_TIMEOUT = 30.0


@dataclass
class RunSettings:
    """Where and how the submission runs, as the case program sees it (inside the sandbox)."""

    workspace: Path
    entry: list[str]  # the submission's command, e.g. [python, /workspace/main.py]
    env: dict[str, str]  # the submission's environment (the program's own, minus its secrets)
    checkpoint_timeout: float | None = None
    artifacts: Path | None = None  # screenshots go here (the run's reports directory)
    browser: str | None = None
    static: dict[str, str] = field(default_factory=dict)  # asset name -> path in the sandbox
    # Called with a file the program wrote among the reports (a screenshot): resets keep it.
    keep: Callable[[Path], None] | None = None


def fill_static(value: Any, static: dict[str, str]) -> Any:
    """`{{static:NAME}}` in every string of `value` (keys too) -> the asset's path in the sandbox;
    ValueError naming an unknown asset."""
    if isinstance(value, str) and "{{static:" in value:
        for name, path in static.items():
            value = value.replace(f"{{{{static:{name}}}}}", path)
        if "{{static:" in value:
            raise ValueError(
                f"unknown static asset in {value!r} (known: {', '.join(static) or 'none'})"
            )
        return value
    if isinstance(value, dict):
        return {fill_static(k, static): fill_static(v, static) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(fill_static(v, static) for v in value)
    return value


class AdapterError(Exception):
    pass


class Adapter:
    """One per group: `with adapter:` spans the group; `run_case` runs one case."""

    def __init__(self, config: Any, settings: RunSettings, group: GroupConfig) -> None:
        self.config = config
        self.settings = settings
        self.group = group

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        kill_descendants()

    def run_case(self, case: BaseCase) -> CaseResult:
        raise NotImplementedError

    def on_failure(self, case: BaseCase) -> str | None:
        """Called when a case did not pass, before the next one runs: a note for the report."""
        return None

    def timeout_for(self, case: BaseCase) -> float:
        """A case's own timeout wins; a group's may lengthen the checkpoint's, never shorten it:
        SCBench ignores group timeouts, and its problems set them below the checkpoint's (a
        reference solution killed at the group's 10 s passes there in the checkpoint's 30 s)."""
        if case.timeout_s:
            return case.timeout_s
        bounds = [t for t in (self.group.timeout, self.settings.checkpoint_timeout) if t]
        return max(bounds) if bounds else DEFAULT_CASE_TIMEOUT

    def tracked(self, case: BaseCase) -> list[str]:
        return [*self.config.tracked_files, *case.tracked_files]
