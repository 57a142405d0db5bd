"""MkDocs hook: the reference pages that are generated from the code, never written by hand.

`reference/config.md` is made from the pydantic models that read every file a user writes (a
problem's `config.yaml`, an agents file, the Promptfoo provider's `config`), so a field added to a
model is documented by the next `mkdocs build` with its type, default and description. The CLI
reference (`reference/cli.md`) comes from the click commands through `mkdocs-click`.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from enum import Enum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

# (page section, model path, what the section documents). Nested models are documented after
# the model that holds them, once each.
SECTIONS: list[tuple[str, str, str]] = [
    (
        "Problem: `config.yaml`",
        "runners.model.config:ProblemConfig",
        "The problem's `config.yaml` (kind `suite` or `repository`).",
    ),
    (
        "Case-based problem: `config.yaml`",
        "runners.model.case_config:CaseProblemConfig",
        "A problem with `framework: cases` (or an `adapter`): the fields above, and these.",
    ),
    (
        "Agents file (`runners batch --agents`, `runners solve --agent`)",
        "runners.agents.spec:AgentSpec",
        "One agent under `agents:` (a bare string is its `command`).",
    ),
    (
        "Promptfoo provider `config` (`providers/test_runner.py`)",
        "runners.promptfoo.config:ProviderConfig",
        "The keys of the grading provider's `config:` in a promptfoo config.",
    ),
    (
        "Result JSON (`--json`, `result.json`)",
        "runners.model.results:ExecutionResult",
        "What `runners run --json` writes and `ExecutionResult.model_validate_json` reads back.",
    ),
]


def _load(path: str) -> type[BaseModel]:
    import importlib

    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _type_name(annotation: Any) -> str:
    """A short, readable name for a field's type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in args if a is not type(None)]
        joined = " \\| ".join(dict.fromkeys(names))
        return f"{joined} \\| null" if type(None) in args else joined
    if origin is typing.Literal:
        return " \\| ".join(f"`{a!r}`" if not isinstance(a, str) else f'`"{a}"`' for a in args)
    if origin in (list, tuple, set, frozenset):
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return f"map of {_type_name(args[0])} → {_type_name(args[1])}" if args else "map"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
        if issubclass(annotation, Enum):
            return " \\| ".join(f'`"{m.value}"`' for m in annotation)
        return {
            "str": "string",
            "int": "integer",
            "float": "number",
            "bool": "boolean",
            "Path": "path",
            "datetime": "date-time",
            "Any": "any",
        }.get(annotation.__name__, annotation.__name__)
    return str(annotation).replace("typing.", "")


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "**required**"
    if field.default_factory is not None:
        try:
            value = field.default_factory()  # type: ignore[call-arg]
        except TypeError:
            return "computed"
    else:
        value = field.default
    if value is PydanticUndefined or value is None:
        return "—"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, set | frozenset):
        value = sorted(value)
    if isinstance(value, BaseModel):
        return "its defaults"
    if value in ({}, [], ""):
        return "empty"
    return f"`{value}`"


def _nested(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _nested(arg)


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def model_table(model: type[BaseModel], seen: set[type[BaseModel]], inherited: set[str]) -> str:
    """The model's own fields (those not in `inherited`) as a table, then its nested models."""
    rows, nested = [], []
    for name, field in model.model_fields.items():
        if name in inherited or field.exclude:
            continue
        key = field.alias or name
        rows.append(
            f"| `{key}` | {_type_name(field.annotation)} | {_default(field)} | "
            f"{_escape(field.description or '')} |"
        )
        nested += [m for m in _nested(field.annotation) if m not in seen]
    doc = _escape((model.__doc__ or "").strip().split("\n\n")[0])
    text = [
        f"### {model.__name__}",
        "",
        doc,
        "",
        "| field | type | default | description |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
    ]
    seen.add(model)
    for child in dict.fromkeys(nested):
        if child not in seen:
            text.append(model_table(child, seen, set()))
    return "\n".join(text)


def config_reference() -> str:
    seen: set[type[BaseModel]] = set()
    parts = [
        "# Configuration reference",
        "",
        (
            "Generated from the pydantic models that read these files "
            "(`scripts/docs_reference.py`), "
            'so it is always the code\'s own word. Unknown keys are refused with a "did you mean" '
            "where one is close; every error names the file and the field."
        ),
        "",
    ]
    for title, path, what in SECTIONS:
        model = _load(path)
        # A subclass documents only what it adds (a case problem over a problem).
        base_fields: set[str] = set()
        for base in model.__mro__[1:]:
            if isinstance(base, type) and issubclass(base, BaseModel) and base in seen:
                base_fields |= {
                    name
                    for name, field in base.model_fields.items()
                    if model.model_fields[name].annotation == field.annotation
                }
        parts += [f"## {title}", "", what, "", model_table(model, seen, base_fields)]
    return "\n".join(parts) + "\n"


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated pages to the site."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "reference/config.md", content=config_reference()))
    return files
