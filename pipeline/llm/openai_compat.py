"""An OpenAI-compatible chat endpoint (Ollama, vLLM, llama.cpp server) over plain HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

from pipeline.errors import LLMError
from pipeline.llm.base import LLMResponse, Usage, register
from pipeline.llm.retry import RETRYABLE_STATUS, Retryable, RetryPolicy, retry_after_seconds


@register("openai")
class OpenAICompatLLM:
    """POST {base_url}/chat/completions with httpx; a forced function call stands in for tool use."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 2048,
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
        self.policy = policy or RetryPolicy(max_retries=max_retries, base_delay_s=retry_base_delay_s)
        self._client = None

    @property
    def client(self):
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            self._client = httpx.Client(base_url=self.base_url, headers=headers, timeout=self.timeout_s)
        return self._client

    def request(self, *, system: str, user: str, tool: dict[str, Any] | None, temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": self.temperature if temperature is None else temperature,
            "max_tokens": max_tokens or self.max_tokens,
        }
        if tool is not None:
            fn = {"name": tool["name"], "description": tool.get("description", ""), "parameters": tool["input_schema"]}
            body["tools"] = [{"type": "function", "function": fn}]
            body["tool_choice"] = {"type": "function", "function": {"name": tool["name"]}}
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
        if resp.status_code >= 400:
            raise LLMError(f"chat endpoint failed: HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise LLMError(f"chat endpoint returned invalid JSON: {resp.text[:200]!r}") from exc

    def complete(self, *, system, user, tool=None, temperature=None, max_tokens=None) -> LLMResponse:
        body = self.request(system=system, user=user, tool=tool, temperature=temperature, max_tokens=max_tokens)
        start = time.perf_counter()
        try:
            data, attempts = self.policy.run(lambda: self._call(body))
        except Retryable as exc:
            raise LLMError(f"chat endpoint failed after {self.policy.max_retries + 1} attempts: {exc}") from exc
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"chat endpoint returned no choices: {str(data)[:200]}") from exc
        tool_input = None
        for call in message.get("tool_calls") or []:
            args = (call.get("function") or {}).get("arguments")
            try:
                parsed = json.loads(args) if isinstance(args, str) else args
            except ValueError:
                parsed = None  # the text fallback parser gets a chance with the raw arguments
                message = {**message, "content": (message.get("content") or "") + str(args)}
            if isinstance(parsed, dict):
                tool_input = parsed
                break
        u = data.get("usage") or {}
        cached = int(((u.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0)
        usage = Usage(input_tokens=int(u.get("prompt_tokens") or 0) - cached, output_tokens=int(u.get("completion_tokens") or 0), cache_read_tokens=cached, calls=1)
        return LLMResponse(
            text=message.get("content") or "",
            model=data.get("model") or self.model,
            stop_reason=choice.get("finish_reason"),
            tool_input=tool_input,
            usage=usage,
            latency_ms=(time.perf_counter() - start) * 1000,
            attempts=attempts,
        )
