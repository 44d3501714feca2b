"""The models table as the one source of model rules, exact token counts and long-prompt prices."""

from __future__ import annotations

import logging

import pytest

from pipeline.llm import AnthropicLLM, Usage, prices_for
from pipeline.llm.models import DATA_FIELDS, _table, known_models, model_info
from pipeline.llm import models as models_table
from tests.pipeline.claude_rules import assert_valid
from tests.servers.anthropic_server import rules as stand_in
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

LONG_SYSTEM = "Instrucciones fijas de la oficina. " * 200  # ~6,800 characters: ~1,950 tokens on the stand-in


def make_llm(server, model: str = "claude-sonnet-5-5", **kw) -> AnthropicLLM:
    return AnthropicLLM(api_key="k", base_url=server.url, model=model, max_retries=0, **kw)


# -- one table, with sources ---------------------------------------------------------------
def test_every_value_names_its_page_or_is_a_guess_with_a_reason():
    pages = _table()["pages"]
    assert all(url.startswith("https://") for url in pages.values())
    for name, row in _table()["models"].items():
        given = [f for f in DATA_FIELDS if f in row and f not in ("family", "status")]
        unsourced = [f for f in given if f not in row.get("source", {}) and f not in row.get("guess", {})]
        assert not unsourced, f"{name}: {unsourced} have neither a page nor a guess"
        assert all(key in pages for key in row.get("source", {}).values()), name
        assert all(isinstance(why, str) and len(why) > 20 for why in row.get("guess", {}).values()), name


def test_the_stand_in_serves_the_tables_rules():
    """The stand-in reads the same table: no model orienta knows can be accepted by one side and refused by the other."""
    for name, info in known_models().items():
        rules = stand_in.MODELS[name]
        assert rules.efforts == info.effort and rules.default_effort == info.default_effort, name
        assert rules.min_cache_tokens == info.min_cache_tokens and rules.max_output == info.max_output, name
        assert rules.display_default == info.thinking_display and rules.prefill == info.prefill, name
        assert (rules.forced_tool == "refused") == (info.forced_tool_choice == "refused"), name
        assert (rules.sampling == "default_only") == (not info.sampling), name
        assert rules.thinking_types == frozenset(info.thinking_types), name
    assert set(models_table.retired_models()) == set(stand_in.RETIRED)


def test_haiku_5_5_disagreements_are_settled_against_its_pages():
    haiku = model_info("claude-haiku-5-5")
    assert haiku.effort == ("low", "medium", "high", "xhigh", "max") and haiku.source["effort"].endswith("prompting-claude-haiku-5-5")
    assert haiku.thinking_display == "omitted" and haiku.source["thinking_display"].endswith("whats-new-haiku-5-5")
    assert haiku.forced_tool_choice == "without_thinking" and "forced_tool_choice" in haiku.guess
    assert not haiku.documented("min_cache_tokens") and model_info("claude-haiku-4-5").documented("min_cache_tokens")


# -- prices with long-prompt bands ---------------------------------------------------------
def test_a_150k_token_haiku_5_5_request_is_priced_at_the_long_prompt_band():
    prices = prices_for(None, "claude-haiku-5-5")
    long = Usage(input_tokens=150_000, output_tokens=1_000, calls=1)
    assert long.cost(prices) == pytest.approx((150_000 * 0.50 + 1_000 * 2.50) / 1e6)  # all tokens at the band
    short = Usage(input_tokens=90_000, output_tokens=1_000, calls=1)
    assert short.cost(prices) == pytest.approx((90_000 * 0.10 + 1_000 * 0.50) / 1e6)
    # the threshold counts every prompt token, cached or not
    cached = Usage(input_tokens=1_000, cache_read_tokens=120_000, output_tokens=100, calls=1)
    assert cached.cost(prices) == pytest.approx((1_000 * 0.50 + 120_000 * 0.05 + 100 * 2.50) / 1e6)
    # two ordinary calls summed are not one long prompt
    assert (short + short).cost(prices) == pytest.approx(2 * short.cost(prices))
    assert models_table.prices_for("claude-haiku-5-5", prompt_tokens=150_000)["input"] == 0.50
    assert models_table.prices_for("claude-haiku-5-5", batch=True, prompt_tokens=150_000)["input"] == pytest.approx(0.25)
    assert "long_prompt" not in prices_for(None, "claude-sonnet-5-5")


# -- exact token counts ------------------------------------------------------------------------
def test_count_tokens_is_called_once_per_prompt_hash(anthropic_server):
    llm = make_llm(anthropic_server)
    for question in ("primera", "segunda", "tercera"):
        llm.complete(system=LONG_SYSTEM, user=question)
    counts = [r for r in anthropic_server.requests if r.path == "/v1/messages/count_tokens"]
    assert len(counts) == 2  # the prefix with its system prompt, and the bare placeholder turn it is measured against
    assert len({r.body for r in counts}) == 2
    llm.complete(system=LONG_SYSTEM + " Otra regla.", user="cuarta")
    assert len([r for r in anthropic_server.requests if r.path == "/v1/messages/count_tokens"]) == 3  # only the new prompt
    expected = anthropic_server.count_input_tokens({"system": [{"type": "text", "text": LONG_SYSTEM}], "messages": []})
    assert llm.prefix_tokens(LONG_SYSTEM) == expected and llm.count_fallbacks == 0
    assert_valid(anthropic_server)


