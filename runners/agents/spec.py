"""An agent: the command that runs it and what it may see. Also the agents file of `runners batch`.

    agents:                                   # agents.yaml (paths relative to this file)
      scripted-alpha:
        command: "{python} {mounts[agent]}/scripted_agent.py --prompt {prompt_file}"
        mounts: {agent: examples/agents}      # read-only, at the same absolute path
      claude:
        command: claude -p {prompt} --output-format json --permission-mode bypassPermissions
        pass_env: [ANTHROPIC_API_KEY]         # host variables passed by name; nothing else is
        env: {IS_SANDBOX: "1"}                # literal values
        network: true                         # off by default
        image: my-claude-image                # docker: an image with the CLI installed
        timeout: 1800                         # seconds per checkpoint
      shorthand: "sh -c 'echo hi > out.txt'"  # a bare string is the command

Every mistake is a `ConfigError` (or a `UserInputError` naming the option) that names the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from runners.agents.budget import AgentBudget
from runners.agents.command import TemplateError, fields_used, split_command
from runners.egress.policy import NetworkPolicy
from runners.model.errors import ConfigError, UserInputError
from runners.model.limits import ResourceLimits
from runners.model.validation import describe_validation_error, load_yaml_mapping

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_TIMEOUT = 1800.0
#: Where the harness's own paths live inside the sandbox: a mount may not cover them.
RESERVED_TARGETS = ("/workspace", "/agent", "/tmp", "/proc", "/dev", "/harness")


class AgentSpec(BaseModel):
    """One agent (docs/guide/run-agents.md, docs/agents.md)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the agent's label: a column, a directory name")
    # Before `command`: its template's {mounts[NAME]} are checked against these.
    mounts: dict[str, str] = Field(default_factory=dict, description="read-only host directories")
    command: str | list[str] = Field(description="argument template (runners.agents.command)")
    pass_env: list[str] = Field(default_factory=list, description="host variables passed by name")
    env: dict[str, str] = Field(default_factory=dict, description="variables with literal values")
    timeout: float = Field(DEFAULT_TIMEOUT, gt=0, description="seconds per checkpoint")
    network: bool | NetworkPolicy = Field(
        False,
        description="false: no network; true: the host's; "
        "{allow: [host:port], routes: {VAR: URL}}: only those, through "
        "the harness's proxy (runners.egress)",
    )
    home: str | None = Field(
        None, description="a host directory copied into the agent's home first"
    )
    image: str | None = Field(None, description="docker: the image the agent runs in")
    sandbox: str | None = Field(None, description="the agent's sandbox (default: the grader's)")
    limits: ResourceLimits | None = Field(
        None, description="memory, processes, output... of a step"
    )
    repeat: int = Field(1, ge=1, le=100, description="independent runs of each problem (pass@k)")
    budget: AgentBudget | None = Field(
        None, description="caps on tokens, cost and time, per step and per run"
    )
    # A ready-made CLI (runners.agents.presets) fills `command`, `env`, `pass_env` and `network`.
    preset: str | None = Field(
        None, description="claude-code, codex, gemini-cli, aider, mini-swe-agent"
    )
    model: str | None = Field(None, description="preset: the model it asks for")
    key_env: str | None = Field(None, description="preset: the variable holding its API key")
    args: list[str] = Field(default_factory=list, description="preset: flags added to its command")
    base_url: str | None = Field(None, description="preset: the model API's base URL (a gateway)")
    dry_run: str | None = Field(
        None, description="a script the scripted model server follows instead of a model"
    )

    @model_validator(mode="before")
    @classmethod
    def _fill_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and (
            data.get("preset") is not None
            or any(
                data.get(k) not in (None, [], "") for k in ("model", "key_env", "args", "base_url")
            )
        ):
            from runners.agents.presets.expand import expand_preset

            return expand_preset(data)
        return data

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError(
                "may only contain letters, digits, '_', '.' and '-' (it names a directory)"
            )
        return value

    @field_validator("pass_env", "env")
    @classmethod
    def _variables(cls, names: list[str] | dict[str, str]) -> list[str] | dict[str, str]:
        bad = [n for n in names if not _VARIABLE.match(n)]
        if bad:
            raise ValueError(f"not variable names: {', '.join(map(repr, bad))}")
        return names

    @field_validator("network", mode="before")
    @classmethod
    def _network(cls, value: Any) -> Any:
        if isinstance(value, dict):
            from pydantic import ValidationError

            try:
                return NetworkPolicy.model_validate(value)
            except ValidationError as exc:
                said = []
                for item in exc.errors(include_url=False):
                    where = ".".join(map(str, item["loc"]))
                    what = (
                        "unknown key (allowed: allow, routes)"
                        if item["type"] == "extra_forbidden"
                        else item["msg"].removeprefix("Value error, ")
                    )
                    said.append(f"`{where}`: {what}" if where else what)
                raise ValueError("; ".join(said)) from None
        if not isinstance(value, (bool, NetworkPolicy)):
            raise ValueError(
                "expected true, false, or an allow-list {allow: [host:port, ...], "
                "routes: {VARIABLE: base URL}}"
            )
        return value

    @field_validator("mounts")
    @classmethod
    def _mount_names(cls, mounts: dict[str, str]) -> dict[str, str]:
        bad = [n for n in mounts if not _NAME.match(n)]
        if bad:
            raise ValueError(f"mount names may only hold letters, digits, '_', '.', '-': {bad}")
        return mounts

    @field_validator("sandbox")
    @classmethod
    def _sandbox(cls, name: str | None) -> str | None:
        if name is None:
            return None
        from runners.sandbox.registry import check_sandbox_name

        try:
            return check_sandbox_name(name, "sandbox")
        except UserInputError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("command")
    @classmethod
    def _template(cls, command: str | list[str], info: ValidationInfo) -> str | list[str]:
        mounts = info.data.get("mounts")  # absent when invalid: its own error says why
        try:
            fields_used(split_command(command), None if mounts is None else set(mounts))
        except TemplateError as exc:
            raise ValueError(str(exc)) from None
        return command

    @model_validator(mode="after")
    def _routes_are_not_env(self) -> AgentSpec:
        if isinstance(self.network, NetworkPolicy):
            clash = sorted(set(self.network.routes) & (set(self.env) | set(self.pass_env)))
            if clash:
                raise ValueError(
                    f"field `network.routes`: {', '.join(clash)} also in `env`/`pass_env`: "
                    "a route sets the variable itself (to the proxy's front)"
                )
        return self

    @property
    def argv(self) -> list[str]:
        return split_command(self.command)

    @property
    def key(self) -> str:
        """A hash of what the agent runs with (all but its name and its number of repeats;
        `pass_env` by name): a step done with another key is stale."""
        import hashlib

        # Settings added later are left out while unset: runs stored before them stay current.
        exclude = {"name", "repeat"} | ({"budget"} if self.budget is None else set())
        settings = self.model_dump_json(exclude=exclude)
        if self.dry_run and Path(self.dry_run).is_file():  # an edited script runs the steps again
            settings += hashlib.sha256(Path(self.dry_run).read_bytes()).hexdigest()
        return hashlib.sha256(settings.encode()).hexdigest()[:16]

    def uses(self, field: str) -> bool:
        return field in fields_used(self.argv, set(self.mounts))

    def resolved(self, base: Path, where: str) -> AgentSpec:
        """Mounts and home as absolute paths (relative ones taken from `base`), each an existing
        directory; UserInputError naming `where` and the field otherwise."""
        mounts = {
            name: str(_existing(base, text, f"{where}: field `mounts.{name}`"))
            for name, text in self.mounts.items()
        }
        for name, path in mounts.items():
            # At the same path inside: it may not cover, or sit inside, the step's own directories
            # (below /tmp is fine: it is mounted over the private /tmp).
            if any(
                Path(t).is_relative_to(path) or (t != "/tmp" and Path(path).is_relative_to(t))
                for t in RESERVED_TARGETS
            ):
                raise UserInputError(
                    f"{where}: field `mounts.{name}`: {path} would cover the sandbox's "
                    f"own directories ({', '.join(RESERVED_TARGETS)}); mount something else"
                )
        home = str(_existing(base, self.home, f"{where}: field `home`")) if self.home else None
        dry_run = None
        if self.dry_run:
            dry_run = (base / Path(self.dry_run).expanduser()).resolve()
            if not dry_run.is_file():
                raise UserInputError(
                    f"{where}: field `dry_run`: {dry_run} is not a file (a model server script)"
                )
        return self.model_copy(
            update={"mounts": mounts, "home": home, "dry_run": str(dry_run) if dry_run else None}
        )


