"""What the two LiteLLM-based presets (Aider, mini-swe-agent) share: the key variable follows the
model's provider, and the scripted server is reached as an OpenAI-compatible API."""

from __future__ import annotations

#: LiteLLM's own price map is fetched from the internet at start unless told to use its copy.
LITELLM_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
KEYS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "claude": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}
OTHER_KEYS = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY")


def key_for(model: str | None, default: str = "OPENAI_API_KEY") -> str:
    """The variable LiteLLM reads the key of `model` from (`anthropic/...`, `claude-...`:
    Anthropic's)."""
    if not model:
        return default
    provider = model.split("/", 1)[0] if "/" in model else model.split("-", 1)[0]
    return KEYS.get(provider, default)
