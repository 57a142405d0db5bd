"""Aider (`aider-chat`): one `--message-file` exchange, its `Tokens: ... Cost: ...` lines parsed;
its chat and the raw model traffic are logged in the private home. It exits 0 even when the model
could not be reached, so a run without any `Tokens:` line is an error. The scripted server writes
the `whole` edit format, which a dry run asks for."""

from __future__ import annotations

from dataclasses import dataclass

from runners.agents.presets.base import Preset
from runners.agents.presets.litellm import LITELLM_ENV, OTHER_KEYS, key_for
from runners.agents.report import AgentReport, last_lines, read_report

LLM_HISTORY = "aider.llm.history"


def last_answer(history: str) -> str | None:
    """The words of the model's last answer in Aider's `--llm-history-file` (its `ASSISTANT` lines
    after the last `LLM RESPONSE`), past the file listings it wrote."""
    _, found, last = history.rpartition("\nLLM RESPONSE ")
    if not found:
        return None
    lines = [
        line.removeprefix("ASSISTANT").removeprefix(" ")
        for line in last.splitlines()[1:]
        if line.startswith("ASSISTANT")
    ]
    fences = [n for n, line in enumerate(lines) if line.startswith("```")]
    said = "\n".join(lines[fences[-1] + 1 :] if fences else lines).strip()
    return said or None


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
            f"{{home}}/{LLM_HISTORY}",
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
        report.final_text = last_answer(transcripts.get(LLM_HISTORY, "")) or report.final_text
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
    transcripts=("aider.chat.history.md", LLM_HISTORY),
)
