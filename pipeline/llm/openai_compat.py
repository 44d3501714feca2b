"""An OpenAI-compatible chat endpoint (Ollama, vLLM, llama.cpp server) over plain HTTP.

Structured replies use the server's `response_format: {type: json_schema}` when it supports it; a
server that refuses it (HTTP 400 naming response_format) is asked again without it, and the JSON is
read from the text by the tolerant parser. Retries here are orienta's RetryPolicy (the Anthropic
client uses the SDK's own).
"""

from __future__ import annotations

import time
from typing import Any

from pipeline.errors import LLMError
from pipeline.llm.base import LLMResponse, Usage, json_schema_of, parse_json_object, register
from pipeline.llm.retry import RETRYABLE_STATUS, Retryable, RetryPolicy, retry_after_seconds


@register("openai")
class OpenAICompatLLM:
    """POST {base_url}/chat/completions with httpx; JSON-schema response format for structured replies."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int = 2048,
        json_schema: bool = True,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        retry_base_delay_s: float = 0.5,
        policy: RetryPolicy | None = None,
        **_: object,
    ) -> None:
        if not base_url:
            raise LLMError("the openai provider needs ORIENTA_LLM__OPENAI_BASE_URL (e.g. http://localhost:11434/v1)")
        self.base_url, self.model, self.api_key = base_url.rstrip("/"), model, api_key
        self.temperature, self.max_tokens, self.timeout_s = temperature, max_tokens, timeout_s
        self.json_schema = json_schema  # False after the server refused response_format once
        self.policy = policy or RetryPolicy(max_retries=max_retries, base_delay_s=retry_base_delay_s)
        self._client = None

    @property
    def client(self):
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.Client(base_url=self.base_url, headers=headers, timeout=self.timeout_s)
        return self._client

    def request(self, *, system: str, user: str, schema: Any = None, max_tokens: int | None = None, temperature: float | None = None, effort: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": max_tokens or self.max_tokens,
        }
        temp = self.temperature if temperature is None else temperature
        if temp is not None:
            body["temperature"] = temp
        if schema is not None and self.json_schema:
            from anthropic import transform_schema  # the same strict shape (additionalProperties false) OpenAI's strict mode needs

            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "respuesta", "strict": True, "schema": transform_schema(json_schema_of(schema))}}
        return body

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        import httpx

        try:
            resp = self.client.post("/chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise Retryable(f"timeout: {exc}") from exc
        except httpx.TransportError as exc:
            raise Retryable(f"connection: {exc}") from exc
        if resp.status_code in RETRYABLE_STATUS:
            raise Retryable(f"HTTP {resp.status_code}", status=resp.status_code, retry_after=retry_after_seconds(resp.headers))
        if resp.status_code == 400 and "response_format" in body and "response_format" in resp.text:
            raise _NoResponseFormat(resp.text[:200])
        if resp.status_code >= 400:
            raise LLMError(f"chat endpoint failed: HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise LLMError(f"chat endpoint returned invalid JSON: {resp.text[:200]!r}") from exc

    def complete(self, *, system, user, schema=None, max_tokens=None, temperature=None, effort=None) -> LLMResponse:
        body = self.request(system=system, user=user, schema=schema, max_tokens=max_tokens, temperature=temperature)
        start = time.perf_counter()
        try:
            data, attempts = self.policy.run(lambda: self._call(body))
        except Retryable as exc:
            raise LLMError(f"chat endpoint failed after {self.policy.max_retries + 1} attempts: {exc}") from exc
        except _NoResponseFormat:
            self.json_schema = False
            return self.complete(system=system, user=user, schema=schema, max_tokens=max_tokens, temperature=temperature)
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"chat endpoint returned no choices: {str(data)[:200]}") from exc
        text = message.get("content") or ""
        u = data.get("usage") or {}
        cached = int(((u.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0)
        usage = Usage(input_tokens=int(u.get("prompt_tokens") or 0) - cached, output_tokens=int(u.get("completion_tokens") or 0), cache_read_tokens=cached, calls=1)
        stop = "refusal" if message.get("refusal") else choice.get("finish_reason")
        return LLMResponse(
            text=text,
            model=data.get("model") or self.model,
            stop_reason=stop,
            data=parse_json_object(text) if schema is not None and text else None,
            usage=usage,
            latency_ms=(time.perf_counter() - start) * 1000,
            attempts=attempts,
        )


class _NoResponseFormat(Exception):
    """The server refused `response_format` (no structured outputs): ask again without it."""
