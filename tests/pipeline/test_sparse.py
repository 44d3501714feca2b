"""BM25 sparse vectors with Spanish normalisation."""

from __future__ import annotations

from pipeline.sparse import BM25Encoder, term_id
from pipeline.text import lexical_terms


def as_dict(v):
    return dict(zip(v.indices, v.values, strict=True))


def test_accents_case_and_plurals_meet_in_the_same_terms():
    assert lexical_terms("INSCRIPCIÓN a los Cursos") == lexical_terms("inscripcion curso")


def test_stop_words_and_greetings_are_dropped_but_numbers_kept():
    terms = lexical_terms("Hola, quería saber qué es el artículo 5 de la reválida")
    assert terms == lexical_terms("artículo 5 reválida")
    assert "5" in terms


def test_query_vector_is_binary_and_ids_are_stable():
    enc = BM25Encoder()
    q = enc.encode_query("reválidas reválida REVALIDA")
    assert q.values == [1.0] and q.indices == [term_id(lexical_terms("reválida")[0])]
    assert q.indices == sorted(q.indices)


def test_passage_weights_saturate_with_term_frequency():
    enc = BM25Encoder(k1=1.2, b=0.0)
    key = term_id(lexical_terms("beca")[0])
    w = [as_dict(enc.encode_passage(" ".join(["beca"] * n) + " transporte"))[key] for n in (1, 2, 8, 64)]
    assert w[0] < w[1] < w[2] < w[3] < 1.2 + 1


def test_longer_passages_weigh_a_term_less():
    enc = BM25Encoder(b=0.75, avg_len=10)
    key = term_id(lexical_terms("beca")[0])
    short = as_dict(enc.encode_passage("beca transporte"))[key]
    long = as_dict(enc.encode_passage("beca " + " ".join(f"palabra{i}" for i in range(40))))[key]
    assert long < short


def test_text_without_content_terms_gives_an_empty_vector():
    assert BM25Encoder().encode_query("¿Hola, cómo es?").indices == []
