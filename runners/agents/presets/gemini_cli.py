"""Gemini CLI (`@google/gemini-cli`): `gemini -p --output-format json` (tokens per model, no cost:
the price table estimates it); its chats are logged under `~/.gemini/tmp/`. Its base URL is
`GOOGLE_GEMINI_BASE_URL` (plain HTTP only on the loopback); API-key sign-in is chosen in its
settings, which it needs in headless mode ("Invalid auth method selected" otherwise)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from runners.agents.presets.base import Preset

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"disableAutoUpdate": True},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


@dataclass(frozen=True)
class GeminiCli(Preset):
    def argv(self, model: str | None) -> list[str]:
        return [
            "gemini",
            "-p",
            "{prompt}",
            "--output-format",
            "json",
            "--approval-mode",
            "yolo",
            *(["--model", model] if model else []),
        ]

    def model_env(self, url: str) -> dict[str, str]:
        return {"GOOGLE_GEMINI_BASE_URL": url}


GEMINI_CLI = GeminiCli(
    name="gemini-cli",
    title="Gemini CLI",
    package="@google/gemini-cli",
    version="0.61.0",
    installer="npm",
    program="gemini",
    key_env="GEMINI_API_KEY",
    env={"GEMINI_CLI_TRUST_WORKSPACE": "true"},
    home_files={".gemini/settings.json": json.dumps(SETTINGS, indent=2) + "\n"},
    transcripts=(".gemini/tmp/*/chats/*.json", ".gemini/tmp/*/chats/*.jsonl"),
)
