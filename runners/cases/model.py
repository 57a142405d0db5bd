"""Cases and what running them gave: SCBench's `BaseCase`/`CaseResult` family, plus the browser.

A loader yields `(case, expected)`: the case says what to run, the expected result holds the
values to compare (a `CaseResult` of the same family; the built-in loader's also carries the
matchers of its case file). The adapter returns the actual `CaseResult`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from .files import InputFile
from .spec import DEFAULT_GROUP_TYPE, GroupType


class CaseResultError(Exception):
    pass


class BaseCase(BaseModel):
    """What to run; extra keys are allowed (SCBench loaders add their own)."""

    model_config = ConfigDict(extra="allow")

    id: str
    group: str
    group_type: GroupType
    checkpoint: str
    original_group: str | None = None
    original_checkpoint: str | None = None
    order: int = -1
    arguments: list[str] = Field(default_factory=list)
    timeout_s: float | None = None
    input_files: list[InputFile] = Field(default_factory=list)
    tracked_files: list[str] = Field(default_factory=list)
    reset: bool = False

    def get_attr(self, name: str, key_path: list[str] | None = None) -> Any:
        try:
            value = getattr(self, name)
            for key in key_path or []:
                value = value[key] if isinstance(value, dict) else getattr(value, key)
        except (AttributeError, KeyError, IndexError, TypeError) as exc:
            raise CaseResultError(f"case {self.id}: no attribute {name}{key_path or ''}") from exc
        return value


class CLICase(BaseCase):
    stdin: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    # SCBench joined arguments with spaces and split them again with shlex; its loaders quote
    # arguments that hold spaces for that. Cases from the built-in loader pass them as they are.
    shell_split: bool = True


class APICase(BaseCase):
    method: str = "GET"
    path: str = ""
    query: dict[str, int | str | float | bool | None] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    body: Any = None
    retries: int = 0

    @model_validator(mode="after")
    def _query_or_arguments(self) -> APICase:
        if self.arguments and self.query:
            raise ValueError("an API case takes `query` or `arguments`, not both")
        return self

    def get_query_params(self) -> dict[str, Any] | None:
        if self.query:
            return dict(self.query)
        if self.arguments:
            return {k: v for k, _, v in (arg.partition("=") for arg in self.arguments)}
        return None


class BrowserCase(BaseCase):
    """Steps run in order on the submission's page (see `adapters/browser_steps.py`)."""

    steps: list[dict[str, Any]] = Field(default_factory=list)


class CaseResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    group: str
    group_type: GroupType
    type: str = "base"
    elapsed: float = 0
    status_code: int = 0
    resource_path: str | Path | None = None
    adapter_error: bool = False
    output: Any = None
    stderr: Any = None
    timed_out: bool = False
    files: dict[str, Any] = Field(default_factory=dict)
    # The built-in loader's matchers ({attribute: matcher}); never part of a dump.
    _matchers: dict[str, Any] = PrivateAttr(default_factory=dict)


class CLIResult(CaseResult):
    type: str = "cli"
    command: str | None = None


class APIResult(CaseResult):
    type: str = "api"
    method: str = "GET"
    headers: dict[str, str] = Field(default_factory=dict)
    retries: int = 0
    binary_response_base64: str | None = None
    binary_response_filename: str | None = None
    binary_response_size: int | None = None


class BrowserResult(CaseResult):
    type: str = "browser"
    url: str | None = None
    page_title: str | None = None


RESULT_FIELDS = ("id", "group", "group_type", "type")  # identity: never verified
CASE_TYPES: dict[str, tuple[type[BaseCase], type[CaseResult]]] = {
    "cli": (CLICase, CLIResult),
    "api": (APICase, APIResult),
    "browser": (BrowserCase, BrowserResult),
}


def default_group_type() -> GroupType:
    return DEFAULT_GROUP_TYPE