def test_a_failed_count_falls_back_to_the_estimate_and_is_logged(anthropic_server, caplog):
    anthropic_server.enqueue_count_error(529, "overloaded_error", "busy")
    llm = make_llm(anthropic_server)
    with caplog.at_level(logging.WARNING, logger="pipeline.llm.claude"):
        resp = llm.complete(system=LONG_SYSTEM, user="hola")
    assert resp.text and llm.count_fallbacks == 1
    assert any("token count failed" in r.getMessage() and "estimate" in r.getMessage() for r in caplog.records)
    llm.complete(system=LONG_SYSTEM, user="de nuevo")  # the failure was not cached: counted exactly now
    assert llm.count_fallbacks == 1


def test_a_documented_minimum_drops_the_breakpoint_a_guessed_one_keeps_it(anthropic_server):
    older = make_llm(anthropic_server, model="claude-haiku-4-5")  # 4096, documented
    older.complete(system=LONG_SYSTEM, user="u")
    assert "cache_control" not in anthropic_server.message_requests[-1].json["system"][0]
    haiku = make_llm(anthropic_server, model="claude-haiku-5-5")  # 4096, a guess: below it the API just does not cache
    haiku.complete(system=LONG_SYSTEM, user="u")
    assert anthropic_server.message_requests[-1].json["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "guessed minimum" in haiku.cache_warnings[0]
    assert_valid(anthropic_server)


def test_a_drafts_cost_which_the_digest_sums_uses_the_band_too(anthropic_server):
    """Generators price each answer with Usage.cost(prices_for(...)); the digest's cost per answer sums those costs."""
    from pipeline.generation.rag import RAGGenerator
    from tests.pipeline.generation_helpers import exam_hits

    anthropic_server.enqueue_text("No tengo información para responder esta consulta en la documentación disponible.",
                                  usage={"input_tokens": 150_000, "output_tokens": 1_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
    llm = make_llm(anthropic_server, model="claude-haiku-5-5")
    answer = RAGGenerator(llm=llm, prices=prices_for(None, "claude-haiku-5-5")).generate("¿?", exam_hits())
    assert answer.cost_usd == pytest.approx((150_000 * 0.50 + 1_000 * 2.50) / 1e6)


# -- lifecycle from the Models API ---------------------------------------------------------------
def test_the_models_api_is_asked_once_and_its_lifecycle_wins(anthropic_server, caplog):
    from datetime import date

    from pipeline.errors import ConfigurationError
    from pipeline.llm.models import ModelRetired, api_lifecycle, check_lifecycle

    llm = make_llm(anthropic_server)
    llm.complete(system="s", user="a")
    llm.complete(system="s", user="b")
    assert [r.path for r in anthropic_server.requests if r.method == "GET"] == ["/v1/models/claude-sonnet-5-5"]
    # a deprecated model: warned with the API's retirement date (the API's clock before that date)
    anthropic_server.clock = lambda: 1_795_600_000.0  # 2026-11-25
    older = make_llm(anthropic_server, model="claude-sonnet-4-5")
    older._lifecycle_checked = False
    with caplog.at_level(logging.WARNING, logger="pipeline.llm.models"):
        older.check_lifecycle()
    assert "2026-11-30" in (older.deprecation or "")
    # the API's clock past the retirement date: it says retired, and orienta refuses the model
    anthropic_server.clock = lambda: 1_796_000_000.0  # 2026-12-01
    with pytest.raises(ModelRetired, match="retired on 2026-11-30"):
        check_lifecycle("claude-sonnet-4-5", api_lifecycle(older.client, "claude-sonnet-4-5"), today=date(2026, 11, 25))
    # an id the API does not know (a typo, a withdrawn preview) is refused before any message is sent
    typo = make_llm(anthropic_server, model="claude-sonet-5-5")
    with pytest.raises(ModelRetired, match="does not know it"):
        typo.complete(system="s", user="u")
    assert all(r.json["model"] != "claude-sonet-5-5" for r in anthropic_server.requests if r.method == "POST")  # not even counted
    assert issubclass(ModelRetired, ConfigurationError)


def test_when_the_models_api_fails_the_tables_dates_stand(anthropic_server, caplog):
    from pipeline.llm.models import api_lifecycle

    anthropic_server.api_keys = {"other"}  # every request now gets 401
    anthropic_server.refusals_expected = True
    client = make_llm(anthropic_server).client
    with caplog.at_level(logging.WARNING, logger="pipeline.llm.models"):
        assert api_lifecycle(client, "claude-sonnet-5-5") is None
    assert any("Models API did not answer" in r.getMessage() for r in caplog.records)
