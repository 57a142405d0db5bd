"""An agent's settings with its preset filled in (before they are validated):

    {name: claude, preset: claude-code, model: sonnet}
 -> {name: claude, preset: claude-code, model: sonnet,
     command: [claude, -p, "{prompt}", --output-format, json, ..., --model, sonnet],
     env: {CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", ...}, pass_env: [ANTHROPIC_API_KEY],
     network: true}

The user's own `command` replaces the preset's, `args` are added to it, `env` wins over the
preset's. On a dry run (`dry_run: SCRIPT`) the key is a dummy value, never the host's, and the
network stays off unless asked for: the scripted model server is reached through the sandbox's own
loopback.
"""

from __future__ import annotations

from typing import Any

from runners.agents.command import TemplateError, split_command
from runners.agents.presets import DRY_RUN_KEY, get_preset

PRESET_ONLY = ("model", "key_env", "args", "base_url")


def expand_preset(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the preset's command, environment and key; ValueError naming the field."""
    name = data.get("preset")
    if name is None:
        stray = [key for key in PRESET_ONLY if data.get(key) not in (None, [], "")]
        if stray:
            raise ValueError(
                "; ".join(
                    f"field `{key}`: only with `preset` (a custom `command` takes its own flags)"
                    for key in stray
                )
            )
        return data
    try:
        preset = get_preset(str(name))
    except ValueError as exc:
        raise ValueError(f"field `preset`: {exc}") from None
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError(f"field `model`: expected the model's name, got {type(model).__name__}")
    args = data.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("field `args`: expected a list of flags (strings)")
    command = data.get("command") or preset.argv(model)
    try:
        argv = split_command(command)
    except TemplateError as exc:
        raise ValueError(f"field `command`: {exc}") from None
    if args and argv[-len(args) :] != args:  # (validating an expanded spec again adds nothing)
        argv += args
    key = data.get("key_env") or preset.key_for(model)
    env = data.get("env") or {}
    pass_env = list(data.get("pass_env") or [])
    dry_run = data.get("dry_run") is not None
    if not isinstance(env, dict) or not isinstance(pass_env, list):
        return data  # their own checks say what is wrong
    if dry_run:
        keys = {name: DRY_RUN_KEY for name in (key, *preset.extra_keys)}
        env = {**preset.env, **keys, **env}
    else:
        env = {**preset.env, **env}
        pass_env += [] if key in pass_env else [key]
    return {
        **data,
        "command": argv,
        "env": env,
        "pass_env": pass_env,
        "key_env": key,
        "network": data.get("network", not dry_run),
    }
