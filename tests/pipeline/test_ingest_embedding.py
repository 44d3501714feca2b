"""Ingestion's embedding work: each distinct text of a document is embedded once, and the index holds what it held before."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.chunking import Chunk, chunk_document
from pipeline.documents import Document
from pipeline.embeddings import HashingEmbedder
from pipeline.index import ChunkIndex
from pipeline.ingest import embed_document, ingest
from pipeline.units import Unit

TEXT = """# Trámites

## Exámenes

La inscripción a exámenes cierra el 5 de febrero.

## Becas

Hay becas de transporte para estudiantes del interior.

Las becas se piden en marzo. Hay becas de transporte para estudiantes del interior.

## Horarios

- Lunes a viernes de 8 a 16.
- Sábados de 8 a 12.

## Lockers

No hay lockers en la Facultad.
"""


class RecordingEmbedder(HashingEmbedder):
    """The hashing embedder (batch-independent vectors), recording every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.sent: list[str] = []

    def embed_passages(self, texts):
        self.sent.extend(texts)
        return super().embed_passages(texts)


def _f16(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, dtype=np.float16).astype(np.float32)


def _chunks() -> list[Chunk]:
    return chunk_document(Document(id="tramites", title="Trámites", text=TEXT, source=""), "structure", 120, 0)


def test_repeated_units_and_units_repeating_a_chunk_are_embedded_once():
    chunks, emb = _chunks(), RecordingEmbedder()
    units = [u for c in chunks for u in c.units if u.kind != "heading"]
    chunk_texts = {c.text for c in chunks}
    repeats_chunk = [u for u in units if u.text in chunk_texts]
    assert repeats_chunk, "the sample must hold a unit that is a chunk's whole text"
    assert len({u.embed_text for u in units}) < len(units), "the sample must repeat a unit"
    vectors = embed_document(chunks, emb)
    assert len(emb.sent) == len(set(emb.sent))  # nothing sent twice
    assert len(emb.sent) == len(chunks) + len({u.embed_text for u in units if u.text not in chunk_texts})
    assert not any(u.embed_text in emb.sent for u in repeats_chunk)
    vector_of = {c.text: v for c, v in zip(chunks, vectors, strict=True)}
    for u in repeats_chunk:
        assert np.array_equal(u.vec(), _f16(vector_of[u.text]))  # that chunk's vector
    same = [u for u in units if u.text.startswith("Hay becas")]
    assert len(same) == 2 and np.array_equal(same[0].vec(), same[1].vec())
    assert len(emb.sent) < len(chunks) + len(units)  # what ingestion embedded before: every chunk and every unit


def test_units_differing_only_in_whitespace_share_one_embedding():
    units = [Unit("sentence", "Cierra el  5 de\nfebrero.", "Exámenes"), Unit("sentence", "Cierra el 5 de febrero.", "Exámenes")]
    chunk = Chunk(doc_id="d", doc_title="D", text="Exámenes\n\nCierra el 5 de febrero. Abre el 1.", position=0, units=units)
    emb = RecordingEmbedder()
    embed_document([chunk], emb)
    assert emb.sent == [chunk.embed_text, units[0].embed_text]
    assert np.array_equal(units[0].vec(), units[1].vec())


def test_the_index_holds_the_same_vectors_and_payloads_as_embedding_each_text_alone(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "tramites.md").write_text(TEXT, encoding="utf-8")
    index, emb = ChunkIndex(path=tmp_path / "qdrant"), RecordingEmbedder()
    try:
        report = ingest([tmp_path / "docs"], index=index, embedder=emb, chunk_size=120, overlap=0)
        stored = index.all_chunks(with_vectors=True)
    finally:
        index.close()
    assert report.added == ["tramites"] and not report.failed
    reference = _chunks()  # what ingestion stored before: every chunk and every unit embedded on its own
    assert [c.text for c, _ in stored] == [c.text for c in reference]
    solo = HashingEmbedder(dim=64)
    chunk_vector = {c.text: v for c, v in stored}
    for (got, vec), want in zip(stored, reference, strict=True):
        assert np.allclose(vec, solo.embed_passages([want.embed_text])[0], atol=1e-6)
        assert [(u.kind, u.text, u.context, u.fields) for u in got.units] == [(u.kind, u.text, u.context, u.fields) for u in want.units]
        for g, w in zip(got.units, want.units, strict=True):
            if w.kind == "heading":
                assert g.vector is None
            elif w.text in chunk_vector:  # repeats a chunk's text: that chunk's vector, the same meaning
                assert np.allclose(g.vec(), chunk_vector[w.text], atol=1e-3)
            else:
                assert np.array_equal(g.vec(), _f16(solo.embed_passages([w.embed_text])[0]))
    assert len(emb.sent) == len(set(emb.sent))


@pytest.mark.parametrize("chunks", [[]])
def test_a_document_without_chunks_embeds_nothing(chunks):
    emb = RecordingEmbedder()
    assert embed_document(chunks, emb).shape == (0, 64) and emb.sent == []


def test_embedding_progress_counts_chunks_and_ends_at_the_total(tmp_path):
    from pipeline.embed_cache import CachedEmbedder, EmbeddingCache

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "tramites.md").write_text(TEXT, encoding="utf-8")
    (tmp_path / "docs" / "becas.md").write_text("# Becas\n\nHay becas de transporte para estudiantes del interior.", encoding="utf-8")
    seen: list[tuple[int, int]] = []
    emb = CachedEmbedder(RecordingEmbedder(), EmbeddingCache(tmp_path / "cache"), batch_size=2)
    index = ChunkIndex(path=tmp_path / "qdrant")
    try:
        report = ingest([tmp_path / "docs"], index=index, embedder=emb, chunk_size=120, overlap=0, embed_progress=lambda d, t: seen.append((d, t)))
    finally:
        index.close()
        emb.cache.close()
    done = [d for d, _ in seen]
    assert len(seen) > 2 and done == sorted(done) and {t for _, t in seen} == {report.chunks} and done[-1] == report.chunks
