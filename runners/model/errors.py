"""Errors the harness raises, split by who has to act on them."""

from __future__ import annotations

from pathlib import Path


class RunnersError(Exception):
    """Base class for every error this package raises on purpose."""


class UserInputError(RunnersError):
    """Bad input from the user: a config file, a path or an option. CLI exit code 2."""


class ConfigError(UserInputError):
    """A problem or environment file is invalid.

    The message always names the file, the field and what was expected, so the user can fix it
    without reading a traceback.
    """

    def __init__(self, file: Path | str, problems: list[str] | str) -> None:
        self.file = Path(file)
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{self.file}: invalid configuration\n{lines}")


class InfrastructureError(RunnersError):
    """The harness could not run the tests (sandbox, toolchain, engine). CLI exit code 3."""
