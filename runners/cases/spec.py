"""The case-based part of a problem's `config.yaml`: adapter, groups, regressions.

Field names and defaults are SCBench's case-based module's (`adapter`, `groups`, `case_order`,
`regressions`, ...), so its problems load unmodified; unknown keys in an adapter, group or
regression entry are errors, as there. Differences (documented in docs/CASES.md):

- `adapter.type: browser` (SCBench's `playwright` adapter could not be loaded from a config);
- `startup_timeout_s` is the server's whole start-up deadline (SCBench: per probe, 5 probes 5 s
  apart);
- group `timeout` is honoured when longer than the checkpoint's (SCBench: inert), below a case's
  own `timeout`;
- a regression group generated from a source group that is itself a regression points at that
  group's origin (SCBench points at a directory that does not exist), and the same origin is
  never imported twice into one checkpoint.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from enum import Enum
from pathlib import PurePosixPath
from typing import Annotated, Any, ClassVar, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class GroupType(str, Enum):
    ERROR = "Error"
    FUNCTIONALITY = "Functionality"
    REGRESSION = "Regression"
    CORE = "Core"


DEFAULT_GROUP_TYPE = GroupType.FUNCTIONALITY


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GroupConfig(_Strict):
    """One group of a checkpoint; `type` is stored as its plain string (SCBench does)."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    name: str = ""
    type: GroupType = DEFAULT_GROUP_TYPE
    case_order: list[str] = Field(default_factory=list)
    timeout: float | None = Field(None, gt=0, description="Seconds per case (a case's own wins).")
    case_defaults: dict[str, Any] = Field(default_factory=dict)
    group_files: set[str] = Field(default_factory=set)
    isolated: bool = True
    original_checkpoint: str | None = None
    original_group: str | None = None

    @model_validator(mode="after")
    def _regression_origin(self) -> GroupConfig:
        given = (self.original_checkpoint is not None, self.original_group is not None)
        if any(given) and self.type != GroupType.REGRESSION.value:
            raise ValueError(
                "original_checkpoint/original_group are only allowed in a group of type Regression"
            )
        if any(given) and not all(given):
            raise ValueError("original_checkpoint and original_group must be given together")
        return self

    def get_real_name(self) -> str:
        return self.original_group or self.name


class RegressionSpec(_Strict):
    """Groups of earlier checkpoints re-run as Regression groups."""

    checkpoint: str | None = None
    checkpoints: list[str] | Literal["*"] | None = None
    groups: list[str] = Field(default_factory=list)
    type_filter: GroupType | None = None
    exclude: list[str] = Field(default_factory=list)
    name_template: str = "{checkpoint}_{group}"

    @model_validator(mode="after")
    def _one_source(self) -> RegressionSpec:
        if (self.checkpoint is None) == (self.checkpoints is None):
            raise ValueError("exactly one of `checkpoint` and `checkpoints` must be set")
        return self


class CheckpointCases(BaseModel):
    """The case-based fields of a checkpoint entry (mixed into the harness's CheckpointConfig)."""

    path: str | None = Field(
        None, description="Checkpoint directory, relative to the problem (default: its name)."
    )
    groups: dict[str, GroupConfig] = Field(default_factory=dict)
    regressions: list[RegressionSpec] = Field(default_factory=list)
    specification: str = "spec.md"
    constant_files: list[str] = Field(
        default_factory=list, description="Accepted for SCBench; unused."
    )


# ---- adapters -------------------------------------------------------------------------------


PLACEHOLDERS = (
    "python",
    "node",
    "submission",
    "entry_file",
)  # of `command`; servers add address, port
SERVER_PLACEHOLDERS = ("address", "port")


