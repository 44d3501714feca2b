"""The LLM generator against the local Anthropic wire-format server: chunk sets, prompt variants, styles, provenance."""

from __future__ import annotations

import numpy as np

import json

import pytest

from classifiers.llm_synthetic import llm_dataset, load_prompt, prompt_hash, sample_chunk_sets
from classifiers.synthetic import STYLES
from pipeline.llm import AnthropicLLM
from tests.pipeline.claude_rules import assert_valid


def _json(question, used=None):
    return json.dumps({"question": question, "chunks_used": used or []}, ensure_ascii=False)


def test_chunk_sets_are_size_three_related_deterministic_and_varied():
    rng = np.random.default_rng(1)
    centres = np.eye(4, 16)
    vectors = np.vstack([c + rng.normal(0, 0.05, (5, 16)) for c in centres])  # four tight groups of five chunks
    sets = sample_chunk_sets(vectors, n_sets=40, seed=3)
    assert all(len(s) == 3 and len(set(s)) == 3 for s in sets)
    same_group = sum(len({i // 5 for i in s}) == 1 for s in sets)
    assert same_group >= len(sets) // 2  # related chunks travel together
    assert sets == sample_chunk_sets(vectors, n_sets=40, seed=3)
    assert len({tuple(sorted(s)) for s in sets}) > 4


def test_sampled_sets_match_brute_force_nearest_neighbours():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(30, 8))
    sets = sample_chunk_sets(vectors, n_sets=5, seed=11)
    again = np.random.default_rng(11)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for s in sets:
        d = again.standard_normal(8).astype(np.float32)
        d /= np.linalg.norm(d)
        assert s == list(np.argsort(-(unit @ d))[:3])


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-haiku-4-5"])
def test_llm_dataset_records_provenance_from_structured_replies(anthropic_server, chunks, chunk_vectors, model):
    calls = []

    def responder(req):
        calls.append(req)
        system = req["system"][0]["text"]
        if "TODOS" in system:
            return _json("¿Qué becas hay y cómo las pido?", [1, 2])
        if "AL MENOS UNO" in system:
            return _json("che cuando cierra la inscripcion", [1])
        if "La categoría pedida es: " in system:
            return _json("¿Qué piden para el examen final en la Facultad de Derecho?")
        return _json("¿Quién ganó el Mundial de 1950?")

    anthropic_server.set_responder(responder)
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model=model, effort="low", max_retries=0)
    rows = llm_dataset(llm, chunks, chunk_vectors, n_in=8, n_out=2, seed=5)
    ins, outs = [r for r in rows if r.label == 1], [r for r in rows if r.label == 0]
    assert len(ins) == 8 and len(outs) == 2
    ids = {c.id for c in chunks}
    assert all(r.source in ("llm", "llm-near-miss") and r.style in STYLES and r.prompt_hash for r in rows)
    assert all(r.chunk_ids and set(r.chunk_ids) <= ids for r in ins)
    assert {r.prompt_hash for r in ins} <= {prompt_hash("in_domain_any"), prompt_hash("in_domain_all")}
    assert outs[0].text == "¿Quién ganó el Mundial de 1950?" and outs[0].prompt_hash == prompt_hash("out_of_domain")
    near = outs[1]  # every other out-of-domain question is a near miss, its category kept in the topic
    assert near.source == "llm-near-miss" and near.topic == "other_institution:llm" and near.prompt_hash == prompt_hash("out_of_domain_near_miss")
    near_prompt = calls[9]["system"][0]["text"]
    assert "other_institution" in near_prompt and "Facultad de Ingeniería" in near_prompt and "Física Básica" in near_prompt
    assert len(calls) == 10
    first = calls[0]
    assert "tool_choice" not in first and "temperature" not in first and first["output_config"]["format"]["schema"]["required"] == ["question", "chunks_used"]
    assert_valid(anthropic_server)
    assert "<fragmentos>" in first["messages"][0]["content"]
    styles_seen = {line for c in calls for line in c["system"][0]["text"].splitlines() if line.startswith("Estilo pedido")}
    assert len(styles_seen) >= 3


def test_llm_errors_skip_the_question_instead_of_failing(anthropic_server, chunks, chunk_vectors):
    anthropic_server.enqueue_error(400, "invalid_request_error", "bad request")
    anthropic_server.set_responder(lambda req: _json("¿Qué es un crédito?", [1]))
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, max_retries=0)
    rows = llm_dataset(llm, chunks, chunk_vectors, n_in=3, n_out=0, seed=1)
    assert len(rows) == 2


def test_prompts_are_files_with_a_style_slot():
    for name in ("in_domain_any", "in_domain_all", "out_of_domain"):
        assert "{style}" in load_prompt(name)


def test_refused_or_truncated_questions_are_skipped(anthropic_server, chunks, chunk_vectors):
    anthropic_server.enqueue_text("", stop_reason="refusal")
    anthropic_server.enqueue_text('{"question": "¿Qu', stop_reason="max_tokens")
    anthropic_server.set_responder(lambda req: _json("¿Cómo pido una beca?", [1]))
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", max_retries=0)
    rows = llm_dataset(llm, chunks, chunk_vectors, n_in=3, n_out=0, seed=1)
    assert [r.text for r in rows] == ["¿Cómo pido una beca?"]
