"""LLM providers: a small Protocol, token usage and cost, implementations registered by name."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import ConfigurationError
from pipeline.llm import models
from pipeline.llm.base import LLM, LLMS, LLMResponse, Usage, register
from pipeline.llm.claude import AnthropicLLM
from pipeline.llm.openai_compat import OpenAICompatLLM
from pipeline.llm.retry import RetryPolicy

__all__ = ["LLM", "LLMS", "LLMResponse", "Usage", "register", "provider_of", "AnthropicLLM", "OpenAICompatLLM", "RetryPolicy", "llm_from_settings", "prices_for", "role_model", "batch_runner_for"]

ROLE_DEFAULTS = {"judge": "claude-haiku-5-5", "synthetic": "claude-haiku-5-5"}


def prices_for(llm_settings, model: str, *, batch: bool = False) -> dict[str, float] | None:
    """The price row for `model`: an override in settings (exact, else longest prefix), else the models table."""
    table = llm_settings.prices_per_mtok if llm_settings is not None else {}
    override = table.get(model) or next((table[k] for k in sorted(table, key=len, reverse=True) if model.startswith(k)), None)
    if override is not None and not batch:
        return override
    return models.prices_for(model, batch=batch)


def provider_of(llm_settings) -> str:
    """anthropic, openai or extractive: the provider `auto` resolves to."""
    provider = llm_settings.provider
    if provider == "auto":
        provider = "anthropic" if llm_settings.api_key else "openai" if llm_settings.openai_base_url else "extractive"
    return provider


def role_model(llm_settings, role: str = "draft") -> str:
    """The model of a role (draft, judge, synthetic): its own setting, else the role's default on Anthropic, else the drafting model."""
    if role == "draft":
        return llm_settings.model
    own = {"judge": llm_settings.judge_model, "synthetic": llm_settings.synthetic_model or llm_settings.judge_model}[role]
    if own:
        return own
    return ROLE_DEFAULTS[role] if provider_of(llm_settings) == "anthropic" else llm_settings.model


def llm_from_settings(llm_settings, role: str = "draft") -> LLM | None:  # llm_settings: pipeline.settings.LLMSettings
    """The configured LLM for a role, or None when generation runs offline (extractive)."""
    provider = provider_of(llm_settings)
    if provider == "extractive":
        return None
    effort = {"draft": llm_settings.effort, "judge": llm_settings.judge_effort, "synthetic": llm_settings.synthetic_effort}[role]
    common = dict(model=role_model(llm_settings, role), effort=effort, max_tokens=llm_settings.max_tokens, timeout_s=llm_settings.timeout_s, max_retries=llm_settings.max_retries)
    if provider == "anthropic":
        if llm_settings.api_key is None:
            raise ConfigurationError("provider anthropic needs ANTHROPIC_API_KEY")
        temperature = llm_settings.temperature if role == "draft" else None
        return LLMS["anthropic"](api_key=llm_settings.api_key.get_secret_value(), base_url=llm_settings.base_url, cache=llm_settings.prompt_cache, temperature=temperature, **common)
    if provider not in LLMS:
        raise ConfigurationError(f"unknown LLM provider {provider!r}; choose from {sorted(LLMS)} or extractive")
    return LLMS[provider](
        base_url=llm_settings.openai_base_url,
        api_key=llm_settings.openai_api_key.get_secret_value() if llm_settings.openai_api_key else None,
        temperature=llm_settings.temperature if llm_settings.temperature is not None else 0.0,
        retry_base_delay_s=llm_settings.retry_base_delay_s,
        json_schema=llm_settings.openai_json_schema,
        **common,
    )


def batch_runner_for(llm: LLM | None, llm_settings, state_dir: Path):
    """A Message Batches runner for an Anthropic LLM (None for other providers or when batches are off)."""
    if not isinstance(llm, AnthropicLLM) or llm_settings.batch_min_items <= 0:
        return None
    from pipeline.llm.batches import BatchRunner

    return BatchRunner(client=llm.client, state_dir=state_dir, poll_interval_s=llm_settings.batch_poll_s, max_wait_s=llm_settings.batch_max_wait_s)
