"""The derivation method end to end against a local Messages API server (real SDK)."""

from __future__ import annotations

import pytest

from pipeline.errors import DerivationError
from pipeline.generation.derivation import DERIVATION_TOOL, DerivationGenerator
from pipeline.generation.rag import RAGGenerator
from pipeline.llm import AnthropicLLM, RetryPolicy
from tests.pipeline.generation_helpers import EXAMENES, derivation_input, exam_hits
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

PRICES = {"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}
QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"


@pytest.fixture
def llm(anthropic_server):
    return AnthropicLLM(api_key="k", base_url=anthropic_server.url, policy=RetryPolicy(max_retries=0, sleep=lambda s: None))


def generator(llm, **kw):
    return DerivationGenerator(llm=llm, prices=PRICES, fallback=RAGGenerator(llm=llm, prices=PRICES), **kw)


def test_a_valid_derivation_becomes_a_grounded_answer(anthropic_server, llm):
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and not answer.fallback and not answer.no_info
    assert "22 de enero de 2027" in answer.text and EXAMENES in answer.text
    assert [r.doc_id for r in answer.references] == ["examenes"]  # the unused becas chunk is not a reference
    assert [s.rule for s in answer.derivation] == ["Extract", "Refine"] and answer.flags == []
    assert answer.prompt_hash and answer.usage.calls == 1 and answer.cost_usd == pytest.approx(answer.usage.cost(PRICES))
    body = anthropic_server.requests[-1].json
    assert body["tool_choice"]["name"] == DERIVATION_TOOL["name"]
    assert "[1] Exámenes: períodos e inscripción — Período de febrero de 2027 (" + EXAMENES + ")" in body["messages"][0]["content"]
    assert "<consulta>\n" + QUESTION in body["messages"][0]["content"]


def test_verifier_flags_are_stored_on_the_steps(anthropic_server, llm):
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], derivation_input("Te podés inscribir hasta el 29 de enero en https://otra.example.com."))
    answer = generator(llm).generate(QUESTION, exam_hits())
    flagged = {f["step"] for f in answer.flags}
    assert flagged == {"s2"} and any("29" in f["flag"] for f in answer.flags) and any("otra.example.com" in f["flag"] for f in answer.flags)
    assert answer.as_dict()["derivation"][1]["flags"]


def test_an_invalid_derivation_is_retried_once_with_the_same_prefix(anthropic_server, llm):
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], {"steps": [{"id": "s1", "rule": "Refine", "premises": ["s9"], "conclusion": "x", "is_final": True}]})
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and not answer.fallback and answer.usage.calls == 2
    first, second = (r.json for r in anthropic_server.requests)
    assert first["system"] == second["system"] and first["tools"] == second["tools"]
    assert "no era una derivación válida" in second["messages"][0]["content"]
    assert answer.usage.cache_read_tokens > 0  # the retry reads the cached prefix


def test_two_invalid_derivations_fall_back_to_rag_and_are_marked(anthropic_server, llm):
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], {"steps": []})
    anthropic_server.enqueue_text("sin pasos")  # no tool call and no parsable lines
    anthropic_server.enqueue_text("Podés inscribirte hasta el 22 de enero de 2027.\n\nReferencias:\n- Exámenes: períodos e inscripción")
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.fallback and answer.method == "rag" and answer.derivation == []
    assert answer.usage.calls == 3 and [r.doc_id for r in answer.references] == ["examenes"]
    assert "derivación inválida" in answer.notes[0]


def test_without_a_fallback_an_invalid_derivation_raises(anthropic_server, llm):
    anthropic_server.enqueue_text("nada")
    anthropic_server.enqueue_text("nada")
    with pytest.raises(DerivationError):
        DerivationGenerator(llm=llm).generate(QUESTION, exam_hits())


def test_truncated_output_counts_as_invalid(anthropic_server, llm):
    anthropic_server.enqueue_message([{"type": "tool_use", "name": DERIVATION_TOOL["name"], "input": {}}], stop_reason="max_tokens")
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], derivation_input())
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and answer.usage.calls == 2
    assert "no 'steps'" in answer.notes[0]


def test_plain_text_output_is_accepted(anthropic_server, llm):
    anthropic_server.enqueue_text("s1 | Extract | 1 | Inscripción hasta el viernes 22 de enero de 2027. | no\ns2 | Refine | s1 | Te podés inscribir hasta el viernes 22 de enero de 2027. | sí")
    answer = generator(llm).generate(QUESTION, exam_hits())
    assert answer.method == "derivation" and answer.derivation[-1].is_final and answer.flags == []


def test_noinfo_final_step_is_a_no_info_answer(anthropic_server, llm):
    anthropic_server.enqueue_tool_use(DERIVATION_TOOL["name"], {"steps": [{"id": "s1", "rule": "NoInfo", "premises": [], "conclusion": "No hay información sobre estacionamiento.", "is_final": True}]})
    answer = generator(llm).generate("¿Hay estacionamiento?", exam_hits())
    assert answer.no_info and answer.references == [] and "No encontramos información" in answer.text
