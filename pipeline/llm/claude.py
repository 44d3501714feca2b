"""Claude through the official SDK: retries, timeouts, usage with cache fields, a prompt-cache breakpoint."""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from pipeline.errors import LLMError
from pipeline.llm.base import LLMResponse, Usage, register
from pipeline.llm.retry import RETRYABLE_STATUS, Retryable, RetryPolicy, retry_after_seconds

log = logging.getLogger(__name__)

# Smallest prefix (tokens) each model family caches; shorter prefixes are silently not cached.
MIN_CACHE_TOKENS: dict[str, int] = {
    "claude-opus-4-5": 4096,
    "claude-opus-4-6": 4096,
    "claude-haiku-4-5": 4096,
    "claude-sonnet-4-6": 2048,
    "claude-3-haiku": 2048,
    "claude-3-5-haiku": 2048,
}
DEFAULT_MIN_CACHE_TOKENS = 1024
CHARS_PER_TOKEN = 3.5  # conservative for Spanish prose with Claude's tokenizer


def estimate_tokens(text: str) -> int:
    """Rough token count of `text` (characters / 3.5)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def min_cache_tokens(model: str) -> int:
    """The minimum cacheable prefix for `model` (longest matching family prefix)."""
    best = [k for k in MIN_CACHE_TOKENS if model.startswith(k)]
    return MIN_CACHE_TOKENS[max(best, key=len)] if best else DEFAULT_MIN_CACHE_TOKENS


@register("anthropic")
class AnthropicLLM:
    """Claude via `anthropic.Anthropic`; the fixed system prompt (and tool) form the cached prefix."""

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
        retry_base_delay_s: float = 0.5,
        cache: bool = True,
        policy: RetryPolicy | None = None,
        **_: object,
    ) -> None:
        self.model = model
        self.temperature, self.max_tokens, self.cache = temperature, max_tokens, cache
        self.policy = policy or RetryPolicy(max_retries=max_retries, base_delay_s=retry_base_delay_s)
        self._client_args = {"api_key": api_key, "base_url": base_url, "timeout": timeout_s, "max_retries": 0}
        self._client = None
        self.cache_warnings: list[str] = []

    @property
    def client(self):
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(**{k: v for k, v in self._client_args.items() if v is not None})
        return self._client

    def cacheable(self, prefix: str) -> bool:
        """Whether the fixed prefix is long enough for this model to cache it."""
        need = min_cache_tokens(self.model)
        have = estimate_tokens(prefix)
        if have < need:
            msg = f"cached prefix ~{have} tokens < minimum {need} for {self.model}: it will not be cached"
            if msg not in self.cache_warnings:
                self.cache_warnings.append(msg)
                log.warning(msg)
            return False
        return True

    def request(self, *, system: str, user: str, tool: dict[str, Any] | None, temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        """The Messages API body: tool and system first (byte-identical across calls), then the user turn."""
        import json

        block: dict[str, Any] = {"type": "text", "text": system}
        prefix = system + (json.dumps(tool, ensure_ascii=False) if tool else "")
        if self.cache and self.cacheable(prefix):
            block["cache_control"] = {"type": "ephemeral"}
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or self.max_tokens,
            "system": [block],
            "messages": [{"role": "user", "content": user}],
        }
        temp = self.temperature if temperature is None else temperature
        if temp is not None:
            # SDK 2.x dropped `temperature` from the signature; the API still takes it in the body.
            kwargs["extra_body"] = {"temperature": temp}
        if tool is not None:
            kwargs["tools"] = [tool]
            kwargs["tool_choice"] = {"type": "tool", "name": tool["name"]}
        return kwargs

    def _call(self, kwargs: dict[str, Any]):
        import anthropic

        try:
            return self.client.messages.create(**kwargs)
        except anthropic.APITimeoutError as exc:
            raise Retryable(f"timeout: {exc}") from exc
        except anthropic.APIConnectionError as exc:
            raise Retryable(f"connection: {exc}") from exc
        except anthropic.APIStatusError as exc:
            if exc.status_code in RETRYABLE_STATUS:
                raise Retryable(f"HTTP {exc.status_code}: {exc.message}", status=exc.status_code, retry_after=retry_after_seconds(exc.response.headers)) from exc
            raise LLMError(f"Anthropic call failed: HTTP {exc.status_code}: {exc.message}") from exc
        except (anthropic.APIError, ValueError) as exc:  # malformed response bodies and the like
            raise LLMError(f"Anthropic call failed: {type(exc).__name__}: {exc}") from exc

    def complete(self, *, system, user, tool=None, temperature=None, max_tokens=None) -> LLMResponse:
        kwargs = self.request(system=system, user=user, tool=tool, temperature=temperature, max_tokens=max_tokens)
        start = time.perf_counter()
        try:
            msg, attempts = self.policy.run(lambda: self._call(kwargs))
        except Retryable as exc:
            raise LLMError(f"Anthropic call failed after {self.policy.max_retries + 1} attempts: {exc}") from exc
        latency = (time.perf_counter() - start) * 1000
        text = "".join(b.text for b in msg.content if b.type == "text")
        tool_input = next((dict(b.input) for b in msg.content if b.type == "tool_use" and isinstance(b.input, dict)), None)
        u = msg.usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0) or 0,
            cache_read_tokens=getattr(u, "cache_read_input_tokens", 0) or 0,
            calls=1,
        )
        return LLMResponse(text=text, model=msg.model, stop_reason=msg.stop_reason, tool_input=tool_input, usage=usage, latency_ms=latency, attempts=attempts)
