"""The LLM plug point: a small Protocol, token usage and cost, and the registry of providers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable


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
    attempts: int = 1

    @property
    def truncated(self) -> bool:
        """The model stopped because it ran out of output tokens."""
        return self.stop_reason in ("max_tokens", "length")


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
    """Register an LLM factory under `name`."""

    def deco(factory: Callable[..., LLM]) -> Callable[..., LLM]:
        LLMS[name] = factory
        return factory

    return deco
