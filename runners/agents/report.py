"""What an agent said about its run: final text, error, cost and tokens, from its own output.

The common coding-agent CLIs print a machine-readable account when asked (formats in
docs/agents.md): Claude Code `--output-format json` (one `result` object; an array of messages
with `--verbose`) or `stream-json` (JSONL ending in that object); Codex `exec --json` (JSONL events,
usage per `turn.completed`); Gemini CLI `--output-format json` (`response`, `stats`, `error`) or
`stream-json`; Aider's `Tokens: ... Cost: ...` lines. Anything else is plain text: its last lines
are what the agent said, and cost and tokens stay unknown (never zero).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, Field, model_validator

EXCERPT_CHARS = 300
MAX_MULTILINE = 20
# What an agent may say it spent on one checkpoint: anything outside is not a figure but a bug or a
# lie (a cost of -$1,000,000, 10^30 tokens), refused and said so rather than summed into a table.
MAX_COST_USD = 10_000.0
MAX_TOKENS = 10**10
MAX_TURNS = 10**6
TOKEN_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "total_tokens",
)
_BOUNDS: dict[str, tuple[float, str]] = {
    "cost_usd": (MAX_COST_USD, "cost (USD)"),
    "turns": (MAX_TURNS, "turns"),
    **{name: (float(MAX_TOKENS), name.replace("_", " ")) for name in TOKEN_FIELDS},
}
_AIDER = re.compile(
    r"Tokens: ([\d.]+k?) sent(?:, ([\d.]+k?) cache write)?(?:, ([\d.]+k?) cache hit)?, "
    r"([\d.]+k?) received\.(?: Cost: \$([\d.]+) message, \$([\d.]+) session\.)?"
)


class AgentReport(BaseModel):
    """The agent's own account; None where it said nothing."""

    format: str = (
        "text"  # claude-json | codex-jsonl | gemini-json | gemini-stream-json | aider | text
    )
    final_text: str | None = None
    is_error: bool = False
    error: str | None = None
    cost_usd: float | None = None
    cost_estimated: bool = False  # from the price table (runners/agents/prices.py), not the agent
    cost_note: str | None = None  # how it was estimated
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # prompt tokens read from the model's cache (within prompt)
    cache_write_tokens: int | None = None  # prompt tokens written to it (Claude Code, Aider)
    total_tokens: int | None = None
    turns: int | None = None
    refused: dict[str, str] = Field(
        default_factory=dict,
        description="figures the agent reported that cannot be "
        "true (negative, not finite, beyond any run), dropped: field -> what it said, and why",
    )

    @model_validator(mode="before")
    @classmethod
    def _refuse_impossible_figures(cls, data: Any) -> Any:
        """Each figure must be a finite number from 0 to its bound (the agent's own account is as
        untrusted as its code). One that is not is dropped and named in `refused`; a refused token
        count drops every token count (the others of that account do not add up any more)."""
        if not isinstance(data, dict):
            return data
        data, refused = dict(data), dict(data.get("refused") or {})
        bad = {
            name: data[name]
            for name in _BOUNDS
            if data.get(name) is not None and not _believable(name, data[name])
        }
        for name, value in bad.items():
            bound, label = _BOUNDS[name]
            refused[name] = f"{label} {_shown(value)}: not a number from 0 to {bound:,.0f}"
        if any(name in TOKEN_FIELDS for name in bad):
            bad.update({name: None for name in TOKEN_FIELDS})
        data.update({name: None for name in bad})
        data["refused"] = refused
        return data

    def refused_tokens(self) -> bool:
        return any(name in self.refused for name in TOKEN_FIELDS)

    def token_usage(self) -> dict[str, Any] | None:
        """Promptfoo's `tokenUsage` (None when the agent reported no tokens). The model's prompt
        cache goes in `completionDetails`, as promptfoo's own Claude Agent SDK provider puts it:
        promptfoo's `cached` means a response replayed from its cache ("N (cached)" in the
        viewer)."""
        if (
            self.prompt_tokens is None
            and self.completion_tokens is None
            and self.total_tokens is None
        ):
            return None
        prompt, completion = self.prompt_tokens or 0, self.completion_tokens or 0
        usage: dict[str, Any] = {
            "prompt": prompt,
            "completion": completion,
            "total": self.total_tokens if self.total_tokens is not None else prompt + completion,
        }
        cache = {
            key: value
            for key, value in (
                ("cacheReadInputTokens", self.cached_tokens),
                ("cacheCreationInputTokens", self.cache_write_tokens),
            )
            if value is not None
        }
        if cache:
            usage["completionDetails"] = cache
        if self.turns is not None:
            usage["numRequests"] = self.turns
        return usage


