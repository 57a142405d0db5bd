"""Turn pydantic and YAML errors into messages a user can act on.

Every message names the field (dotted path), what was wrong and what was expected, never a
traceback. `load_yaml_model` is the one way config files are read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TypeVar, get_args, get_origin

import yaml
from pydantic import BaseModel, Tag, ValidationError

from runners.cases import bounded_yaml
from runners.model.errors import ConfigError, UserInputError
from runners.util.suggest import did_you_mean

M = TypeVar("M", bound=BaseModel)


def describe_validation_error(
    error: ValidationError, model: type[BaseModel] | None = None
) -> list[str]:
    messages: list[str] = []
    for item in error.errors(include_url=False):
        where = _without_tags(model, tuple(item["loc"])) if model else tuple(item["loc"])
        loc = ".".join(str(part) for part in where) or "(top level)"
        kind = item["type"]
        if kind == "extra_forbidden":
            allowed = _allowed_keys(model, tuple(item["loc"][:-1])) if model else []
            hint = f" (allowed keys: {', '.join(allowed)})" if allowed else ""
            key = str(item["loc"][-1]) if item["loc"] else ""
            messages.append(f"field `{loc}`: unknown key{did_you_mean(key, allowed)}{hint}")
        elif kind == "missing":
            messages.append(f"field `{loc}`: required but missing")
        elif not item["loc"] and item["msg"].startswith("Value error, field `"):
            # A whole-model check (a model validator) names its own fields, one message each.
            messages += item["msg"].removeprefix("Value error, ").split("; ")
        else:
            got = _short(item.get("input"))
            # A validator's own ValueError reads "Value error, <its message>": keep the message.
            messages.append(
                f"field `{loc}`: {item['msg'].removeprefix('Value error, ')} (got {got})"
            )
    return messages


def load_yaml_mapping(path: Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():  # a missing path, not an invalid configuration
        raise UserInputError(f"{path}: file not found")
    try:
        data = bounded_yaml.load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"not UTF-8 text ({exc.reason})") from None
    except bounded_yaml.YAMLBoundsError as exc:
        raise ConfigError(path, str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(path, f"{where}not valid YAML ({problem})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            path, f"expected a mapping of keys at the top level, got {type(data).__name__}"
        )
    return data


def validate_model(model: type[M], data: Any, path: Path, **context: Any) -> M:
    try:
        return model.model_validate(data, context=context or None)
    except ValidationError as exc:
        raise ConfigError(path, describe_validation_error(exc, model)) from None


def _without_tags(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """`loc` without the tags pydantic puts in it for a discriminated union (`adapter.cli.command`
    -> `adapter.command`): the user never wrote them."""
    kept: list[Any] = []
    current: Any = model
    parts = list(loc)
    while parts:
        part = parts.pop(0)
        kept.append(part)
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return (*kept, *parts)
        annotation = fields[part].annotation
        members = _tagged_members(annotation)
        if members and parts and parts[0] in members:
            current = members[parts.pop(0)]
            continue
        current, in_container = _unwrap(annotation)
        if in_container and parts:
            kept.append(parts.pop(0))
    return tuple(kept)


def _tagged_members(annotation: Any) -> dict[str, Any]:
    """Tag -> model of a discriminated union's members (`Annotated[Model, Tag("x")] | ...`)."""
    members: dict[str, Any] = {}
    for arg in get_args(annotation):
        if get_origin(arg) is Annotated:
            base, *metadata = get_args(arg)
            members.update({m.tag: base for m in metadata if isinstance(m, Tag)})
    return members


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Walk the model along `loc` to list the keys allowed where an unknown key was found."""
    current: Any = model
    parts = list(loc)
    while parts:
        part = parts.pop(0)
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        members = _tagged_members(fields[part].annotation)
        if (
            members and parts and parts[0] in members
        ):  # a discriminated union: the member its tag names
            current = members[parts.pop(0)]
            continue
        current, in_container = _unwrap(fields[part].annotation)
        if current is None:
            return []
        if in_container and parts:
            parts.pop(0)  # the mapping key or list index
    return sorted(info.alias or name for name, info in current.model_fields.items())


def _unwrap(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The model inside an annotation, and whether it sits in a dict or list."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    container = get_origin(annotation) in (dict, list)
    for arg in get_args(annotation):
        found, nested = _unwrap(arg)
        if found is not None:
            return found, container or nested
    return None, False


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
