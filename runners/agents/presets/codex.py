"""Codex CLI (`@openai/codex`): `codex exec --json` (JSONL events; tokens per turn, no cost: the
price table estimates it); its session is logged under `~/.codex/sessions/`. A base URL takes a
model provider of its own (`-c model_providers.runners=...`, Responses API): a built-in one
cannot be overridden."""

from __future__ import annotations

from dataclasses import dataclass

from runners.agents.presets.base import Preset

PROVIDER = "runners"


@dataclass(frozen=True)
class Codex(Preset):
    def argv(self, model: str | None) -> list[str]:
        # Its own sandbox is off: the harness's sandbox is the one that holds it. Analytics off:
        # without a network it waits 5 s at exit to send them (measured: bench/real_agents.py).
        return [
            "codex",
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--config",
            "analytics.enabled=false",
            *(["--model", model] if model else []),
            "{prompt}",
        ]

    def model_args(self, url: str) -> list[str]:
        table = (
            f'{{name="runners",base_url="{url}/v1",env_key="{self.key_env}",wire_api="responses"}}'
        )
        return ["-c", f"model_provider={PROVIDER}", "-c", f"model_providers.{PROVIDER}={table}"]


CODEX = Codex(
    name="codex",
    title="Codex CLI",
    package="@openai/codex",
    version="0.171.0",
    installer="npm",
    program="codex",
    key_env="CODEX_API_KEY",
    transcripts=(".codex/sessions/**/*.jsonl",),
)