def refuse_exposure(spec: AgentSpec, guarded: dict[str, Path], where: str) -> None:
    """A mount (or home template) that holds, or sits inside, a guarded directory — the
    problems with their hidden tests, the harness's caches, the run's results with other
    agents' workspaces — would hand it to the agent: refused as bad input."""
    shown = {f"mounts.{n}": p for n, p in spec.mounts.items()}
    if spec.home:
        shown["home"] = spec.home
    for field, text in shown.items():
        path = Path(text).resolve()
        for what, guard in guarded.items():
            guard = guard.resolve()
            if guard.is_relative_to(path) or path.is_relative_to(guard):
                relation = "holds" if guard.is_relative_to(path) else "sits inside"
                raise UserInputError(
                    f"{where}: field `{field}`: {path} {relation} {what} {guard}, "
                    "which the agent must never see; give it a directory of its own"
                )


def _existing(base: Path, text: str, where: str) -> Path:
    path = Path(text).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    if not path.is_dir():
        raise UserInputError(f"{where}: {path} is not a directory")
    return path


def parse_agent(data: Any, where: str) -> AgentSpec:
    """An AgentSpec from a mapping (or a bare command string); a ConfigError naming `where`."""
    from pydantic import ValidationError

    if isinstance(data, str):
        data = {"command": data}
    if not isinstance(data, dict):
        raise ConfigError(
            where,
            f"expected a mapping (command, pass_env, ...) or a command string, "
            f"got {type(data).__name__}",
        )
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(where, describe_validation_error(exc, AgentSpec)) from None


