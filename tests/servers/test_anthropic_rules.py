"""The stand-in refuses what the real API refuses, per model, driven by the real anthropic SDK."""

from __future__ import annotations

import datetime as dt
import json

import anthropic
import pytest

import time

from tests.servers.anthropic_server import FakeAnthropicServer, json_reply, refusal_reply, pause_turn_reply, context_window_exceeded_reply
from tests.servers.api_fixtures import serve_anthropic

# The last day claude-sonnet-4-5 (OLDER below) was served: it retires 2026-11-30 (rules.py [DEPR]). These tests state
# that model's rules as the API enforced them while it was served; after its retirement the stand-in refuses it, as
# test_a_deprecated_model_is_refused_after_its_retirement_date checks.
OLDER_SERVED = dt.datetime(2026, 11, 29, 12, tzinfo=dt.timezone.utc).timestamp()


@pytest.fixture
def anthropic_server():
    """A fresh FakeAnthropicServer whose clock runs from the last day OLDER was served (tests.servers.api_fixtures'
    fixture otherwise: a refusal the test does not expect fails it)."""
    start = time.time()
    yield from serve_anthropic(FakeAnthropicServer(clock=lambda: OLDER_SERVED + (time.time() - start)))


@pytest.fixture(autouse=True)
def _refusals_are_the_subject(request):
    """These tests send refused requests on purpose: the fixture's guard against them is off."""
    if "anthropic_server" in request.fixturenames:
        request.getfixturevalue("anthropic_server").refusals_expected = True

CURRENT = "claude-sonnet-5-5"
OLDER = "claude-sonnet-4-5"
TOOL = {"name": "registrar", "description": "r", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
SCHEMA = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "rule": {"type": "string", "enum": ["Extract", "Concat", "NoInfo"]},
                    "premises": {"type": "array", "items": {"type": "string"}},
                    "is_final": {"type": "boolean"},
                },
                "required": ["id", "rule", "premises", "is_final"],
                "additionalProperties": False,
            },
        },
        "score": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
    "required": ["steps", "score"],
    "additionalProperties": False,
}


def _client(server, **kw):
    kw.setdefault("max_retries", 0)
    return anthropic.Anthropic(base_url=server.url, api_key="test", **kw)


def _ask(server, model, **kw):
    kw.setdefault("max_tokens", 4096)
    kw.setdefault("messages", [{"role": "user", "content": "¿Cuándo cierra la inscripción?"}])
    return _client(server).messages.create(model=model, **kw)


def _refused(server, model, message_part, **kw):
    with pytest.raises(anthropic.BadRequestError) as info:
        _ask(server, model, **kw)
    assert info.value.status_code == 400
    assert info.value.body["error"]["type"] == "invalid_request_error"
    assert message_part in info.value.body["error"]["message"]
    return info.value.body["error"]["message"]