class AdapterBase(_Strict):
    placeholders: ClassVar[tuple[str, ...]] = PLACEHOLDERS

    command: str | list[str] | None = Field(
        None,
        description="The submission's command: a string (split like a shell) or a list, with "
        "{python}, {node}, {submission}, {entry_file} (servers: {address}, {port}); default: from "
        "the entry file's suffix (.py: python, .js/.mjs/.cjs: node, .sh: bash).",
    )
    setup_script: str | None = Field(
        None, description="Accepted for SCBench, where it is inert; unused."
    )
    teardown_script: str | None = Field(
        None, description="Accepted for SCBench, where it is inert; unused."
    )
    tracked_files: list[str] = Field(
        default_factory=list, description="Files read back after every case."
    )

    @field_validator("command")
    @classmethod
    def _known_placeholders(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is None:
            return None
        try:
            parts = command_parts(value)
        except ValueError as exc:
            raise ValueError(f"cannot be split like a shell command ({exc})") from None
        if not parts or not parts[0].strip():
            raise ValueError("must name a program (e.g. `node {entry_file}.js`), not be empty")
        for name in re.findall(r"\{(\w+)\}", " ".join(parts)):
            if name not in cls.placeholders:
                raise ValueError(
                    f"unknown placeholder {{{name}}} (known: "
                    f"{', '.join('{' + n + '}' for n in cls.placeholders)})"
                )
        return value


def command_parts(command: str | list[str]) -> list[str]:
    """A `command` as argv: a list as it is, a string split like a shell (ValueError: bad
    quoting)."""
    return list(command) if isinstance(command, list) else shlex.split(command)


# How an entry file runs when the adapter names no `command` (no suffix: `.py`, as in SCBench).
INTERPRETERS = {
    ".py": "{python}",
    ".js": "{node}",
    ".mjs": "{node}",
    ".cjs": "{node}",
    ".sh": "bash",
}


def default_command(entry_file: str) -> list[str]:
    """`[interpreter, {submission}/<entry file>]`; ValueError for a suffix with no interpreter."""
    suffix = PurePosixPath(entry_file).suffix
    entry = entry_file if suffix else f"{entry_file}.py"
    interpreter = INTERPRETERS.get(suffix or ".py")
    if interpreter is None:
        raise ValueError(
            f"runners does not know how to run a `{suffix}` entry file: say it in "
            f"`adapter.command` (e.g. `command: {{submission}}/{entry}` for an executable, or "
            f"`command: ruby {{entry_file}}`); without one, {', '.join(INTERPRETERS)} files run"
        )
    return [interpreter, f"{{submission}}/{entry}"]


class CLIAdapterConfig(AdapterBase):
    type: Literal["cli"] = "cli"


class ServerAdapterConfig(AdapterBase):
    """A submission that is a server, started once per group on a free loopback port."""

    placeholders: ClassVar[tuple[str, ...]] = (*PLACEHOLDERS, *SERVER_PLACEHOLDERS)

    address: str = "127.0.0.1"
    port: int | None = Field(
        None, gt=0, lt=65536, description="Fixed port (default: a free one per group)."
    )
    health_path: str | None = Field(None, description="Probed until it answers (default: /).")
    startup_timeout_s: float = Field(
        10, gt=0, description="Seconds the server has to answer the health probe."
    )
    max_startup_attempts: int = Field(
        5, gt=0, description="Accepted for SCBench; the deadline governs."
    )
    delay_startup_attempts: float = Field(
        5, ge=0, description="Accepted for SCBench; the deadline governs."
    )
    response_is_json: bool = False
    arguments: list[str] = Field(default_factory=list, description="Extra server arguments.")

    @field_validator("address")
    @classmethod
    def _loopback(cls, value: str) -> str:
        if value not in LOOPBACK:
            raise ValueError(
                f"must be a loopback address ({', '.join(LOOPBACK)}): the sandbox has no other "
                "network"
            )
        return value


class APIAdapterConfig(ServerAdapterConfig):
    type: Literal["api"] = "api"


class Viewport(_Strict):
    width: int = Field(1280, gt=0)
    height: int = Field(720, gt=0)


class BrowserAdapterConfig(ServerAdapterConfig):
    type: Literal["browser"] = "browser"
    start_page: str = Field("/", description="Opened before every case's steps.")
    default_timeout_ms: int = Field(
        5000, gt=0, description="How long a step waits for its element."
    )
    viewport: Viewport = Field(default_factory=Viewport)
    screenshot: Literal["off", "on-failure", "always"] = "on-failure"


def _adapter_tag(value: Any) -> str:
    found = value.get("type", "cli") if isinstance(value, dict) else getattr(value, "type", "cli")
    return str(found)


AdapterConfig = Annotated[
    Annotated[CLIAdapterConfig, Tag("cli")]
    | Annotated[APIAdapterConfig, Tag("api")]
    | Annotated[BrowserAdapterConfig, Tag("browser")],
    Discriminator(
        _adapter_tag,
        custom_error_type="adapter_type",
        custom_error_message="unknown adapter type (expected cli, api or browser)",
    ),
]


# ---- groups of a checkpoint, regressions expanded -----------------------------------------


class _Checkpoint(Protocol):
    groups: dict[str, GroupConfig]
    regressions: list[RegressionSpec]


def expand_groups(checkpoints: Sequence[tuple[str, int, _Checkpoint]]) -> None:
    """Name every group, add the groups `regressions` generate, fill regression groups'
    `case_order` from their source; checkpoints in declaration order, as (name, order, config).
    Raises ValueError naming the checkpoint when a regression names no earlier checkpoint."""
    done: dict[str, tuple[int, dict[str, GroupConfig]]] = {}
    for name, order, checkpoint in checkpoints:
        groups: dict[str, GroupConfig] = {}
        for group_name, group in checkpoint.groups.items():
            groups[group_name] = group.model_copy(update={"name": group_name})
        for index, spec in enumerate(checkpoint.regressions):
            for source in _sources(spec, name, order, done):
                for source_group in done[source][1].values():
                    if spec.groups and source_group.name not in spec.groups:
                        continue
                    if source_group.name in spec.exclude:
                        continue
                    if spec.type_filter is not None and source_group.type != spec.type_filter.value:
                        continue
                    origin = (
                        source_group.original_checkpoint or source,
                        source_group.original_group or source_group.name,
                    )
                    if any(
                        (g.original_checkpoint, g.original_group) == origin for g in groups.values()
                    ):
                        continue
                    new_name = spec.name_template.format(
                        checkpoint=source, group=source_group.name, idx=index
                    )
                    groups[new_name] = GroupConfig(
                        name=new_name,
                        type=GroupType.REGRESSION,
                        case_order=list(source_group.case_order),
                        timeout=source_group.timeout,
                        case_defaults=dict(source_group.case_defaults),
                        group_files=set(source_group.group_files),
                        original_checkpoint=origin[0],
                        original_group=origin[1],
                    )
        for group in groups.values():  # a manual regression group takes its source's order
            if (
                group.original_checkpoint
                and not group.case_order
                and group.original_checkpoint in done
            ):
                origin_group = done[group.original_checkpoint][1].get(group.original_group or "")
                if origin_group is not None:
                    group.case_order = list(origin_group.case_order)
        checkpoint.groups = groups
        done[name] = (order, groups)


def _sources(
    spec: RegressionSpec, name: str, order: int, done: dict[str, tuple[int, dict[str, GroupConfig]]]
) -> list[str]:
    if spec.checkpoints == "*":
        return [
            cp
            for cp, _ in sorted(
                ((cp, o) for cp, (o, _) in done.items() if o < order), key=lambda x: x[1]
            )
        ]
    wanted = [spec.checkpoint] if spec.checkpoint is not None else list(spec.checkpoints or [])
    for source in wanted:
        if source not in done:
            raise ValueError(
                f"checkpoint {name!r}: regression source {source!r} is not a checkpoint "
                "declared before it"
            )
    return wanted
