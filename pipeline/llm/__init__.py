"""LLM providers: a small Protocol, token usage and cost, implementations registered by name."""

from __future__ import annotations

from pipeline.errors import ConfigurationError
from pipeline.llm.base import LLM, LLMS, LLMResponse, Usage, register
from pipeline.llm.claude import AnthropicLLM
from pipeline.llm.openai_compat import OpenAICompatLLM
from pipeline.llm.retry import RetryPolicy

__all__ = ["LLM", "LLMS", "LLMResponse", "Usage", "register", "AnthropicLLM", "OpenAICompatLLM", "RetryPolicy", "llm_from_settings", "prices_for"]


def prices_for(llm_settings, model: str) -> dict[str, float] | None:
    """The price row for `model` (exact name, else the longest configured prefix, e.g. dated snapshots)."""
    table = llm_settings.prices_per_mtok
    if model in table:
        return table[model]
    best = [k for k in table if model.startswith(k)]
    return table[max(best, key=len)] if best else None


def llm_from_settings(llm_settings) -> LLM | None:  # llm_settings: pipeline.settings.LLMSettings
    """The configured LLM, or None when generation runs offline (extractive)."""
    provider = llm_settings.provider
    if provider == "auto":
        provider = "anthropic" if llm_settings.api_key else "openai" if llm_settings.openai_base_url else "extractive"
    if provider == "extractive":
        return None
    common = dict(
        model=llm_settings.model,
        temperature=llm_settings.temperature,
        max_tokens=llm_settings.max_tokens,
        timeout_s=llm_settings.timeout_s,
        max_retries=llm_settings.max_retries,
        retry_base_delay_s=llm_settings.retry_base_delay_s,
    )
    if provider == "anthropic":
        if llm_settings.api_key is None:
            raise ConfigurationError("provider anthropic needs ANTHROPIC_API_KEY")
        return LLMS["anthropic"](api_key=llm_settings.api_key.get_secret_value(), base_url=llm_settings.base_url, cache=llm_settings.prompt_cache, **common)
    if provider not in LLMS:
        raise ConfigurationError(f"unknown LLM provider {provider!r}; choose from {sorted(LLMS)} or extractive")
    return LLMS[provider](
        base_url=llm_settings.openai_base_url,
        api_key=llm_settings.openai_api_key.get_secret_value() if llm_settings.openai_api_key else None,
        **common,
    )
