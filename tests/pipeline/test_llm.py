"""The Anthropic adapter, driven through the real SDK against a local Messages API server."""

from __future__ import annotations

import os

import pytest

from pipeline.errors import ConfigurationError, LLMError
from pipeline.llm import AnthropicLLM, LLMResponse, RetryPolicy, Usage, llm_from_settings, prices_for
from pipeline.llm.claude import estimate_tokens, min_cache_tokens
from pipeline.llm.retry import retry_after_seconds
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

LONG_SYSTEM = "Instrucciones fijas de la oficina. " * 200  # ~6,800 characters: above 1024 tokens
SONNET = {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}


class Sleeps:
    """Records backoff delays instead of sleeping."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make_llm(server, *, max_retries: int = 3, timeout_s: float = 5.0, sleeps: Sleeps | None = None, model: str = "claude-sonnet-4-5") -> AnthropicLLM:
    policy = RetryPolicy(max_retries=max_retries, base_delay_s=0.01, sleep=sleeps or Sleeps())
    return AnthropicLLM(api_key="test-key", base_url=server.url, model=model, timeout_s=timeout_s, policy=policy)


def test_text_reply_with_usage_and_cost(anthropic_server):
    anthropic_server.enqueue_text("Hola", usage={"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 0})
    resp = make_llm(anthropic_server).complete(system="Sos un asistente.", user="hola")
    assert isinstance(resp, LLMResponse) and resp.text == "Hola" and resp.stop_reason == "end_turn"
    assert resp.usage == Usage(input_tokens=1000, output_tokens=200, cache_write_tokens=3000, cache_read_tokens=0, calls=1)
    # 1000*3 + 200*15 + 3000*3.75 = 17,250 USD per million tokens
    assert resp.usage.cost(SONNET) == pytest.approx(0.01725)
    req = anthropic_server.requests[-1]
    assert req.api_key == "test-key" and req.json["temperature"] == 0.0
    assert req.json["messages"] == [{"role": "user", "content": "hola"}]


def test_tool_use_reply_is_returned_as_tool_input(anthropic_server):
    anthropic_server.enqueue_tool_use("registrar_derivacion", {"steps": [{"id": "s1"}]})
    tool = {"name": "registrar_derivacion", "description": "d", "input_schema": {"type": "object", "properties": {"steps": {"type": "array"}}}}
    resp = make_llm(anthropic_server).complete(system="s", user="u", tool=tool)
    assert resp.tool_input == {"steps": [{"id": "s1"}]} and resp.stop_reason == "tool_use"
    body = anthropic_server.requests[-1].json
    assert body["tool_choice"] == {"type": "tool", "name": "registrar_derivacion"} and body["tools"][0]["name"] == "registrar_derivacion"


def test_429_is_retried_after_the_servers_retry_after(anthropic_server):
    sleeps = Sleeps()
    anthropic_server.enqueue_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"})
    anthropic_server.enqueue_error(429, "rate_limit_error", "slow down", headers={"retry-after": "2"})
    anthropic_server.enqueue_text("ok")
    resp = make_llm(anthropic_server, sleeps=sleeps).complete(system="s", user="u")
    assert resp.text == "ok" and resp.attempts == 3
    assert sleeps.calls == [0.0, 2.0]
    assert [r.status for r in anthropic_server.requests] == [429, 429, 200]


def test_overloaded_and_server_errors_back_off_then_succeed(anthropic_server):
    sleeps = Sleeps()
    anthropic_server.enqueue_error(529)
    anthropic_server.enqueue_error(500)
    anthropic_server.enqueue_text("ok")
    resp = make_llm(anthropic_server, sleeps=sleeps).complete(system="s", user="u")
    assert resp.attempts == 3 and len(sleeps.calls) == 2
    assert sleeps.calls[1] > sleeps.calls[0] * 1.2  # exponential backoff (with jitter)


def test_retries_exhausted_raise_llm_error(anthropic_server):
    for _ in range(3):
        anthropic_server.enqueue_error(529)
    with pytest.raises(LLMError, match="after 2 attempts"):
        make_llm(anthropic_server, max_retries=1).complete(system="s", user="u")
    assert len(anthropic_server.requests) == 2


def test_client_errors_are_not_retried(anthropic_server):
    anthropic_server.enqueue_error(400, "invalid_request_error", "bad request")
    with pytest.raises(LLMError, match="HTTP 400"):
        make_llm(anthropic_server).complete(system="s", user="u")
    assert len(anthropic_server.requests) == 1


def test_timeout_is_retried_then_reported(anthropic_server):
    anthropic_server.enqueue_delay(1.0, "too late")
    anthropic_server.enqueue_text("on time")
    resp = make_llm(anthropic_server, timeout_s=0.3).complete(system="s", user="u")
    assert resp.text == "on time" and resp.attempts == 2
    anthropic_server.enqueue_delay(1.0, "too late")
    with pytest.raises(LLMError, match="timeout"):
        make_llm(anthropic_server, timeout_s=0.3, max_retries=0).complete(system="s", user="u")


def test_truncated_output_is_reported(anthropic_server):
    anthropic_server.enqueue_text("una respuesta larga " * 100)
    resp = make_llm(anthropic_server).complete(system="s", user="u", max_tokens=10)
    assert resp.stop_reason == "max_tokens" and resp.truncated


def test_malformed_body_is_an_llm_error(anthropic_server):
    anthropic_server.enqueue_raw(200, b"{not json")
    with pytest.raises(LLMError):
        make_llm(anthropic_server).complete(system="s", user="u")


def test_fixed_prefix_is_cached_once_and_read_after(anthropic_server):
    llm = make_llm(anthropic_server)
    first = llm.complete(system=LONG_SYSTEM, user="primera pregunta")
    second = llm.complete(system=LONG_SYSTEM, user="otra pregunta distinta")
    assert first.usage.cache_write_tokens > 1000 and first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens and second.usage.cache_write_tokens == 0
    a, b = (r.json for r in anthropic_server.requests)
    assert a["system"] == b["system"] and a["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert second.usage.cost(SONNET) < first.usage.cost(SONNET) / 3


def test_prefix_below_the_models_minimum_gets_no_breakpoint(anthropic_server):
    llm = make_llm(anthropic_server, model="claude-haiku-4-5")
    llm.complete(system=LONG_SYSTEM, user="u")  # ~2,000 tokens < 4,096 for Haiku 4.5
    assert "cache_control" not in anthropic_server.requests[-1].json["system"][0]
    assert llm.cache_warnings and "4096" in llm.cache_warnings[0]
    assert min_cache_tokens("claude-sonnet-4-5-20250929") == 1024 and estimate_tokens("x" * 35) == 10


def test_retry_after_header_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_after_seconds({}) is None


def test_llm_from_settings_builds_the_configured_provider(settings, anthropic_server):
    from pydantic import SecretStr

    assert llm_from_settings(settings.llm) is None  # no key, no endpoint: offline
    settings.llm.provider = "anthropic"
    with pytest.raises(ConfigurationError):
        llm_from_settings(settings.llm)
    settings.llm.api_key, settings.llm.base_url = SecretStr("k"), anthropic_server.url
    llm = llm_from_settings(settings.llm)
    assert isinstance(llm, AnthropicLLM) and llm.model == settings.llm.model
    assert prices_for(settings.llm, "claude-sonnet-4-5-20250929") == settings.llm.prices_per_mtok["claude-sonnet-4-5"]


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set: the real API is not called")
def test_real_api_round_trip():
    llm = AnthropicLLM(api_key=os.environ["ANTHROPIC_API_KEY"], model=os.environ.get("ORIENTA_LLM__MODEL", "claude-haiku-4-5"), max_retries=2)
    resp = llm.complete(system="Respondé con una sola palabra.", user="¿De qué color es el cielo despejado?", max_tokens=20)
    assert resp.text.strip() and resp.usage.input_tokens > 0 and resp.usage.output_tokens > 0
