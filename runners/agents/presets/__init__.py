"""Ready-made agents for the common coding-agent CLIs, each at a pinned version (docs/agents.md,
"Presets"): `preset: claude-code` plus a model and the key's variable in an agent's settings.

| preset | package (installer) | program |
| --- | --- | --- |
| `claude-code` | @anthropic-ai/claude-code (npm) | claude |
| `codex` | @openai/codex (npm) | codex |
| `gemini-cli` | @google/gemini-cli (npm) | gemini |
| `aider` | aider-chat (PyPI) | aider |
| `mini-swe-agent` | mini-swe-agent (PyPI) | mini |
"""

from __future__ import annotations

from runners.agents.presets.aider import AIDER
from runners.agents.presets.base import DRY_RUN_KEY, Preset
from runners.agents.presets.claude_code import CLAUDE_CODE
from runners.agents.presets.codex import CODEX
from runners.agents.presets.gemini_cli import GEMINI_CLI
from runners.agents.presets.mini_swe_agent import MINI_SWE_AGENT

PRESETS: dict[str, Preset] = {
    p.name: p for p in (CLAUDE_CODE, CODEX, GEMINI_CLI, AIDER, MINI_SWE_AGENT)
}

__all__ = ["DRY_RUN_KEY", "PRESETS", "Preset", "get_preset"]


def get_preset(name: str) -> Preset:
    """The preset `name`; ValueError listing the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})") from None
