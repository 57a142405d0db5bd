"""Claude Code (`@anthropic-ai/claude-code`): `claude -p` with one JSON result (cost, tokens, turns,
`is_error`); its session is logged under `~/.claude/projects/`. Its base URL is
`ANTHROPIC_BASE_URL`; as root, bypassing permissions needs `IS_SANDBOX=1`."""

from __future__ import annotations

from dataclasses import dataclass

from runners.agents.presets.base import Preset


@dataclass(frozen=True)
class ClaudeCode(Preset):
    def argv(self, model: str | None) -> list[str]:
        return [
            "claude",
            "-p",
            "{prompt}",
            "--output-format",
            "json",
            "--permission-mode",
            "bypassPermissions",
            "--max-turns",
            "200",
            *(["--model", model] if model else []),
        ]

    def model_env(self, url: str) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": url}


CLAUDE_CODE = ClaudeCode(
    name="claude-code",
    title="Claude Code",
    package="@anthropic-ai/claude-code",
    version="2.1.332",
    installer="npm",
    program="claude",
    key_env="ANTHROPIC_API_KEY",
    env={
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",
    },
    transcripts=(".claude/projects/*/*.jsonl",),
)
