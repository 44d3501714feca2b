"""Claude through the official SDK: requests shaped by the models table, structured outputs, the SDK's own retries."""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from pipeline.errors import ConfigurationError, LLMError
from pipeline.llm.base import LLMResponse, Usage, json_schema_of, parse_json_object, register
from pipeline.llm.models import ModelInfo, check_model, model_info

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5-5"
CHARS_PER_TOKEN = 3.5  # conservative for Spanish prose (the 5.x tokenizer counts ~30% more tokens than 4.x)
# Keys of the Messages API body that the SDK's `messages.create` takes as keyword arguments; anything
# else in the body (e.g. `temperature` on the older models that still accept it) travels in extra_body.
_SDK_KWARGS = {"model", "max_tokens", "messages", "system", "output_config", "tools", "tool_choice", "thinking", "stop_sequences", "metadata", "cache_control", "service_tier"}


# Keys of a Messages body the token-counting endpoint takes (build-with-claude/token-counting: the same body as
# /v1/messages without max_tokens); output_config keeps only its format, which is part of the prompt.
_COUNT_KEYS = ("model", "system", "messages", "tools", "tool_choice", "thinking")
_PLACEHOLDER = [{"role": "user", "content": "."}]


def estimate_tokens(text: str) -> int:
    """Rough token count of `text` (characters / 3.5): used only when the token-counting endpoint fails."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _without_cache_control(value: Any) -> Any:
    """The body without cache_control markers: they do not change what is counted."""
    if isinstance(value, dict):
        return {k: _without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_control(v) for v in value]
    return value


def min_cache_tokens(model: str) -> int:
    """The minimum cacheable prefix for `model`, from the models table."""
    return model_info(model).min_cache_tokens


def output_format(schema: Any) -> dict[str, Any]:
    """`output_config.format` for a pydantic model or JSON schema, made strict the way the SDK does it
    (additionalProperties false, unsupported keywords such as minimum/maximum moved into descriptions)."""
    from anthropic import transform_schema

    return {"type": "json_schema", "schema": transform_schema(json_schema_of(schema))}


@register("anthropic")
class AnthropicLLM:
    """Claude via `anthropic.Anthropic`; the fixed system prompt (and the schema) form the cached prefix."""

    name = "anthropic"
    search_results = True  # `user` may hold search_result blocks with citations (build-with-claude/search-results)

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        temperature: float | None = None,
        effort: str | None = None,
        max_tokens: int = 8192,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        cache: bool = True,
        **_: object,
    ) -> None:
        self.model = model
        self.info: ModelInfo = model_info(model)
        self.deprecation = check_model(model)  # raises ModelRetired past end of life
        self.max_tokens, self.cache = max_tokens, cache
        self.temperature = self._sampling(temperature)
        self.effort = self._effort(effort, strict=False)
        self.max_retries = max_retries
        self._client_args = {"api_key": api_key, "base_url": base_url, "timeout": timeout_s, "max_retries": max_retries}
        self._client = None
        self.cache_warnings: list[str] = []
        self._lifecycle_checked = False  # the Models API is asked once, before the first request
        self._counts: dict[str, int] = {}  # hash of a counted body -> its exact input tokens
        self.count_fallbacks = 0  # counts that failed and fell back to the estimate

    @property
    def client(self):
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(**{k: v for k, v in self._client_args.items() if v is not None})
        return self._client

    def _sampling(self, temperature: float | None) -> float | None:
        if temperature is not None and not self.info.sampling:
            raise ConfigurationError(f"{self.model} does not accept sampling parameters (temperature); leave the temperature unset for this model")
        return temperature

    def _effort(self, effort: str | None, *, strict: bool = True) -> str | None:
        """The effort level to send: None when the model has no effort parameter; an unknown level is an error."""
        if effort is None or not self.info.effort:
            if effort is not None and not strict:
                log.info("%s has no effort parameter; effort=%s is not sent", self.model, effort)
            return None
        if effort not in self.info.effort:
            raise ConfigurationError(f"{self.model} accepts effort {list(self.info.effort)}, not {effort!r}")
        return effort

    def count_tokens(self, body: dict[str, Any]) -> int:
        """Exact input tokens of a Messages body (POST /v1/messages/count_tokens, free), cached per hash of what is
        counted; the chars/3.5 estimate only when counting fails, and then logged."""
        import hashlib
        import json

        import anthropic

        payload = {k: _without_cache_control(body[k]) for k in _COUNT_KEYS if k in body}
        fmt = (body.get("output_config") or {}).get("format")
        if fmt is not None:
            payload["output_config"] = {"format": fmt}
        key = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        if key in self._counts:
            return self._counts[key]
        try:
            counted = self.client.messages.count_tokens(**payload).input_tokens
        except (anthropic.APIError, ValueError) as exc:
            self.count_fallbacks += 1
            estimate = estimate_tokens(json.dumps(payload, ensure_ascii=False))
            log.warning("token count failed for %s (%s: %s): using the estimate of %d tokens", self.model, type(exc).__name__, exc, estimate)
            return estimate
        self._counts[key] = counted
        return counted

    def prefix_tokens(self, system: str, fmt: dict[str, Any] | None = None) -> int:
        """Exact tokens of the fixed prefix (system prompt and output format): a one-turn body counted with and without it."""
        body: dict[str, Any] = {"model": self.model, "system": [{"type": "text", "text": system}], "messages": _PLACEHOLDER}
        if fmt is not None:
            body["output_config"] = {"format": fmt}
        return max(0, self.count_tokens(body) - self.count_tokens({"model": self.model, "messages": _PLACEHOLDER}))

    def cacheable(self, system: str, fmt: dict[str, Any] | None = None) -> bool:
        """Whether the fixed prefix gets a cache breakpoint: left out only when its exact size is below a documented
        minimum (a breakpoint below the real minimum is silently not cached, so a guessed minimum never drops it)."""
        need = self.info.min_cache_tokens
        have = self.prefix_tokens(system, fmt)
        if have >= need:
            return True
        documented = self.info.documented("min_cache_tokens")
        msg = f"cached prefix {have} tokens < minimum {need} for {self.model}" + (": it will not be cached" if documented else " (a guessed minimum: the breakpoint is kept)")
        if msg not in self.cache_warnings:
            self.cache_warnings.append(msg)
            log.warning(msg)
        return not documented

    def request(self, *, system: str, user: str | list[dict[str, Any]], schema: Any = None, max_tokens: int | None = None, temperature: float | None = None, effort: str | None = None) -> dict[str, Any]:
        """The Messages API body (what a batch item's `params` holds): system first (byte-identical across calls), then the user turn."""
        level = self._effort(effort) if effort is not None else self.effort  # refused values raise before anything is sent
        temp = self._sampling(temperature) if temperature is not None else self.temperature
        self.check_lifecycle()  # once, before anything is sent for this model (a retired one is refused here)
        block: dict[str, Any] = {"type": "text", "text": system}
        fmt = output_format(schema) if schema is not None else None
        if self.cache and self.cacheable(system, fmt):
            block["cache_control"] = {"type": "ephemeral"}
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": min(max_tokens or self.max_tokens, self.info.max_output),
            "system": [block],
            "messages": [{"role": "user", "content": user}],
        }
        config: dict[str, Any] = {}
        if level is not None:
            config["effort"] = level
        if fmt is not None:
            config["format"] = fmt
        if config:
            body["output_config"] = config
        if temp is not None:
            body["temperature"] = temp
        return body

    def response(self, msg: Any, *, latency_ms: float = 0.0, attempts: int = 1, batch: bool = False, structured: bool = False) -> LLMResponse:
        """An `anthropic.types.Message` (sync or from a batch) as an LLMResponse: text blocks only, thinking counted."""
        text = "".join(b.text for b in msg.content if b.type == "text")
        blocks = [{"text": b.text, "citations": [c.model_dump() for c in (getattr(b, "citations", None) or [])]} for b in msg.content if b.type == "text"]
        thinking = sum(1 for b in msg.content if b.type in ("thinking", "redacted_thinking"))
        u = msg.usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,  # thinking tokens are billed as output and included here
            cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0) or 0,
            cache_read_tokens=getattr(u, "cache_read_input_tokens", 0) or 0,
            calls=1,
        )
        data = parse_json_object(text) if structured and text else None
        return LLMResponse(text=text, model=msg.model, stop_reason=msg.stop_reason, data=data, usage=usage, latency_ms=latency_ms, attempts=attempts, batch=batch, thinking_blocks=thinking, blocks=blocks)

    def create(self, body: dict[str, Any]):
        """POST the body with the SDK (its retries: 408/409/429/5xx with retry-after); returns (Message, attempts)."""
        import anthropic

        kwargs = {k: v for k, v in body.items() if k in _SDK_KWARGS}
        extra = {k: v for k, v in body.items() if k not in _SDK_KWARGS}
        if extra:
            kwargs["extra_body"] = extra
        try:
            raw = self.client.messages.with_raw_response.create(**kwargs)
            return raw.parse(), raw.retries_taken + 1
        except anthropic.APIStatusError as exc:
            raise LLMError(f"Anthropic call failed: HTTP {exc.status_code}: {exc.message}") from exc
        except anthropic.APITimeoutError as exc:
            raise LLMError(f"Anthropic call failed after {self.max_retries + 1} attempts: timeout") from exc
        except anthropic.APIConnectionError as exc:
            raise LLMError(f"Anthropic call failed after {self.max_retries + 1} attempts: connection: {exc}") from exc
        except (anthropic.APIError, ValueError) as exc:  # malformed response bodies and the like
            raise LLMError(f"Anthropic call failed: {type(exc).__name__}: {exc}") from exc

    def check_lifecycle(self) -> None:
        """Ask the Models API once whether the model is still served (ModelRetired if not; a deprecation is logged)."""
        if not self._lifecycle_checked:
            from pipeline.llm.models import api_lifecycle, check_lifecycle

            self.deprecation = check_lifecycle(self.model, api_lifecycle(self.client, self.model)) or self.deprecation
            self._lifecycle_checked = True

    def complete(self, *, system, user, schema=None, max_tokens=None, temperature=None, effort=None) -> LLMResponse:
        body = self.request(system=system, user=user, schema=schema, max_tokens=max_tokens, temperature=temperature, effort=effort)
        start = time.perf_counter()
        msg, attempts = self.create(body)
        return self.response(msg, latency_ms=(time.perf_counter() - start) * 1000, attempts=attempts, structured=schema is not None)
