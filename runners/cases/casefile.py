"""One case file of the built-in format: `case` (what to run) and `expected` (what must come out).

```yaml
case:                      # cli: args, stdin, files, env, timeout, tracked_files
  args: [count, words.txt]
  files: {words.txt: "a b a\\n"}
expected:                  # attribute -> value or matcher (see matchers.py)
  status_code: 0
  output: {json: {a: 2, b: 1}}
  files: {out/report.txt: {contains: total}}
weights: {output: 2}       # optional; or `weight:` inside a matcher
```
API cases take method, path, query, headers, body, timeout, retries; browser cases take steps.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .files import Compression, FileType, InputFile
from .matchers import Matcher, parse_matcher
from .model import CASE_TYPES, RESULT_FIELDS, BaseCase, CaseResult

SUFFIXES = (".yaml", ".yml", ".json")


class CaseFileError(Exception):
    """A case file (or the loader that reads it) is wrong; says which file and case."""

    def __init__(self, file: Path | str | None, case: str | None, message: str) -> None:
        self.file, self.case, self.message = (str(file) if file else None), case, message
        where = ", ".join(p for p in (self.file, f"case {case!r}" if case else None) if p)
        super().__init__(f"{where}: {message}" if where else message)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CLIInput(_Strict):
    args: list[str] | str = Field(
        default_factory=list, description="A list, or one string split like a shell."
    )
    stdin: str | None = None
    files: dict[str, Any] = Field(default_factory=dict, description="Workspace path -> content.")
    env: dict[str, str] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0)
    tracked_files: list[str] = Field(default_factory=list)
    reset: bool = False

    @field_validator("env", mode="before")
    @classmethod
    def _env_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
                for k, v in value.items()
            }
        return value


class APIInput(_Strict):
    method: str = "GET"
    path: str = "/"
    query: dict[str, int | str | float | bool | None] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    body: Any = None
    timeout: float | None = Field(None, gt=0)
    retries: int = Field(0, ge=0)
    tracked_files: list[str] = Field(default_factory=list)


class BrowserInput(_Strict):
    steps: list[dict[str, Any]] = Field(min_length=1)
    timeout: float | None = Field(None, gt=0)


class CaseDocument(_Strict):
    id: str | None = None
    description: str | None = None
    case: dict[str, Any] = Field(default_factory=dict)
    expected: dict[str, Any]
    weights: dict[str, float] = Field(default_factory=dict)


INPUTS: dict[str, type[_Strict]] = {"cli": CLIInput, "api": APIInput, "browser": BrowserInput}


def build_case(
    doc: Any,
    *,
    adapter: str,
    case_id: str,
    group: Any,
    checkpoint: str,
    defaults: dict[str, Any] | None = None,
    file: Path | str | None = None,
) -> tuple[BaseCase, CaseResult]:
    """(case, expected) from a parsed case document; CaseFileError naming file and case."""
    try:
        document = CaseDocument.model_validate(doc)
    except ValidationError as exc:
        raise CaseFileError(file, case_id, _describe(exc)) from None
    try:
        given = INPUTS[adapter].model_validate({**(defaults or {}), **document.case})
    except ValidationError as exc:
        raise CaseFileError(file, case_id, _describe(exc, "case.")) from None
    try:
        case_cls, result_cls = CASE_TYPES[adapter]
        common = {
            "id": document.id or case_id,
            "group": group.name,
            "group_type": group.type,
            "checkpoint": checkpoint,
            "original_group": group.original_group,
            "original_checkpoint": group.original_checkpoint,
        }
        fields = _case_fields(adapter, given)
        expected = _expected(
            result_cls, document, {k: common[k] for k in ("id", "group", "group_type")}
        )
        if (
            "tracked_files" in fields
        ):  # a file the case expects is read back without being listed again
            fields["tracked_files"] = list(
                dict.fromkeys([*fields["tracked_files"], *expected.files])
            )
        case = case_cls.model_validate({**common, **fields})
    except ValidationError as exc:
        raise CaseFileError(file, case_id, _describe(exc)) from None
    except ValueError as exc:
        raise CaseFileError(file, case_id, str(exc)) from None
    return case, expected


def _case_fields(adapter: str, given: Any) -> dict[str, Any]:
    if isinstance(given, CLIInput):
        args = shlex.split(given.args) if isinstance(given.args, str) else list(given.args)
        return {
            "arguments": args,
            "stdin": given.stdin,
            "env": given.env,
            "timeout_s": given.timeout,
            "input_files": [input_file(p, c) for p, c in given.files.items()],
            "tracked_files": given.tracked_files,
            "reset": given.reset,
            "shell_split": False,
        }
    if isinstance(given, APIInput):
        return {
            "method": given.method.upper(),
            "path": given.path,
            "query": given.query,
            "headers": given.headers,
            "body": given.body,
            "timeout_s": given.timeout,
            "retries": given.retries,
            "tracked_files": given.tracked_files,
        }
    assert isinstance(given, BrowserInput)
    return {"steps": given.steps, "timeout_s": given.timeout}


def input_file(path: str, content: Any) -> InputFile:
    """`files:` entry: text as it is; a structure written as the file's suffix says (JSON, YAML,
    JSON lines, CSV rows); `{content, file_type[, compression]}` to say it explicitly."""
    if isinstance(content, dict) and "file_type" in content and "content" in content:
        return InputFile.model_validate({"path": path, **content})
    kind, compression = InputFile.resolve_suffix(path)
    if isinstance(content, str):
        kind = FileType.TEXT if kind not in (FileType.BINARY,) else kind
        return InputFile(path=Path(path), content=content, file_type=kind, compression=compression)
    if kind is FileType.TEXT:
        kind = FileType.JSON
    return InputFile(
        path=Path(path),
        content=content,
        file_type=kind,
        compression=compression or Compression.NONE,
    )


def _expected(
    result_cls: type[CaseResult], document: CaseDocument, common: dict[str, Any]
) -> CaseResult:
    allowed = [
        n
        for n in result_cls.model_fields
        if n not in RESULT_FIELDS and n not in ("elapsed", "resource_path")
    ]
    matchers: dict[str, Any] = {}
    plain: dict[str, Any] = {}
    for name, value in document.expected.items():
        if name not in allowed:
            raise ValueError(
                f"expected.{name}: not an attribute of a {result_cls.__name__} "
                f"(allowed: {', '.join(allowed)})"
            )
        if name == "files":
            if not isinstance(value, dict):
                raise ValueError("expected.files: a mapping of workspace path -> expected content")
            plain["files"] = {}
            for path, want in value.items():
                key = f"files-{path}"
                matchers[key] = _matcher(key, want, document.weights)
                plain["files"][path] = matchers[key].expected
        elif name == "headers":
            if not isinstance(value, dict):
                raise ValueError("expected.headers: a mapping of header name -> expected value")
            check = HeadersCheck(value, document.weights.get("headers"))
            matchers[name], plain[name] = check, check.expected
        else:
            matchers[name] = _matcher(name, value, document.weights)
            plain[name] = matchers[name].expected
    unknown = set(document.weights) - set(matchers)
    if unknown:
        raise ValueError(f"weights: {', '.join(sorted(unknown))} name no expected attribute")
    typed = {"status_code": int, "timed_out": bool, "retries": int}
    fits = {k: v for k, v in plain.items() if k not in typed or type(v) is typed[k]}
    expected = result_cls.model_validate({**common, **fits})
    expected._matchers = matchers
    return expected


def _matcher(name: str, value: Any, weights: dict[str, float]) -> Matcher:
    try:
        return parse_matcher(value, weights.get(name))
    except ValidationError as exc:
        raise ValueError(f"expected.{name}: {_describe(exc)}") from None
    except ValueError as exc:
        raise ValueError(f"expected.{name}: {exc}") from None


class HeadersCheck:
    """Response headers: every listed one present (names case-insensitive) and matching."""

    def __init__(self, wanted: dict[str, Any], weight: float | None) -> None:
        self.matchers = {name.lower(): parse_matcher(value) for name, value in wanted.items()}
        self.weight = weight if weight is not None else 1.0
        self.expected = {name: m.expected for name, m in self.matchers.items()}

    def check(self, actual: Any) -> tuple[bool, str | None]:
        got = {str(k).lower(): v for k, v in (actual or {}).items()}
        lines = []
        for name, matcher in self.matchers.items():
            if name not in got:
                lines.append(f"{name}: missing")
                continue
            ok, diff = matcher.check(got[name])
            if not ok:
                lines.append(f"{name}: {diff}")
        return (not lines, "\n".join(lines) or None)


def _describe(exc: ValidationError, prefix: str = "") -> str:
    parts = []
    for item in exc.errors(include_url=False):
        loc = prefix + ".".join(
            str(p) for p in item["loc"] if p not in ("Exact", "Json", "Regex", "Schema", "Contains")
        )
        msg = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            msg = "unknown key"
        elif item["type"] == "missing":
            msg = "required but missing"
        parts.append(f"field `{loc}`: {msg}" if loc else msg)
    return "; ".join(parts)
