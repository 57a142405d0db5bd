"""Aider (`aider-chat`): one `--message-file` exchange, its `Tokens: ... Cost: ...` lines parsed;
its chat and the raw model traffic are logged in the private home. It exits 0 even when the model
could not be reached, so a run without any `Tokens:` line is an error. The scripted server writes
the `whole` edit format, which a dry run asks for."""

from __future__ import annotations

from dataclasses import dataclass

from runners.agents.presets.base import Preset
from runners.agents.presets.litellm import LITELLM_ENV, OTHER_KEYS, key_for
from runners.agents.report import AgentReport, last_lines, read_report


@dataclass(frozen=True)
class Aider(Preset):
    def argv(self, model: str | None) -> list[str]:
        return [
            "aider",
            "--message-file",
            "{prompt_file}",
            "--yes-always",
            "--no-git",
            "--no-check-update",
            "--no-show-release-notes",
            "--analytics-disable",
            "--no-pretty",
            "--no-stream",
            "--no-fancy-input",
            "--chat-history-file",
            "{home}/aider.chat.history.md",
            "--input-history-file",
            "{home}/aider.input.history",
            "--llm-history-file",
            "{home}/aider.llm.history",
            *(["--model", model] if model else []),
        ]

    def key_for(self, model: str | None) -> str:
        return key_for(model, self.key_env)

    def model_env(self, url: str) -> dict[str, str]:
        return {"OPENAI_API_BASE": f"{url}/v1", "ANTHROPIC_API_BASE": url}

    def dry_run_args(self) -> list[str]:
        return ["--edit-format", "whole"]

    def parse(self, stdout: str, stderr: str, transcripts: dict[str, str]) -> AgentReport:
        report = read_report(stdout, stderr)
        if report.format != "aider":  # no model answer at all: Aider still exits 0
            report.is_error = True
            report.error = (
                "no `Tokens:` line: the model never answered ("
                + (last_lines(stdout, 1) or "no output")
                + ")"
            )
        return report


AIDER = Aider(
    name="aider",
    title="Aider",
    package="aider-chat",
    version="0.86.2",
    installer="pip",
    program="aider",
    key_env="OPENAI_API_KEY",
    env=LITELLM_ENV,
    extra_keys=OTHER_KEYS,
    transcripts=("aider.chat.history.md", "aider.llm.history"),
)
