"""The derivation method end to end against a local Messages API server (real SDK)."""

from __future__ import annotations

import pytest

from pipeline.errors import DerivationError
import json

from pipeline.generation.derivation import DerivationGenerator
from pipeline.generation.rag import RAGGenerator
from pipeline.llm import AnthropicLLM
from tests.pipeline.claude_rules import assert_valid
from tests.pipeline.generation_helpers import EXAMENES, derivation_input, exam_hits
from tests.servers.anthropic_server import cited_reply
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

PRICES = {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}
QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"


@pytest.fixture(params=["claude-sonnet-5-5", "claude-haiku-4-5"])
def llm(request, anthropic_server):
    """A current model and an older one; every request either sends must be one the real API accepts."""
    yield AnthropicLLM(api_key="k", base_url=anthropic_server.url, model=request.param, effort="medium", max_retries=0)
    assert_valid(anthropic_server)


def structured(server, data) -> None:
    """The structured-output reply: the JSON text of `data`."""
    server.enqueue_text(json.dumps(data, ensure_ascii=False))


def generator(llm, **kw):
    return DerivationGenerator(llm=llm, prices=PRICES, fallback=RAGGenerator(llm=llm, prices=PRICES), **kw)


def test_a_valid_derivation_becomes_a_grounded_answer(anthropic_server, llm):
    structured(anthropic_server, derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and not answer.fallback and not answer.no_info
    assert "22 de enero de 2027" in answer.text and EXAMENES in answer.text
    assert [r.doc_id for r in answer.references] == ["examenes"]  # the unused becas chunk is not a reference
    leaf = derivation_input()["steps"][0]["conclusion"]  # the Extract leaf cites its passage, as RAG's citations do
    assert answer.references[0].claims == [{"claim": leaf, "passage": 1, "quote": exam_hits()[0].chunk.text}]
    assert [s.rule for s in answer.derivation] == ["Extract", "Refine"] and answer.flags == []
    assert answer.prompt_hash and answer.usage.calls == 1 and answer.cost_usd == pytest.approx(answer.usage.cost(PRICES))
    body = anthropic_server.requests[-1].json
    assert "tool_choice" not in body and "tools" not in body
    schema = body["output_config"]["format"]["schema"]
    assert schema["required"] == ["steps"] and schema["additionalProperties"] is False
    assert "[1] Exámenes: períodos e inscripción — Período de febrero de 2027 (" + EXAMENES + ")" in body["messages"][0]["content"]
    assert "<consulta>\n" + QUESTION in body["messages"][0]["content"]


def test_verifier_flags_are_stored_on_the_steps(anthropic_server, llm):
    structured(anthropic_server, derivation_input("Te podés inscribir hasta el 29 de enero en https://otra.example.com."))
    answer = generator(llm).generate(QUESTION, exam_hits())
    flagged = {f["step"] for f in answer.flags}
    assert flagged == {"s2"} and any("29" in f["flag"] for f in answer.flags) and any("otra.example.com" in f["flag"] for f in answer.flags)
    assert answer.as_dict()["derivation"][1]["flags"]


def test_an_invalid_derivation_is_retried_once_with_the_same_prefix(anthropic_server, llm):
    structured(anthropic_server, {"steps": [{"id": "s1", "rule": "Refine", "premises": ["s9"], "conclusion": "x", "is_final": True}]})
    structured(anthropic_server, derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and not answer.fallback and answer.usage.calls == 2
    first, second = (r.json for r in anthropic_server.message_requests)
    assert first["system"] == second["system"] and first["output_config"] == second["output_config"]
    assert "no era una derivación válida" in second["messages"][0]["content"]
    assert answer.usage.cache_read_tokens > 0  # the retry reads the cached prefix


def test_two_invalid_derivations_fall_back_to_rag_and_are_marked(anthropic_server, llm):
    structured(anthropic_server, {"steps": [{"id": "s1", "rule": "Extract", "premises": ["1"], "conclusion": "x", "is_final": False}]})  # no final step
    structured(anthropic_server, {"steps": [{"id": "s1", "rule": "Compose", "premises": ["1"], "conclusion": "x", "is_final": True}]})  # wrong arity
    anthropic_server.enqueue(cited_reply(("Podés inscribirte hasta el 22 de enero de 2027.", 0)))
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.fallback and answer.method == "rag" and answer.derivation == []
    assert answer.usage.calls == 3 and [r.doc_id for r in answer.references] == ["examenes"]
    assert "derivación inválida" in answer.notes[0]


def test_without_a_fallback_an_invalid_derivation_raises(anthropic_server, llm):
    for _ in range(2):  # schema-valid, but the step uses itself as a premise
        structured(anthropic_server, {"steps": [{"id": "s1", "rule": "Refine", "premises": ["s1"], "conclusion": "x", "is_final": True}]})
    with pytest.raises(DerivationError):
        DerivationGenerator(llm=llm).generate(QUESTION, exam_hits())


def test_truncated_output_counts_as_invalid(anthropic_server, llm):
    anthropic_server.enqueue_text('{"steps": [{"id": "s1", "rule": "Extr', stop_reason="max_tokens")
    structured(anthropic_server, derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and answer.usage.calls == 2 and answer.outcome == "ok"
    assert "max_tokens" in answer.notes[0]


def test_a_refusal_is_a_flagged_empty_draft_not_an_answer(anthropic_server, llm):
    anthropic_server.enqueue_text("", stop_reason="refusal")
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.outcome == "refusal" and answer.text == "" and not answer.fallback and answer.usage.calls == 1
    assert answer.flags[0] == {"kind": "outcome", "step": None, "rule": None, "flag": "refusal"}
    assert len(anthropic_server.message_requests) == 1  # neither retried nor replaced by a RAG answer


def test_thinking_blocks_before_the_json_are_ignored(anthropic_server, llm):
    anthropic_server.enqueue_message([{"type": "thinking", "thinking": "razono", "signature": "x"}, {"type": "text", "text": json.dumps(derivation_input())}])
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and [s.rule for s in answer.derivation] == ["Extract", "Refine"]


def test_structured_output_is_required_of_claude(anthropic_server, llm):
    """Plain text is the OpenAI-compatible fallback only: on Claude every derivation request carries the JSON schema."""
    structured(anthropic_server, derivation_input())
    generator(llm).generate(QUESTION, exam_hits())
    assert all(r.json["output_config"]["format"]["type"] == "json_schema" for r in anthropic_server.message_requests)


def test_noinfo_final_step_is_a_no_info_answer(anthropic_server, llm):
    structured(anthropic_server, {"steps": [{"id": "s1", "rule": "NoInfo", "premises": [], "conclusion": "No hay información sobre estacionamiento.", "is_final": True}]})
    answer = generator(llm).generate("¿Hay estacionamiento?", exam_hits())
    assert answer.no_info and answer.references == [] and "No encontramos información" in answer.text