def read_report(stdout: str, stderr: str = "") -> AgentReport:
    """The best account `stdout` (then `stderr`, where Aider and some wrappers write) holds, its
    figures checked (a parser sums into a report after it is made: checked once it is done)."""
    report = _read(stdout, stderr)
    return AgentReport.model_validate(report.model_dump())


def _read(stdout: str, stderr: str) -> AgentReport:
    for text in (stdout, stderr):
        objects = _json_objects(text)
        for parse in (_claude, _codex, _gemini):
            report = parse(objects)
            if report is not None:
                return report
    report = _aider(stdout + "\n" + stderr)
    if report is not None:
        return report
    return AgentReport(final_text=last_lines(stdout) or None)


def excerpt(report: AgentReport, stdout: str, stderr: str) -> str:
    """A short quote of what the agent said: its final text, else its last lines of output."""
    text = report.final_text or last_lines(stdout) or last_lines(stderr)
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def last_lines(text: str, count: int = 3) -> str:
    lines = [
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("[... ")
    ]
    return "\n".join(lines[-count:])


def _believable(name: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if name != "cost_usd" and isinstance(value, float) and not value.is_integer():
        return False
    return math.isfinite(value) and 0 <= value <= _BOUNDS[name][0]


def _shown(value: Any) -> str:
    """The refused value, readable: `-1,000,000`, `1e+30`, `'lots'`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or abs(value) >= 1e15:
            return f"{float(value):.3g}"
        return f"{value:,}" if isinstance(value, int) else f"{value:,.6f}".rstrip("0").rstrip(".")
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _json_objects(text: str) -> list[dict[str, Any]]:
    """The objects of the whole text as one JSON value (object, or array of objects), else of its
    JSON lines and of the JSON values that start a line and span several (Gemini CLI indents its
    JSON, and may print a line such as "Loaded cached credentials." before it)."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        try:
            return _objects(json.loads(stripped))
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = resume = tries = 0
    for line in stripped.splitlines(keepends=True):
        start, position = position, position + len(line)
        body = line.strip()
        if start < resume or not body.startswith(("{", "[")):
            continue
        try:
            found += _objects(json.loads(body))
            continue
        except ValueError:
            pass
        # Only a value at the start of a line, and a few of them: a long transcript of bracketed
        # log lines must not cost a decode of its whole tail per line.
        if line[0] not in "[{" or tries >= MAX_MULTILINE:
            continue
        tries += 1
        try:
            value, resume = decoder.raw_decode(stripped, start)
        except ValueError:
            continue
        found += _objects(value)
    return found


def _objects(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _sum(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _claude(objects: list[dict[str, Any]]) -> AgentReport | None:
    results = [
        o for o in objects if o.get("type") == "result" and ("subtype" in o or "is_error" in o)
    ]
    if not results:
        return None
    last = results[-1]
    usage = _dict(last.get("usage"))
    fresh, created, read = (
        _int(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    cost = last.get("total_cost_usd", last.get("cost_usd"))
    subtype = str(last.get("subtype") or "")
    is_error = bool(last.get("is_error")) or (bool(subtype) and subtype != "success")
    errors = [str(e) for e in last.get("errors") or [] if e]
    text = last.get("result") if isinstance(last.get("result"), str) else None
    return AgentReport(
        format="claude-json",
        final_text=text,
        is_error=is_error,
        error=("; ".join(errors) or subtype or "error") if is_error else None,
        cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
        prompt_tokens=_sum(fresh, created, read),
        completion_tokens=_int(usage.get("output_tokens")),
        cached_tokens=read,
        cache_write_tokens=created,
        turns=_int(last.get("num_turns")),
    )


def _codex(objects: list[dict[str, Any]]) -> AgentReport | None:
    kinds = {str(o.get("type")) for o in objects}
    if not kinds & {"thread.started", "turn.started", "turn.completed", "turn.failed"}:
        return None
    report = AgentReport(format="codex-jsonl", turns=0)
    for event in objects:
        kind = event.get("type")
        if kind == "turn.completed":
            usage = _dict(event.get("usage"))
            report.turns = (report.turns or 0) + 1
            report.prompt_tokens = _sum(report.prompt_tokens, _int(usage.get("input_tokens")))
            report.cached_tokens = _sum(
                report.cached_tokens, _int(usage.get("cached_input_tokens"))
            )
            report.completion_tokens = _sum(
                report.completion_tokens,
                _int(usage.get("output_tokens")),
                _int(usage.get("reasoning_output_tokens")),
            )
        elif kind == "item.completed":
            item = _dict(event.get("item"))
            if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                report.final_text = item["text"]
        elif kind in ("turn.failed", "error"):
            error = _dict(event.get("error")) or event
            report.is_error = True
            report.error = str(error.get("message") or kind)
    return report


def _gemini(objects: list[dict[str, Any]]) -> AgentReport | None:
    whole = [
        o
        for o in objects
        if "response" in o and "stats" in o or ("error" in o and "session_id" in o)
    ]
    if whole:
        last = whole[-1]
        error = _dict(last.get("error")) or None
        prompt = completion = cached = total = requests = None
        for model in _dict(_dict(last.get("stats")).get("models")).values():
            model, tokens = _dict(model), _dict(_dict(model).get("tokens"))
            prompt = _sum(prompt, _int(tokens.get("prompt")))
            completion = _sum(
                completion, _int(tokens.get("candidates")), _int(tokens.get("thoughts"))
            )
            cached = _sum(cached, _int(tokens.get("cached")))
            total = _sum(total, _int(tokens.get("total")))
            requests = _sum(requests, _int(_dict(model.get("api")).get("totalRequests")))
        text = last.get("response") if isinstance(last.get("response"), str) else None
        return AgentReport(
            format="gemini-json",
            final_text=text,
            is_error=error is not None,
            error=str(error.get("message") or error.get("type")) if error else None,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cached_tokens=cached,
            total_tokens=total,
            turns=requests,
        )
    results = [o for o in objects if o.get("type") == "result" and isinstance(o.get("stats"), dict)]
    if not results:
        return None
    stats = _dict(results[-1]["stats"])
    said = "".join(
        str(o.get("content") or "")
        for o in objects
        if o.get("type") == "message" and o.get("role") == "assistant"
    )
    failed = results[-1].get("status") not in (None, "success")
    return AgentReport(
        format="gemini-stream-json",
        final_text=said or None,
        is_error=failed,
        error=str(results[-1].get("status")) if failed else None,
        prompt_tokens=_int(stats.get("input_tokens")),
        completion_tokens=_int(stats.get("output_tokens")),
        cached_tokens=_int(stats.get("cached")),
        total_tokens=_int(stats.get("total_tokens")),
    )


def _aider(text: str) -> AgentReport | None:
    lines = _AIDER.findall(text)
    if not lines:
        return None
    sent = sum(_k(line[0]) for line in lines)
    received = sum(_k(line[3]) for line in lines)
    hits = sum(_k(line[2]) for line in lines if line[2])
    writes = sum(_k(line[1]) for line in lines if line[1])
    costs = [line[5] for line in lines if line[5]]
    return AgentReport(
        format="aider",
        final_text=None,
        prompt_tokens=sent,
        completion_tokens=received,
        cached_tokens=hits if any(line[2] for line in lines) else None,
        cache_write_tokens=writes if any(line[1] for line in lines) else None,
        cost_usd=float(costs[-1]) if costs else None,
        turns=len(lines),
    )


def _k(text: str) -> int:
    """Aider's rounded counts: `12k` is 12,000, `2.1k` 2,100, `450` 450."""
    return round(float(text[:-1]) * 1000) if text.endswith("k") else round(float(text))
