"""The agent's command: an argument template, split once, filled per checkpoint.

A command is a string split like a shell would (`shlex`), or a list of arguments; it is never run
through a shell, so a spec or a path can hold any character. Each argument may use placeholders:

| placeholder | value |
| --- | --- |
| `{prompt_file}` | the checkpoint's specification, as a file the agent can read |
| `{prompt}` | the specification's text itself, as one argument |
| `{workspace}` | the agent's working directory (also its current directory) |
| `{home}` | its private home directory |
| `{checkpoint}`, `{checkpoint_number}` | `checkpoint_2`, `2` |
| `{problem}` | the problem's name |
| `{python}` | a Python 3 interpreter that runs inside the sandbox |
| `{mounts[NAME]}` | where the agent's read-only mount NAME is (config `mounts`) |

`{{` and `}}` are literal braces. A shell, when wanted, is asked for: `sh -c '... {prompt_file}'`.
"""

from __future__ import annotations

import re
import shlex
from string import Formatter

FIELDS = (
    "prompt_file",
    "prompt",
    "workspace",
    "home",
    "checkpoint",
    "checkpoint_number",
    "problem",
    "python",
    "mounts",
)
_FIELD = re.compile(r"^(?P<name>[a-z_]+)(?:\[(?P<key>[A-Za-z0-9_.-]+)\])?$")
#: Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); keep clear of it.
MAX_ARGUMENT = 100_000


class TemplateError(ValueError):
    """A command template that cannot be used; the message says what to write instead."""


def split_command(command: str | list[str]) -> list[str]:
    if isinstance(command, list):
        argv = list(command)
    else:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise TemplateError(f"cannot be split into arguments: {exc}") from None
    if not argv or not argv[0].strip():
        raise TemplateError("is empty: give the agent's program and its arguments")
    return argv


def fields_used(
    argv: list[str], mounts: set[str] | frozenset[str] | None = frozenset()
) -> set[str]:
    """The placeholders `argv` uses (`mounts` as one name); TemplateError for an unknown one
    (and for a mount not in `mounts`, unless it is None)."""
    used: set[str] = set()
    for argument in argv:
        for name, key in _fields(argument):
            if name not in FIELDS:
                from runners.util.suggest import closest

                match = closest(name, FIELDS)
                hint = f" (did you mean {{{match}}}?)" if match else ""
                raise TemplateError(
                    f"unknown placeholder {{{name}}}{hint} (known: "
                    f"{', '.join('{' + f + '}' for f in FIELDS if f != 'mounts')}, "
                    "{mounts[NAME]}; write {{ and }} for literal braces)"
                )
            if (name == "mounts") != (key is not None):
                raise TemplateError(
                    "a mount is written {mounts[NAME]}, with NAME a key of `mounts`"
                    if name == "mounts"
                    else f"{{{name}}} takes no [key]"
                )
            if key is not None and mounts is not None and key not in mounts:
                from runners.util.suggest import did_you_mean

                raise TemplateError(
                    f"{{mounts[{key}]}}: no mount named {key!r}{did_you_mean(key, mounts)} "
                    f"(mounts: {', '.join(sorted(mounts)) or 'none'})"
                )
            used.add(name)
    return used


def expand(argv: list[str], values: dict[str, str], mounts: dict[str, str]) -> list[str]:
    """`argv` with every placeholder replaced (checked by `fields_used` first)."""
    out = []
    for argument in argv:
        parts: list[str] = []
        for literal, field, _spec, _conv in Formatter().parse(argument):
            parts.append(literal)
            if field is None:
                continue
            found = _FIELD.match(field)
            assert found is not None, field
            name, key = found["name"], found["key"]
            parts.append(mounts[key] if name == "mounts" else values[name])
        expanded = "".join(parts)
        if len(expanded.encode()) > MAX_ARGUMENT:
            raise TemplateError(
                f"an argument would be {len(expanded.encode())} bytes, over the "
                f"{MAX_ARGUMENT} the kernel allows; pass {{prompt_file}} instead of {{prompt}}"
            )
        out.append(expanded)
    return out


def _fields(argument: str) -> list[tuple[str, str | None]]:
    found = []
    try:
        parsed = list(Formatter().parse(argument))
    except ValueError as exc:
        raise TemplateError(
            f"argument {argument!r}: {exc} (write {{{{ and }}}} for literal braces)"
        ) from None
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if spec or conversion:
            raise TemplateError(f"placeholder {{{field}}} takes no format or conversion")
        match = _FIELD.match(field)
        if match is None:
            raise TemplateError(
                f"placeholder {{{field}}} is not a placeholder name "
                "(write {{ and }} for literal braces)"
            )
        found.append((match["name"], match["key"]))
    return found


def quoted(argv: list[str]) -> str:
    """The command as a shell would show it (for tables and logs)."""
    return shlex.join(argv)