# (model, refused kwargs, message part, compliant kwargs)
CASES = [
    # [S55] the five settings that return 400 on Sonnet 5.5
    ("claude-sonnet-5-5", {"extra_body": {"temperature": 0.0}}, "`temperature` is deprecated", {}),
    ("claude-sonnet-5-5", {"extra_body": {"top_p": 0.9}}, "`top_p` is deprecated", {}),
    ("claude-sonnet-5-5", {"extra_body": {"top_k": 5}}, "`top_k` is deprecated", {"extra_body": {"temperature": 1}}),
    ("claude-sonnet-5-5", {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}}, "forced tool use", {"tools": [TOOL], "tool_choice": {"type": "auto"}}),
    ("claude-sonnet-5-5", {"tools": [TOOL], "tool_choice": {"type": "any"}}, "forced tool use", {"tools": [TOOL]}),
    ("claude-sonnet-5-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}}, '"thinking.type.enabled" is not supported', {"thinking": {"type": "adaptive"}}),
    ("claude-sonnet-5-5", {"thinking": {"type": "disabled"}}, '"thinking.type.disabled" is not supported', {"thinking": {"type": "between_tools"}}),
    # [O55] Opus 5.5: thinking cannot be disabled, forced tools refused, sampling refused
    ("claude-opus-5-5", {"thinking": {"type": "disabled"}}, '"thinking.type.disabled" is not supported', {"output_config": {"effort": "low"}}),
    ("claude-opus-5-5", {"thinking": {"type": "between_tools"}}, '"thinking.type.between_tools" is not supported', {"thinking": {"type": "adaptive"}}),
    ("claude-opus-5-5", {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}}, "forced tool use", {"tools": [TOOL]}),
    ("claude-opus-5-5", {"extra_body": {"temperature": 0.2}}, "`temperature` is deprecated", {}),
    # [F51] Fable 5.1 shares the Opus 5.5 refusals
    ("claude-fable-5-1", {"thinking": {"type": "disabled"}}, '"thinking.type.disabled" is not supported', {}),
    ("claude-fable-5-1", {"tools": [TOOL], "tool_choice": {"type": "any"}}, "forced tool use", {"tools": [TOOL], "tool_choice": {"type": "none"}}),
    # [H55] Haiku 5.5: sampling refused; thinking on by default so a forced tool needs thinking disabled,
    # and disabled only up to effort high
    ("claude-haiku-5-5", {"extra_body": {"temperature": 0.0}}, "`temperature` is deprecated", {}),
    ("claude-haiku-5-5", {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}}, "Thinking may not be enabled when tool_choice forces tool use",
     {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}, "thinking": {"type": "disabled"}}),
    ("claude-haiku-5-5", {"thinking": {"type": "disabled"}, "output_config": {"effort": "max"}}, "only supported at effort",
     {"thinking": {"type": "disabled"}, "output_config": {"effort": "high"}}),
    ("claude-haiku-5-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}}, '"thinking.type.enabled" is not supported', {"thinking": {"type": "adaptive"}}),
    # [EFFORT] levels a model does not take
    ("claude-sonnet-4-6", {"output_config": {"effort": "xhigh"}}, '"xhigh" is not supported', {"output_config": {"effort": "max"}}),
    ("claude-opus-4-5", {"output_config": {"effort": "max"}}, '"max" is not supported', {"output_config": {"effort": "high"}}),
    ("claude-sonnet-4-5", {"output_config": {"effort": "low"}}, "does not support the effort parameter", {}),
    # [THINK] 4.7+ refuses budgets; 4.5 has no adaptive thinking; budgets need >= 1024 and < max_tokens
    ("claude-opus-4-7", {"thinking": {"type": "enabled", "budget_tokens": 2048}}, '"thinking.type.enabled" is not supported', {"thinking": {"type": "adaptive"}}),
    ("claude-sonnet-4-5", {"thinking": {"type": "adaptive"}}, '"thinking.type.adaptive" is not supported', {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
    ("claude-sonnet-4-5", {"thinking": {"type": "enabled", "budget_tokens": 500}}, "greater than or equal to 1024", {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
    ("claude-sonnet-4-5", {"thinking": {"type": "enabled", "budget_tokens": 8000}}, "must be greater than `thinking.budget_tokens`", {"thinking": {"type": "enabled", "budget_tokens": 2000}}),
    # [SAMP] older models: temperature OR top_p; with thinking only temperature 1; forced tools only without thinking
    ("claude-sonnet-4-5", {"extra_body": {"temperature": 0.0, "top_p": 0.9}}, "cannot both be specified", {"extra_body": {"temperature": 0.0}}),
    ("claude-haiku-4-5", {"extra_body": {"temperature": 0.0}, "thinking": {"type": "enabled", "budget_tokens": 1024}}, "may only be set to 1 when thinking is enabled",
     {"extra_body": {"temperature": 1}, "thinking": {"type": "enabled", "budget_tokens": 1024}}),
    ("claude-sonnet-4-5", {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}, "thinking": {"type": "enabled", "budget_tokens": 1024}},
     "Thinking may not be enabled when tool_choice forces tool use", {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "registrar"}}),
    # model output limits (model overview pages)
    ("claude-sonnet-4-5", {"max_tokens": 64_001, "timeout": 30}, "maximum allowed number of output tokens", {"max_tokens": 64_000, "timeout": 30}),
]


@pytest.mark.parametrize("model,refused,part,compliant", CASES, ids=[f"{c[0]}-{c[2][:30]}" for c in CASES])
def test_each_rule_refuses_and_the_compliant_form_is_accepted(anthropic_server, model, refused, part, compliant):
    _refused(anthropic_server, model, part, **refused)
    msg = _ask(anthropic_server, model, **compliant)
    assert msg.type == "message" and any(b.type == "text" for b in msg.content)


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-fable-5-1", "claude-opus-4-6", "claude-sonnet-4-6"])
def test_assistant_prefill_is_refused_on_current_models(anthropic_server, model):
    prefill = [{"role": "user", "content": "Devolvé JSON"}, {"role": "assistant", "content": "{"}]
    _refused(anthropic_server, model, "Prefilling assistant messages is not supported for this model.", messages=prefill)
    assert _ask(anthropic_server, model, messages=prefill[:1]).stop_reason == "end_turn"


def test_prefill_still_works_on_an_older_model(anthropic_server):
    msg = _ask(anthropic_server, OLDER, messages=[{"role": "user", "content": "Devolvé JSON"}, {"role": "assistant", "content": "{"}])
    assert msg.type == "message"


def test_older_models_keep_temperature_and_forced_tools(anthropic_server):
    anthropic_server.enqueue_tool_use("registrar", {"x": "1"})
    msg = _ask(anthropic_server, OLDER, tools=[TOOL], tool_choice={"type": "tool", "name": "registrar"}, extra_body={"temperature": 0.0})
    assert msg.content[0].type == "tool_use" and not any(b.type == "thinking" for b in msg.content)


@pytest.mark.parametrize("model", ["claude-foo-1", "claude-3-5-sonnet-20241022", "claude-sonnet-4-20250514", "claude-mythos-preview"])
def test_unknown_and_retired_models_are_not_found(anthropic_server, model):
    with pytest.raises(anthropic.NotFoundError) as info:
        _ask(anthropic_server, model)
    assert info.value.body["error"] == {"type": "not_found_error", "message": f"model: {model}"}


def test_a_deprecated_model_is_refused_after_its_retirement_date():
    after = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc).timestamp()
    with FakeAnthropicServer(clock=lambda: after) as server:
        with pytest.raises(anthropic.NotFoundError):
            _ask(server, "claude-sonnet-4-5")
        assert _ask(server, "claude-sonnet-5-5").type == "message"


# -- responses --------------------------------------------------------------


def test_adaptive_models_return_a_thinking_block_first_and_bill_it(anthropic_server):
    anthropic_server.enqueue_text("Hasta el viernes.")
    anthropic_server.enqueue_text("Hasta el viernes.")
    current = _ask(anthropic_server, CURRENT)
    older = _ask(anthropic_server, OLDER)
    assert [b.type for b in current.content] == ["thinking", "text"]
    assert current.content[0].signature and current.content[0].thinking == ""  # Sonnet 5.5 display defaults to omitted
    assert [b.type for b in older.content] == ["text"]
    assert current.usage.output_tokens > older.usage.output_tokens
    summarized = _ask(anthropic_server, "claude-opus-5-5", thinking={"type": "adaptive", "display": "summarized"})
    assert summarized.content[0].type == "thinking" and summarized.content[0].thinking
    between = _ask(anthropic_server, CURRENT, thinking={"type": "between_tools"})
    assert [b.type for b in between.content] == ["text"]
    haiku = _ask(anthropic_server, "claude-haiku-5-5")  # what's-new-haiku-5-5: "Thinking text is omitted by default"
    assert haiku.content[0].type == "thinking" and haiku.content[0].thinking == ""
    assert _ask(anthropic_server, "claude-haiku-5-5", output_config={"effort": "xhigh"}).content  # Haiku 5.5 takes all five levels


def test_higher_effort_thinks_longer(anthropic_server):
    low = _ask(anthropic_server, "claude-opus-5-5", output_config={"effort": "low"}).usage.output_tokens
    high = _ask(anthropic_server, "claude-opus-5-5", output_config={"effort": "max"}).usage.output_tokens
    assert high > low


@pytest.mark.parametrize("stop,builder", [("refusal", refusal_reply), ("pause_turn", pause_turn_reply),
                                          ("model_context_window_exceeded", context_window_exceeded_reply)])
def test_stop_reasons_can_be_scripted(anthropic_server, stop, builder):
    anthropic_server.enqueue(builder())
    assert _ask(anthropic_server, CURRENT).stop_reason == stop


def test_max_tokens_counts_thinking_and_truncates(anthropic_server):
    anthropic_server.enqueue_text("palabra " * 200)
    msg = _ask(anthropic_server, CURRENT, max_tokens=40)
    assert msg.stop_reason == "max_tokens" and msg.usage.output_tokens <= 40


# -- structured outputs ---------------------------------------------------------


def test_output_config_format_returns_json_that_fits_the_schema(anthropic_server):
    import jsonschema

    for model in (CURRENT, OLDER):
        msg = _ask(anthropic_server, model, output_config={"format": {"type": "json_schema", "schema": SCHEMA}})
        text = next(b.text for b in msg.content if b.type == "text")
        value = json.loads(text)
        jsonschema.validate(value, SCHEMA)
        assert len(value["steps"]) == 1 and value["steps"][0]["rule"] == "Extract"


def test_sdk_parse_helper_round_trips_a_pydantic_model(anthropic_server):
    from pydantic import BaseModel, Field

    class Verdict(BaseModel):
        justificacion: str
        puntaje: int = Field(ge=1, le=5)  # the SDK moves ge/le into the description

    parsed = _client(anthropic_server).messages.parse(model=CURRENT, max_tokens=512, output_format=Verdict,
                                                      messages=[{"role": "user", "content": "Calificá"}])
    assert isinstance(parsed.parsed_output, Verdict)


def test_scripted_json_is_validated_against_the_schema(anthropic_server):
    fmt = {"format": {"type": "json_schema", "schema": SCHEMA}}
    good = {"steps": [{"id": "s1", "rule": "NoInfo", "premises": [], "is_final": True}], "score": None}
    anthropic_server.enqueue(json_reply(good))
    text = next(b.text for b in _ask(anthropic_server, CURRENT, output_config=fmt).content if b.type == "text")
    assert json.loads(text) == good
    anthropic_server.enqueue(json_reply({"steps": [{"id": "s1", "rule": "Guess"}]}))
    with pytest.raises(anthropic.InternalServerError) as info:
        _ask(anthropic_server, CURRENT, output_config=fmt)
    assert "stand-in: scripted reply does not fit" in info.value.body["error"]["message"]
    assert anthropic_server.script_errors


@pytest.mark.parametrize("change,part", [
    (lambda s: s.pop("additionalProperties"), "'additionalProperties' must be explicitly set to false"),
    (lambda s: s["properties"]["score"]["anyOf"][0].update(minimum=1), "'minimum' is not supported"),
    (lambda s: s["properties"]["steps"].update(minItems=2), "minItems: only 0 and 1"),
    (lambda s: s["properties"]["steps"]["items"]["properties"]["id"].update(maxLength=5), "'maxLength' is not supported"),
    (lambda s: s["properties"]["steps"]["items"]["properties"]["id"].update(format="slug"), "format 'slug' is not supported"),
    (lambda s: s.update({"$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "additionalProperties": False}},
                         "properties": {**s["properties"], "tree": {"$ref": "#/$defs/N"}}}), "recursive schemas are not supported"),
])
def test_schemas_the_api_rejects_are_refused(anthropic_server, change, part):
    schema = json.loads(json.dumps(SCHEMA))
    change(schema)
    _refused(anthropic_server, CURRENT, part, output_config={"format": {"type": "json_schema", "schema": schema}})
    _ask(anthropic_server, CURRENT, output_config={"format": {"type": "json_schema", "schema": SCHEMA}})


# -- count_tokens -----------------------------------------------------------------


def test_count_tokens_applies_the_same_rules(anthropic_server):
    client = _client(anthropic_server)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.count_tokens(model=CURRENT, messages=[{"role": "user", "content": "x"}], thinking={"type": "disabled"})
    with pytest.raises(anthropic.NotFoundError):
        client.messages.count_tokens(model="claude-foo", messages=[{"role": "user", "content": "x"}])
    ok = client.messages.count_tokens(model=CURRENT, messages=[{"role": "user", "content": "x" * 400}])
    assert ok.input_tokens >= 100


@pytest.mark.parametrize("model,minimum", [("claude-haiku-4-5", 4096), ("claude-sonnet-4-5", 1024), ("claude-sonnet-5-5", 512), ("claude-haiku-5-5", 4096), ("claude-opus-5-5", 512)])
def test_a_prefix_below_the_models_minimum_is_silently_not_cached(anthropic_server, model, minimum):
    def cached(tokens):
        system = [{"type": "text", "text": "x" * (int(3.5 * tokens) - len("system:")), "cache_control": {"type": "ephemeral"}}]
        anthropic_server.clear_cache()
        return _ask(anthropic_server, model, system=system).usage.cache_creation_input_tokens

    assert cached(minimum - 8) == 0
    assert cached(minimum) == minimum


def test_an_unlisted_model_can_be_served_with_the_strictest_rules():
    with FakeAnthropicServer(unknown_models="strictest") as server:
        server.refusals_expected = True
        _refused(server, "claude-nuevo-9", "`temperature` is deprecated", extra_body={"temperature": 0.0})
        _refused(server, "claude-nuevo-9", "forced tool use", tools=[TOOL], tool_choice={"type": "any"})
        _refused(server, "claude-nuevo-9", "Prefilling", messages=[{"role": "user", "content": "x"}, {"role": "assistant", "content": "{"}])
        _refused(server, "claude-nuevo-9", '"thinking.type.disabled"', thinking={"type": "disabled"})
        assert _ask(server, "claude-nuevo-9").content[0].type == "thinking"
        with pytest.raises(anthropic.NotFoundError):
            _ask(server, "claude-3-5-sonnet-20241022")  # retired stays retired
