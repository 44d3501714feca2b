"""The LLM plug point: a small Protocol, token usage and cost, and the registry of providers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

# stop_reason values that end a reply before it is complete, and how orienta names the outcome.
TRUNCATED = ("max_tokens", "length", "model_context_window_exceeded")
REFUSED = ("refusal", "content_filter")
PAUSED = ("pause_turn",)


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

    @property
    def prompt_tokens(self) -> int:
        """All input tokens, whether billed fresh, written to or read from the cache."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    def cost(self, prices: dict[str, float] | None) -> float:
        """Cost in USD from a price table in USD per million tokens (input, output, cache_write, cache_read).

        A table with a `long_prompt` band (models.prices_for) prices a request whose prompt exceeds the band's
        threshold at the band's rates, all its tokens included; usage summed over several calls is judged by its
        average prompt per call.
        """
        if not prices:
            return 0.0
        band = prices.get("long_prompt")
        if band and self.prompt_tokens / max(self.calls, 1) > band["threshold_tokens"]:
            prices = band
        return (
            self.input_tokens * prices.get("input", 0.0)
            + self.output_tokens * prices.get("output", 0.0)
            + self.cache_write_tokens * prices.get("cache_write", prices.get("input", 0.0))
            + self.cache_read_tokens * prices.get("cache_read", prices.get("input", 0.0))
        ) / 1_000_000


@dataclass(slots=True)
class LLMResponse:
    """One completion: the text (thinking blocks left out), the parsed JSON when a schema was asked for, usage."""

    text: str
    model: str
    stop_reason: str | None = None
    data: dict[str, Any] | None = None
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    attempts: int = 1
    batch: bool = False
    thinking_blocks: int = 0
    blocks: list[dict[str, Any]] = field(default_factory=list)  # text blocks with the citations the API returned for each

    @property
    def truncated(self) -> bool:
        """The reply was cut off (output tokens or the context window ran out)."""
        return self.stop_reason in TRUNCATED

    @property
    def refused(self) -> bool:
        """The model declined to answer."""
        return self.stop_reason in REFUSED

    @property
    def outcome(self) -> str:
        """ok | refusal | truncated | paused: what a caller must do with this reply."""
        if self.refused:
            return "refusal"
        if self.truncated:
            return "truncated"
        if self.stop_reason in PAUSED:
            return "paused"
        return "ok"


def json_schema_of(schema: Any) -> dict[str, Any]:
    """A JSON schema from a pydantic model class or a schema dict."""
    if isinstance(schema, dict):
        return schema
    if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
        return schema.model_json_schema()
    raise TypeError(f"schema must be a pydantic model class or a JSON schema dict, not {type(schema).__name__}")


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole text, else a fenced block, else the outermost braces; None if there is none."""
    import json

    candidates = [text.strip()]
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, flags=re.S)
    if fenced:
        candidates.append(fenced.group(1))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for c in candidates:
        try:
            value = json.loads(c)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


@runtime_checkable
class LLM(Protocol):
    """A chat model. `system` is the fixed, cacheable prefix; `user` the per-call part (a string, or Messages API
    content blocks for a model with `search_results = True`, e.g. search_result blocks with citations enabled).

    `schema` (a pydantic model class or a JSON schema) asks for a JSON reply that fits it; the parsed
    object comes back in `LLMResponse.data`. `temperature` and `effort` are sent only where the model
    accepts them (an explicit value the model refuses is a ConfigurationError, never a request).
    """

    name: str
    model: str

    def complete(
        self,
        *,
        system: str,
        user: str | list[dict[str, Any]],
        schema: Any = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        effort: str | None = None,
    ) -> LLMResponse: ...


LLMS: dict[str, Callable[..., LLM]] = {}


def register(name: str) -> Callable[[Callable[..., LLM]], Callable[..., LLM]]:
    """Register an LLM factory under `name`."""

    def deco(factory: Callable[..., LLM]) -> Callable[..., LLM]:
        LLMS[name] = factory
        return factory

    return deco
