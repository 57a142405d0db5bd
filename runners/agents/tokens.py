"""The harness's own count of the model traffic against what the agent claims.

When the model traffic goes through the proxy's routes (`network.routes`), the proxy reads every
response's `usage` (runners.egress.usage) and so knows the tokens served. The agent's own account
(`runners.agents.report`) should say the same: a mismatch (a CLI that under-reports, a wrapper that
makes its figures up, traffic the agent sent elsewhere) is recorded in the step and shown.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from runners.agents.report import AgentReport
from runners.egress.proxy import EgressRecord


class TokenCheck(BaseModel):
    counted_prompt: int = Field(description="prompt tokens the proxy counted (cache included)")
    counted_completion: int
    counted_requests: int
    claimed_prompt: int | None = Field(
        None, description="what the agent said (None: it said nothing)"
    )
    claimed_completion: int | None = None
    matches: bool | None = Field(None, description="None when the agent claimed nothing to compare")
    detail: str = ""


def check_tokens(egress: EgressRecord | None, report: AgentReport) -> TokenCheck | None:
    """None when the proxy counted nothing (no routes, or no model request went through them)."""
    if egress is None or egress.routed.requests == 0:
        return None
    counted = egress.routed
    check = TokenCheck(
        counted_prompt=counted.prompt_tokens,
        counted_completion=counted.completion_tokens,
        counted_requests=counted.requests,
        claimed_prompt=report.prompt_tokens,
        claimed_completion=report.completion_tokens,
    )
    pairs = [
        (name, mine, theirs)
        for name, mine, theirs in (
            ("prompt", counted.prompt_tokens, report.prompt_tokens),
            ("completion", counted.completion_tokens, report.completion_tokens),
        )
        if theirs is not None
    ]
    if not pairs:
        check.detail = (
            f"the agent reported no tokens; the proxy counted {counted.total_tokens:,} "
            f"in {counted.requests} request(s)"
        )
        return check
    wrong = [
        f"{name}: the agent said {theirs:,}, the proxy counted {mine:,}"
        for name, mine, theirs in pairs
        if mine != theirs
    ]
    check.matches = not wrong
    check.detail = (
        "; ".join(wrong) + f" ({counted.requests} request(s) through the proxy)"
        if wrong
        else f"the agent's figures match the proxy's ({counted.total_tokens:,} tokens, "
        f"{counted.requests} request(s))"
    )
    if egress.unmetered:
        check.detail += f"; {egress.unmetered} response(s) had no readable usage"
    return check
