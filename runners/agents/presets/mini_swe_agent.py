"""mini-swe-agent (`mini-swe-agent`): `mini --yolo --exit-immediately`, its trajectory written to
the private home: the final text, the tokens of every model answer, LiteLLM's cost and the exit
status come from it (its terminal output is for people). It ends by running its submit command."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from runners.agents.presets.base import Preset
from runners.agents.presets.litellm import LITELLM_ENV, OTHER_KEYS, key_for
from runners.agents.report import AgentReport, read_report
from runners.modelserver.exchange import as_dict, as_list

TRAJECTORY = "trajectory.json"
SUBMITTED = "Submitted"


@dataclass(frozen=True)
class MiniSweAgent(Preset):
    def argv(self, model: str | None) -> list[str]:
        return [
            "mini",
            "--yolo",
            "--exit-immediately",
            "--task",
            "{prompt}",
            "--output",
            f"{{home}}/{TRAJECTORY}",
            "--config",
            "mini.yaml",
            *(["--model", model] if model else []),
        ]

    def key_for(self, model: str | None) -> str:
        return key_for(model, self.key_env)

    def model_args(self, url: str) -> list[str]:
        return ["--config", f"model.model_kwargs.api_base={url}/v1"]

    def parse(self, stdout: str, stderr: str, transcripts: dict[str, str]) -> AgentReport:
        try:
            trajectory = json.loads(transcripts[TRAJECTORY])
        except (KeyError, ValueError):
            report = read_report(stdout, stderr)
            report.is_error, report.error = True, f"it wrote no trajectory ({TRAJECTORY})"
            return report
        return trajectory_report(trajectory)


def trajectory_report(trajectory: Any) -> AgentReport:
    """The account in mini-swe-agent's trajectory: `info` (exit status, cost, calls) and each
    model answer's `extra.response.usage`."""
    info = as_dict(as_dict(trajectory).get("info"))
    report = AgentReport(format="mini-swe-agent-trajectory")
    for message in map(as_dict, as_list(as_dict(trajectory).get("messages"))):
        usage = as_dict(as_dict(as_dict(message.get("extra")).get("response")).get("usage"))
        if usage:
            report.prompt_tokens = (report.prompt_tokens or 0) + int(
                usage.get("prompt_tokens") or 0
            )
            report.completion_tokens = (report.completion_tokens or 0) + int(
                usage.get("completion_tokens") or 0
            )
            cached = as_dict(usage.get("prompt_tokens_details")).get("cached_tokens")
            if isinstance(cached, int):
                report.cached_tokens = (report.cached_tokens or 0) + cached
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and content:
            report.final_text = content
    stats = as_dict(info.get("model_stats"))
    cost, calls = stats.get("instance_cost"), stats.get("api_calls")
    # LiteLLM gives 0 for a model it has no price for (cost tracking set to ignore errors): unknown.
    report.cost_usd = float(cost) if isinstance(cost, (int, float)) and cost > 0 else None
    report.turns = calls if isinstance(calls, int) else None
    status = info.get("exit_status")
    if status != SUBMITTED:
        report.is_error = True
        said = f" ({info['submission']})" if info.get("submission") else ""
        report.error = f"it did not submit: exit status {status!r}{said}"
    return report


MINI_SWE_AGENT = MiniSweAgent(
    name="mini-swe-agent",
    title="mini-swe-agent",
    package="mini-swe-agent",
    version="2.4.6",
    installer="pip",
    program="mini",
    key_env="OPENAI_API_KEY",
    extra_keys=OTHER_KEYS,
    env={**LITELLM_ENV, "MSWEA_CONFIGURED": "true", "MSWEA_COST_TRACKING": "ignore_errors"},
    transcripts=(TRAJECTORY,),
)
