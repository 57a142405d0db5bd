"""The built-in checks of one attribute: exact, JSON deep diff, regex, JSON Schema, contains.

In a case file, an expected value is a matcher when it is a mapping with one of the keys
`exact`, `json`, `regex`, `schema`, `contains` (plus that matcher's options and `weight`);
any other mapping or list is compared as JSON, any other value exactly. Each check returns
(correct, readable diff).
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from .jsondiff import JsonDiff, clip_lines, parse_path

KINDS = ("exact", "json", "regex", "schema", "contains")
TEXT_DIFF_LINES = 40


class _Matcher(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weight: float = Field(1.0, gt=0)

    @property
    def expected(self) -> Any:
        """The plain expected value (what a script verifier sees in `expected.<attribute>`)."""
        raise NotImplementedError

    def check(self, actual: Any) -> tuple[bool, str | None]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class Exact(_Matcher):
    kind: Literal["exact"] = "exact"
    exact: Any
    strip: bool = Field(False, description="Compare text with leading/trailing whitespace removed.")

    @property
    def expected(self) -> Any:
        return self.exact

    def describe(self) -> str:
        return (
            json.dumps(self.exact, ensure_ascii=False)
            if not isinstance(self.exact, str)
            else self.exact
        )

    def check(self, actual: Any) -> tuple[bool, str | None]:
        expected = self.exact
        if isinstance(actual, bytes):
            actual = actual.decode("utf-8", "replace")
        if isinstance(expected, str) and isinstance(actual, str):
            if self.strip:
                expected, actual = expected.strip(), actual.strip()
            return (True, None) if expected == actual else (False, text_diff(expected, actual))
        if isinstance(expected, (dict, list)):
            lines = JsonDiff().diff(expected, actual)
            return (not lines, clip_lines(lines) or None)
        same = type(expected) is type(actual) or {type(expected), type(actual)} <= {int, float}
        if same and expected == actual:
            return True, None
        return False, f"expected {_repr(expected)}, got {_repr(actual)}"


class Json(_Matcher):
    kind: Literal["json"] = "json"
    json_: Any = Field(alias="json")
    ignore: list[str] = Field(
        default_factory=list, description="JSON paths left out, e.g. $.items[*].id"
    )
    tolerance: float = Field(0.0, ge=0, description="Absolute tolerance for numbers.")
    unordered: bool | list[str] = Field(
        False, description="Lists compared as multisets (all, or at these paths)."
    )
    subset: bool = Field(False, description="Objects may have keys beyond the expected ones.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _paths(self) -> Json:
        for path in [*self.ignore, *([] if isinstance(self.unordered, bool) else self.unordered)]:
            parse_path(path)  # a bad path is refused when the case file is read
        return self

    @property
    def expected(self) -> Any:
        return self.json_

    def describe(self) -> str:
        return json.dumps(self.json_, ensure_ascii=False, sort_keys=True)

    def check(self, actual: Any) -> tuple[bool, str | None]:
        parsed, error = as_json(actual)
        if error:
            return False, error
        lines = JsonDiff(self.ignore, self.tolerance, self.unordered, self.subset).diff(
            self.json_, parsed
        )
        return (not lines, clip_lines(lines) or None)


class Regex(_Matcher):
    kind: Literal["regex"] = "regex"
    regex: str
    flags: str = Field(
        "", description="Any of i (ignore case), m (multiline), s (dot matches newline)."
    )
    full: bool = Field(False, description="The whole text must match (default: found anywhere).")

    @model_validator(mode="after")
    def _compiles(self) -> Regex:
        bad = set(self.flags) - set("ims")
        if bad:
            raise ValueError(
                f"unknown regex flags {''.join(sorted(bad))!r} (expected any of i, m, s)"
            )
        try:
            self.compiled()
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        return self

    def compiled(self) -> re.Pattern[str]:
        flags = 0
        for letter, flag in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL)):
            if letter in self.flags:
                flags |= flag
        return re.compile(self.regex, flags)

    @property
    def expected(self) -> Any:
        return self.regex

    def describe(self) -> str:
        return f"/{self.regex}/{self.flags}"

    def check(self, actual: Any) -> tuple[bool, str | None]:
        text = as_text(actual)
        pattern = self.compiled()
        found = pattern.fullmatch(text) if self.full else pattern.search(text)
        return (
            (True, None)
            if found
            else (False, f"{_repr(text)} does not match /{self.regex}/{self.flags}")
        )


class Schema(_Matcher):
    kind: Literal["schema"] = "schema"
    schema_: dict[str, Any] = Field(alias="schema")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _valid_schema(self) -> Schema:
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        try:
            validator_for(self.schema_).check_schema(self.schema_)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        return self

    @property
    def expected(self) -> Any:
        return self.schema_

    def describe(self) -> str:
        return "JSON matching " + json.dumps(self.schema_, sort_keys=True)

    def check(self, actual: Any) -> tuple[bool, str | None]:
        from jsonschema.validators import validator_for

        parsed, error = as_json(actual)
        if error:
            return False, error
        validator = validator_for(self.schema_)(self.schema_)
        errors = sorted(validator.iter_errors(parsed), key=lambda e: list(e.absolute_path))
        lines = [f"{e.json_path}: {e.message}" for e in errors]
        return (not lines, clip_lines(lines) or None)


class Contains(_Matcher):
    kind: Literal["contains"] = "contains"
    contains: str

    @property
    def expected(self) -> Any:
        return self.contains

    def describe(self) -> str:
        return f"text containing {self.contains!r}"

    def check(self, actual: Any) -> tuple[bool, str | None]:
        text = as_text(actual)
        return (
            (True, None)
            if self.contains in text
            else (False, f"{_repr(text)} does not contain {self.contains!r}")
        )


Matcher = Annotated[Exact | Json | Regex | Schema | Contains, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[Matcher] = TypeAdapter(Matcher)


def parse_matcher(value: Any, weight: float | None = None) -> Matcher:
    """A matcher from a case file's expected value (ValueError/ValidationError when malformed)."""
    if isinstance(value, dict):
        kinds = [k for k in KINDS if k in value]
        if len(kinds) > 1:
            raise ValueError(
                f"a matcher takes one of {', '.join(KINDS)}, not {' and '.join(kinds)}"
            )
        if kinds:
            data = {**value, "kind": kinds[0]}
            if weight is not None and "weight" not in value:
                data["weight"] = weight
            return _ADAPTER.validate_python(data)
    extra = {"weight": weight} if weight is not None else {}
    if isinstance(value, (dict, list)):
        return Json.model_validate({"json": value, **extra})
    return Exact.model_validate({"exact": value, **extra})


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def as_json(value: Any) -> tuple[Any, str | None]:
    """Parsed JSON from text (a structure is taken as it is), or an error saying why not."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            return json.loads(value), None
        except ValueError as exc:
            return None, f"not JSON ({exc}): {_repr(value)}"
    if value is None:
        return None, "nothing to compare (no output, or the file was not written)"
    return value, None


def text_diff(expected: str, actual: str) -> str:
    if "\n" not in expected.rstrip("\n") and "\n" not in actual.rstrip("\n"):
        return f"expected {_repr(expected)}, got {_repr(actual)}"
    lines = list(
        difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "expected", "actual", n=2, lineterm=""
        )
    )
    return clip_lines(lines, TEXT_DIFF_LINES) or "differs only in line endings or a final newline"


def _repr(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, bytes) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
