"""The Anthropic adapter, driven through the real SDK against a local Messages API server."""

from __future__ import annotations

import json
import logging
import os
import warnings
from datetime import date

import pytest
from pydantic import BaseModel

from pipeline.errors import ConfigurationError, LLMError
from pipeline.llm import AnthropicLLM, LLMResponse, Usage, llm_from_settings, prices_for, role_model
from pipeline.llm.claude import estimate_tokens, min_cache_tokens
from pipeline.llm.models import ModelRetired, check_model, model_info
from pipeline.llm.retry import retry_after_seconds
from tests.pipeline.claude_rules import assert_valid
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

LONG_SYSTEM = "Instrucciones fijas de la oficina. " * 200  # ~6,800 characters: above 1024 tokens
CURRENT, OLDER = "claude-sonnet-5-5", "claude-haiku-4-5"


class Reply(BaseModel):
    respuesta: str
    puntaje: int


def make_llm(server, *, max_retries: int = 3, timeout_s: float = 5.0, model: str = CURRENT, **kw) -> AnthropicLLM:
    return AnthropicLLM(api_key="test-key", base_url=server.url, model=model, timeout_s=timeout_s, max_retries=max_retries, **kw)


def test_text_reply_with_usage_and_cost_from_the_models_table(anthropic_server):
    anthropic_server.enqueue_text("Hola", usage={"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 0})
    resp = make_llm(anthropic_server).complete(system="Sos un asistente.", user="hola")
    assert isinstance(resp, LLMResponse) and resp.text == "Hola" and resp.stop_reason == "end_turn" and resp.outcome == "ok"
    assert resp.usage == Usage(input_tokens=1000, output_tokens=200, cache_write_tokens=3000, cache_read_tokens=0, calls=1)
    # Sonnet 5.5: 1000*2 + 200*10 + 3000*2.5 = 11,500 USD per million tokens
    assert resp.usage.cost(prices_for(None, CURRENT)) == pytest.approx(0.0115)
    req = anthropic_server.requests[-1]
    assert req.api_key == "test-key" and req.json["messages"] == [{"role": "user", "content": "hola"}]
    assert not {"temperature", "top_p", "top_k", "tool_choice", "tools", "thinking"} & set(req.json)
    assert_valid(anthropic_server)


def test_structured_output_sends_a_strict_schema_and_parses_the_json(anthropic_server):
    anthropic_server.enqueue_text(json.dumps({"respuesta": "sí", "puntaje": 4}))
    resp = make_llm(anthropic_server, effort="low").complete(system="s", user="u", schema=Reply)
    assert resp.data == {"respuesta": "sí", "puntaje": 4}
    body = anthropic_server.requests[-1].json
    fmt = body["output_config"]["format"]
    assert fmt["type"] == "json_schema" and fmt["schema"]["additionalProperties"] is False
    assert set(fmt["schema"]["required"]) == {"respuesta", "puntaje"}
    assert body["output_config"]["effort"] == "low"
    assert "tool_choice" not in body and "extra_body" not in body
    assert_valid(anthropic_server)


def test_thinking_blocks_are_skipped_for_the_text_but_counted(anthropic_server):
    anthropic_server.enqueue_message(
        [{"type": "thinking", "thinking": "pienso " * 50, "signature": "sig"}, {"type": "text", "text": "Respuesta."}]
    )
    resp = make_llm(anthropic_server).complete(system="s", user="u")
    assert resp.text == "Respuesta." and resp.thinking_blocks == 1
    assert resp.usage.output_tokens > 50  # the thinking tokens are billed as output


@pytest.mark.parametrize("stop,outcome", [("refusal", "refusal"), ("max_tokens", "truncated"), ("pause_turn", "paused"), ("model_context_window_exceeded", "truncated"), ("end_turn", "ok")])
def test_each_stop_reason_has_a_defined_outcome(anthropic_server, stop, outcome):
    anthropic_server.enqueue_text("", stop_reason=stop) if stop == "refusal" else anthropic_server.enqueue_text("parcial", stop_reason=stop)
    assert make_llm(anthropic_server).complete(system="s", user="u").outcome == outcome


def test_sampling_parameters_only_where_the_model_accepts_them(anthropic_server):
    with pytest.raises(ConfigurationError, match="sampling"):
        make_llm(anthropic_server, temperature=0.2)
    with pytest.raises(ConfigurationError, match="sampling"):
        make_llm(anthropic_server).complete(system="s", user="u", temperature=0.2)
    assert anthropic_server.requests == []  # never sent
    older = make_llm(anthropic_server, model=OLDER, temperature=0.2, effort="medium")
    older.complete(system="s", user="u")
    body = anthropic_server.requests[-1].json
    assert body["temperature"] == 0.2 and "output_config" not in body  # Haiku 4.5 takes temperature, has no effort
    assert_valid(anthropic_server)


def test_unknown_effort_level_is_refused_before_sending(anthropic_server):
    with pytest.raises(ConfigurationError, match="effort"):
        make_llm(anthropic_server).complete(system="s", user="u", effort="extreme")
    assert anthropic_server.requests == []


def test_sdk_retries_429_honouring_retry_after(anthropic_server):
    anthropic_server.enqueue_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"})
    anthropic_server.enqueue_error(529)
    anthropic_server.enqueue_text("ok")
    resp = make_llm(anthropic_server).complete(system="s", user="u")
    assert resp.text == "ok" and resp.attempts == 3
    assert [r.status for r in anthropic_server.message_requests] == [429, 529, 200]


def test_retries_exhausted_raise_llm_error(anthropic_server):
    for _ in range(3):
        anthropic_server.enqueue_error(529, headers={"retry-after": "0"})
    with pytest.raises(LLMError, match="HTTP 529"):
        make_llm(anthropic_server, max_retries=1).complete(system="s", user="u")
    assert len(anthropic_server.message_requests) == 2


def test_client_errors_are_not_retried(anthropic_server):
    anthropic_server.enqueue_error(400, "invalid_request_error", "bad request")
    with pytest.raises(LLMError, match="HTTP 400"):
        make_llm(anthropic_server).complete(system="s", user="u")
    assert len(anthropic_server.message_requests) == 1


def test_timeout_is_retried_then_reported(anthropic_server):
    anthropic_server.enqueue_delay(1.0, "too late")
    anthropic_server.enqueue_text("on time")
    resp = make_llm(anthropic_server, timeout_s=0.3).complete(system="s", user="u")
    assert resp.text == "on time" and resp.attempts == 2
    anthropic_server.enqueue_delay(1.0, "too late")
    with pytest.raises(LLMError, match="timeout"):
        make_llm(anthropic_server, timeout_s=0.3, max_retries=0).complete(system="s", user="u")


def test_malformed_body_is_an_llm_error(anthropic_server):
    anthropic_server.enqueue_raw(200, b"{not json")
    with pytest.raises(LLMError):
        make_llm(anthropic_server, max_retries=0).complete(system="s", user="u")


def test_fixed_prefix_is_cached_once_and_read_after(anthropic_server):
    llm = make_llm(anthropic_server)
    first = llm.complete(system=LONG_SYSTEM, user="primera pregunta", schema=Reply)
    second = llm.complete(system=LONG_SYSTEM, user="otra pregunta distinta", schema=Reply)
    assert first.usage.cache_write_tokens > 1000 and first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens and second.usage.cache_write_tokens == 0
    a, b = (r.json for r in anthropic_server.message_requests)
    assert a["system"] == b["system"] and a["output_config"] == b["output_config"] and a["system"][0]["cache_control"] == {"type": "ephemeral"}
    prices = prices_for(None, CURRENT)
    assert second.usage.cost(prices) < first.usage.cost(prices) / 3


def test_prefix_below_the_models_minimum_gets_no_breakpoint(anthropic_server):
    llm = make_llm(anthropic_server, model=OLDER)
    llm.complete(system=LONG_SYSTEM, user="u")  # ~2,000 tokens < 4,096 for Haiku 4.5
    assert "cache_control" not in anthropic_server.requests[-1].json["system"][0]
    assert llm.cache_warnings and "4096" in llm.cache_warnings[0]
    assert min_cache_tokens("claude-sonnet-4-5-20250929") == 1024 and min_cache_tokens(CURRENT) == 512 and estimate_tokens("x" * 35) == 10


def test_retry_after_header_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_after_seconds({}) is None


def test_llm_from_settings_builds_each_role(settings, anthropic_server):
    from pydantic import SecretStr

    assert llm_from_settings(settings.llm) is None  # no key, no endpoint: offline
    settings.llm.provider = "anthropic"
    with pytest.raises(ConfigurationError):
        llm_from_settings(settings.llm)
    settings.llm.api_key, settings.llm.base_url = SecretStr("k"), anthropic_server.url
    draft, judge = llm_from_settings(settings.llm), llm_from_settings(settings.llm, role="judge")
    assert isinstance(draft, AnthropicLLM) and draft.model == "claude-sonnet-5-5" and draft.effort == "medium"
    assert judge.model == "claude-haiku-5-5" and judge.effort == "low" and role_model(settings.llm, "synthetic") == "claude-haiku-5-5"
    settings.llm.judge_model = "claude-sonnet-5-5"
    assert llm_from_settings(settings.llm, role="judge").model == "claude-sonnet-5-5"
    settings.llm.provider, settings.llm.judge_model, settings.llm.model = "openai", None, "qwen2.5:7b"
    assert role_model(settings.llm, "judge") == "qwen2.5:7b"  # other providers: the drafting model


def test_prices_come_from_the_models_table_with_overrides(settings):
    table = model_info("claude-sonnet-4-5").prices
    assert prices_for(settings.llm, "claude-sonnet-4-5-20250929") == {"input": table["input"], "output": table["output"], "cache_write": table["cache_write_5m"], "cache_read": table["cache_read"]}
    assert prices_for(settings.llm, CURRENT, batch=True)["input"] == pytest.approx(prices_for(settings.llm, CURRENT)["input"] / 2)
    settings.llm.prices_per_mtok = {"claude-sonnet-5-5": {"input": 1.0, "output": 2.0}}
    assert prices_for(settings.llm, CURRENT) == {"input": 1.0, "output": 2.0}
    from pipeline.settings import LLMSettings

    assert LLMSettings().prices_per_mtok == {}  # overrides only: the prices live in models.toml


def test_every_known_model_has_complete_rows_with_sources():
    from pipeline.llm.models import known_models

    for name, info in known_models().items():
        assert info.source, name
        assert set(info.prices) >= {"input", "output", "cache_write_5m", "cache_write_1h", "cache_read", "batch_input", "batch_output"}, name
        assert info.thinking in ("adaptive", "extended", "none") and info.context_window > 0 and info.max_output > 0 and info.min_cache_tokens > 0
        if info.default_effort:
            assert info.default_effort in info.effort


# -- deprecation -------------------------------------------------------------------------
def test_default_model_is_current_and_not_deprecated():
    from pipeline.settings import LLMSettings

    default = LLMSettings().model
    assert default == "claude-sonnet-5-5"
    assert model_info(default).status == "active" and check_model(default) is None


def test_default_model_call_emits_no_deprecation_warning(anthropic_server):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_llm(anthropic_server, model=AnthropicLLM.__init__.__kwdefaults__["model"]).complete(system="s", user="u")
    assert not [w for w in caught if issubclass(w.category, DeprecationWarning)], [str(w.message) for w in caught]


def test_deprecated_model_warns_with_its_end_of_life_and_past_it_is_refused(caplog):
    with caplog.at_level(logging.WARNING):
        msg = check_model("claude-sonnet-4-5-20250929", today=date(2026, 11, 23))
    assert "2026-11-30" in msg and "claude-sonnet-5-5" in msg
    with pytest.raises(ModelRetired, match="claude-sonnet-5-5"):
        check_model("claude-sonnet-4-5", today=date(2026, 12, 1))
    with pytest.raises(ModelRetired, match="2026-06-15"):
        check_model("claude-sonnet-4-20250514", today=date(2026, 11, 23))  # already retired: refused at start


def test_unknown_model_gets_the_strictest_rules_and_one_warning(caplog, anthropic_server):
    anthropic_server.unknown_models = "strictest"  # a model released after our table: the API knows it, we do not
    with caplog.at_level(logging.WARNING, logger="pipeline.llm.models"):
        llm = make_llm(anthropic_server, model="claude-nuevo-9", effort="high")
        model_info("claude-nuevo-9")
    warned = [r for r in caplog.records if "claude-nuevo-9" in r.getMessage()]
    assert len(warned) == 1 and "\n" not in warned[0].getMessage()
    assert not llm.info.sampling and llm.info.forced_tool_choice == "refused" and not llm.info.prefill
    with pytest.raises(ConfigurationError):
        llm.complete(system="s", user="u", temperature=0.5)
    llm.complete(system="s", user="u")
    assert "output_config" not in anthropic_server.requests[-1].json  # no effort sent to a model we do not know


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set: the real API is not called")
def test_real_api_round_trip():
    llm = AnthropicLLM(api_key=os.environ["ANTHROPIC_API_KEY"], model=os.environ.get("ORIENTA_LLM__MODEL", "claude-haiku-5-5"), max_retries=2)
    resp = llm.complete(system="Respondé con una sola palabra.", user="¿De qué color es el cielo despejado?", max_tokens=20)
    assert resp.text.strip() and resp.usage.input_tokens > 0 and resp.usage.output_tokens > 0


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set: the real API is not called")
def test_real_api_cites_the_search_results_and_counts_tokens():
    """RAG against the real API: the passages go as search results, the references are the cited documents."""
    from pipeline.generation.rag import RAGGenerator
    from tests.pipeline.generation_helpers import exam_hits

    llm = AnthropicLLM(api_key=os.environ["ANTHROPIC_API_KEY"], model=os.environ.get("ORIENTA_LLM__MODEL", "claude-haiku-5-5"), max_retries=2)
    answer = RAGGenerator(llm=llm).generate("¿Hasta cuándo me puedo inscribir a los exámenes de febrero?", exam_hits())
    cited = {r.doc_id for r in answer.references}
    assert "examenes" in cited and cited <= {"examenes", "becas"}
    assert all(c["quote"] and c["passage"] in (1, 2) for r in answer.references for c in r.claims)
    assert llm.count_fallbacks == 0 and llm.prefix_tokens("Respondé con una sola palabra.") > 0  # count_tokens answered
