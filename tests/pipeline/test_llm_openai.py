"""The OpenAI-compatible provider over plain HTTP, against a local chat-completions server."""

from __future__ import annotations

import pytest

from pipeline.errors import LLMError
from pydantic import BaseModel

from pipeline.llm import LLMS, OpenAICompatLLM, RetryPolicy, llm_from_settings
from tests.servers.openai_server import FakeOpenAIServer, openai_server  # noqa: F401  (fixture)


class Steps(BaseModel):
    steps: list[dict[str, str]]


def make(server, **kw) -> OpenAICompatLLM:
    sleeps: list[float] = []
    llm = OpenAICompatLLM(base_url=server.url, model="qwen2.5:7b", api_key="sk-local", timeout_s=kw.pop("timeout_s", 5.0), policy=RetryPolicy(max_retries=kw.pop("max_retries", 3), base_delay_s=0.01, sleep=sleeps.append))
    llm.sleeps = sleeps  # type: ignore[attr-defined]
    return llm


def test_text_completion_and_usage(openai_server):
    openai_server.enqueue_text("Hola, te respondo.", cached_tokens=4)
    resp = make(openai_server).complete(system="Sos un asistente.", user="¿hola?")
    assert resp.text == "Hola, te respondo." and resp.model == "qwen2.5:7b" and resp.stop_reason == "stop"
    req = openai_server.requests[-1]
    assert req["messages"] == [{"role": "system", "content": "Sos un asistente."}, {"role": "user", "content": "¿hola?"}]
    assert openai_server.headers[-1]["authorization"] == "Bearer sk-local"
    assert resp.usage.cache_read_tokens == 4 and resp.usage.input_tokens + 4 == (len("Sos un asistente.") // 4 + len("¿hola?") // 4)


def test_schema_goes_as_json_schema_response_format(openai_server):
    openai_server.enqueue_text('{"steps": [{"id": "s1"}]}')
    resp = make(openai_server).complete(system="s", user="u", schema=Steps)
    assert resp.data == {"steps": [{"id": "s1"}]}
    req = openai_server.requests[-1]
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True and fmt["json_schema"]["schema"]["additionalProperties"] is False
    assert "tools" not in req and "tool_choice" not in req


def test_server_without_structured_outputs_falls_back_to_the_text_parser():
    server = FakeOpenAIServer(api_key="sk-local", json_schema=False)
    try:
        server.enqueue_text('Acá va:\n```json\n{"steps": [{"id": "s1"}]}\n```')
        llm = make(server)
        resp = llm.complete(system="s", user="u", schema=Steps)
        assert resp.data == {"steps": [{"id": "s1"}]} and llm.json_schema is False
        assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
    finally:
        server.stop()


def test_unparseable_text_leaves_data_empty(openai_server):
    openai_server.enqueue_text('{"steps": [')
    resp = make(openai_server).complete(system="s", user="u", schema=Steps)
    assert resp.data is None and '{"steps": [' in resp.text


def test_429_and_503_are_retried(openai_server):
    openai_server.enqueue_error(429, headers={"retry-after": "1"})
    openai_server.enqueue_error(503)
    openai_server.enqueue_text("ok")
    llm = make(openai_server)
    resp = llm.complete(system="s", user="u")
    assert resp.text == "ok" and resp.attempts == 3 and llm.sleeps[0] == 1.0  # type: ignore[attr-defined]


def test_errors_are_typed(openai_server):
    openai_server.enqueue_error(400, "bad")
    with pytest.raises(LLMError, match="HTTP 400"):
        make(openai_server).complete(system="s", user="u")
    openai_server.enqueue_raw(200, b"<html>")
    with pytest.raises(LLMError, match="invalid JSON"):
        make(openai_server).complete(system="s", user="u")
    openai_server.enqueue_delay(1.0)
    with pytest.raises(LLMError, match="timeout"):
        make(openai_server, timeout_s=0.2, max_retries=0).complete(system="s", user="u")


def test_settings_select_the_local_endpoint(settings, openai_server):
    from pydantic import SecretStr

    settings.llm.provider = "openai"
    settings.llm.openai_api_key = SecretStr("sk-local")
    settings.llm.openai_base_url = openai_server.url
    settings.llm.model = "llama3.1"
    llm = llm_from_settings(settings.llm)
    assert isinstance(llm, OpenAICompatLLM) and "openai" in LLMS
    assert llm.complete(system="s", user="ping").text == "echo: ping"
