"""LLM providers: a small Protocol, token usage and cost, implementations registered by name."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from pipeline.errors import ConfigurationError, LLMError


@dataclass(slots=True)
class Usage:
    """Tokens of one or more calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    calls: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.input_tokens, self.output_tokens, self.cache_write_tokens, self.cache_read_tokens, self.calls)

    def as_dict(self) -> dict:
        return asdict(self)

    def cost(self, prices: dict[str, float] | None) -> float:
        """Cost in USD from a price table in USD per million tokens (input, output, cache_write, cache_read)."""
        if not prices:
            return 0.0
        return (
            self.input_tokens * prices.get("input", 0.0)
            + self.output_tokens * prices.get("output", 0.0)
            + self.cache_write_tokens * prices.get("cache_write", prices.get("input", 0.0))
            + self.cache_read_tokens * prices.get("cache_read", prices.get("input", 0.0))
        ) / 1_000_000


@dataclass(slots=True)
class LLMResponse:
    """One completion: text and/or the input of the forced tool call."""

    text: str
    model: str
    stop_reason: str | None = None
    tool_input: dict[str, Any] | None = None
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0


@runtime_checkable
class LLM(Protocol):
    """A chat model. `system` is the fixed, cacheable prefix; `user` the per-call part."""

    name: str
    model: str

    def complete(
        self,
        *,
        system: str,
        user: str,
        tool: dict[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResponse: ...


LLMS: dict[str, Callable[..., LLM]] = {}


def register(name: str) -> Callable[[Callable[..., LLM]], Callable[..., LLM]]:
    def deco(factory: Callable[..., LLM]) -> Callable[..., LLM]:
        LLMS[name] = factory
        return factory

    return deco


@register("anthropic")
class AnthropicLLM:
    """Claude through the official SDK, with a prompt-cache breakpoint after the fixed system prompt."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        model: str = "claude-sonnet-4-5",
        base_url: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        **_: object,
    ) -> None:
        self.model = model
        self.temperature, self.max_tokens = temperature, max_tokens
        self._client_args = {"api_key": api_key, "base_url": base_url, "timeout": timeout_s, "max_retries": max_retries}
        self._client = None

    @property
    def client(self):
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(**{k: v for k, v in self._client_args.items() if v is not None})
        return self._client

    def complete(self, *, system, user, tool=None, temperature=None, max_tokens=None) -> LLMResponse:
        import anthropic

        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": self.temperature if temperature is None else temperature,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": user}],
        }
        if tool is not None:
            kwargs["tools"] = [tool]
            kwargs["tool_choice"] = {"type": "tool", "name": tool["name"]}
        start = time.perf_counter()
        try:
            msg = self.client.messages.create(**kwargs)
        except anthropic.APIError as exc:
            raise LLMError(f"Anthropic call failed: {type(exc).__name__}: {getattr(exc, 'message', exc)}") from exc
        latency = (time.perf_counter() - start) * 1000
        text = "".join(b.text for b in msg.content if b.type == "text")
        tool_input = next((dict(b.input) for b in msg.content if b.type == "tool_use"), None)
        u = msg.usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0) or 0,
            cache_read_tokens=getattr(u, "cache_read_input_tokens", 0) or 0,
            calls=1,
        )
        return LLMResponse(text=text, model=msg.model, stop_reason=msg.stop_reason, tool_input=tool_input, usage=usage, latency_ms=latency)


def llm_from_settings(llm_settings) -> LLM | None:  # llm_settings: pipeline.settings.LLMSettings
    """The configured LLM, or None when generation runs offline."""
    provider = llm_settings.provider
    if provider == "auto":
        provider = "anthropic" if llm_settings.api_key else "extractive"
    if provider == "extractive":
        return None
    if provider == "anthropic":
        if llm_settings.api_key is None:
            raise ConfigurationError("provider anthropic needs ANTHROPIC_API_KEY")
        return LLMS["anthropic"](
            api_key=llm_settings.api_key.get_secret_value(),
            model=llm_settings.model,
            base_url=llm_settings.base_url,
            temperature=llm_settings.temperature,
            max_tokens=llm_settings.max_tokens,
            timeout_s=llm_settings.timeout_s,
            max_retries=llm_settings.max_retries,
        )
    if provider not in LLMS:
        raise ConfigurationError(f"unknown LLM provider {provider!r}; choose from {sorted(LLMS)} or extractive")
    return LLMS[provider](
        base_url=llm_settings.openai_base_url,
        api_key=llm_settings.openai_api_key.get_secret_value() if llm_settings.openai_api_key else None,
        model=llm_settings.model,
        temperature=llm_settings.temperature,
        max_tokens=llm_settings.max_tokens,
        timeout_s=llm_settings.timeout_s,
    )
