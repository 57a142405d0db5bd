"""The checks in order, and running them: one check (`run_check`) or all (`run_suite`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Literal

from pydantic import BaseModel

from runners.sandbox.base import Sandbox
from runners.sandbox.conformance import basics, files, lifecycle, limits, network, visibility
from runners.sandbox.conformance.subject import Check, CheckFailed, Subject

CHECKS: tuple[Check, ...] = (
    *basics.CHECKS,
    *files.CHECKS,
    *limits.CHECKS,
    *network.CHECKS,
    *visibility.CHECKS,
    *lifecycle.CHECKS,
)
Status = Literal["passed", "failed", "error", "not promised"]

__all__ = ["CHECKS", "Check", "CheckFailed", "Outcome", "run_check", "run_suite", "select_checks"]


class Outcome(BaseModel):
    name: str
    promise: str
    status: Status
    detail: str = ""
    seconds: float = 0.0


def select_checks(only: Iterable[str] = ()) -> list[Check]:
    """The checks whose name is one of `only` or starts with one of them and a dot ("limits");
    all when `only` is empty. ValueError naming an entry that selects nothing."""
    wanted = list(only)
    for entry in wanted:
        if not any(_within(check.name, entry) for check in CHECKS):
            names = ", ".join(sorted({c.group for c in CHECKS} | {c.name for c in CHECKS}))
            raise ValueError(f"{entry!r} names no conformance check; one of: {names}")
    return [check for check in CHECKS if not wanted or any(_within(check.name, e) for e in wanted)]


def not_promised(sandbox: Sandbox, check: Check) -> str | None:
    """Why `sandbox` does not promise what `check` checks (its `limitations()`), else None."""
    for key, why in sandbox.limitations().items():
        if _within(check.name, key):
            return why
    return None


def run_check(sandbox: Sandbox, check: Check) -> Outcome:
    why = not_promised(sandbox, check)
    if why is not None:
        return Outcome(name=check.name, promise=check.promise, status="not promised", detail=why)
    started = time.monotonic()
    status: Status = "passed"
    detail = ""
    subject = None
    try:
        subject = Subject.of(sandbox)
        check.run(subject)
    except AssertionError as exc:
        status, detail = "failed", str(exc)
    except Exception as exc:  # noqa: BLE001 - a backend's error is the check's outcome
        status, detail = "error", f"{type(exc).__name__}: {exc}"
    finally:
        if subject is not None:
            subject.close()
    return Outcome(
        name=check.name,
        promise=check.promise,
        status=status,
        detail=detail,
        seconds=round(time.monotonic() - started, 2),
    )


def run_suite(
    sandbox: Sandbox,
    checks: Iterable[Check] | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    outcomes = []
    for check in CHECKS if checks is None else checks:
        outcome = run_check(sandbox, check)
        if on_outcome is not None:
            on_outcome(outcome)
        outcomes.append(outcome)
    return outcomes


def _within(name: str, key: str) -> bool:
    return name == key or name.startswith(key + ".")