def parse_agent_options(data: dict[str, Any], options: dict[str, str]) -> AgentSpec:
    """An AgentSpec from command-line options; a UserInputError naming the option of each
    mistake (`options` maps a field to its option)."""
    from pydantic import ValidationError

    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        lines = []
        for item in exc.errors(include_url=False):
            message = item["msg"].removeprefix("Value error, ")
            # A whole-model check (the preset's) names its fields itself:
            # "field `x`: ...; field `y`: ..."
            parts = (
                [re.match(r"field `(\w+)`: (.*)", part, re.DOTALL) for part in message.split("; ")]
                if not item["loc"]
                else []
            )
            for field, text in (
                [(m[1], m[2]) for m in parts if m]
                if parts and all(parts)
                else [(str(item["loc"][0]) if item["loc"] else "", message)]
            ):
                lines.append(f"option {options.get(field, '--' + field.replace('_', '-'))}: {text}")
        raise UserInputError("\n".join(lines)) from None


def load_agents_file(path: Path) -> list[AgentSpec]:
    """The agents of an agents file, their paths resolved against the file's directory."""
    path = Path(path).resolve()
    data = load_yaml_mapping(path)
    agents = data.get("agents")
    unknown = sorted(set(data) - {"agents"})
    if unknown:
        from runners.util.suggest import did_you_mean

        named = ", ".join(f"{key}{did_you_mean(str(key), ['agents'])}" for key in unknown)
        raise ConfigError(path, f"unknown top-level key(s) {named} (expected `agents:`)")
    if not isinstance(agents, dict) or not agents:
        raise ConfigError(
            path,
            "field `agents`: expected a mapping of agent name to its command "
            "(or to {command: ..., pass_env: [...], ...})",
        )
    specs = []
    for name, entry in agents.items():
        entry = {"command": entry} if isinstance(entry, str) else entry
        if isinstance(entry, dict):
            entry = {"name": str(name), **entry}
        spec = parse_agent(entry, f"{path} (agent {name!r})")
        if spec.name != str(name):
            raise ConfigError(path, f"field `agents.{name}.name`: differs from its key {name!r}")
        specs.append(spec.resolved(path.parent, f"{path}: agent {name!r}"))
    return specs
