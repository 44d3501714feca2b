"""The in-memory local-mode search: the same results as qdrant-client's local mode, kept fresh by every write."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pipeline.chunking import chunk_document
from pipeline.documents import Document, iter_document_files
from pipeline.embeddings import HashingEmbedder
from pipeline.errors import IndexError_
from pipeline.index import ChunkIndex
from pipeline.loaders import load_document
from pipeline.settings import Settings
from pipeline.sparse import BM25Encoder, SparseVector

EMB = HashingEmbedder(dim=128)
BM25 = BM25Encoder()
DOCS = Path(__file__).resolve().parents[2] / "bot" / "demo" / "sample_office" / "docs"
QUESTIONS = [
    "¿Cuándo cierra la inscripción a exámenes?",
    "requisitos para pedir la beca de transporte",
    "horario de atención de bedelía",
    "cómo revalidar materias de otra facultad",
    "créditos necesarios para el título",
    "fechas del calendario 2026",
    "posgrados y maestrías",
    "reglamento de estudiantes sanciones",
]
STOPWORDS_ONLY = "¿y de la?"  # no lexical terms: hybrid runs the dense branch alone
INACTIVE, UNSPARSE = "becas", "posgrados"  # one document switched off, one stored without sparse vectors


def office_documents() -> list[Document]:
    return [load_document(f) for f in iter_document_files([DOCS])]


def build(index: ChunkIndex, *, jitter: bool) -> None:
    """Index the sample office's documents in sentence chunks.

    With `jitter`, every vector is scaled or nudged by at most 0.1 % so that no two chunks tie: tied
    scores may come back in either order, and in a hybrid query a swapped tie moves the fused ranks.
    """
    rng = np.random.default_rng(3)
    index.ensure(EMB.dim)
    for doc in office_documents():
        chunks = chunk_document(doc, "sentence", size=200, overlap=0)
        texts = [c.embed_text for c in chunks]
        dense, sparse = EMB.embed_passages(texts), BM25.encode_passages(texts)
        if jitter:
            dense = dense + rng.normal(0, 1e-3 / math.sqrt(EMB.dim), size=dense.shape).astype(np.float32)
            sparse = [SparseVector(s.indices, [v * (1 + 1e-3 * rng.random()) for v in s.values]) for s in sparse]
        if doc.id == UNSPARSE:
            index.upsert(chunks, dense, content_hash=doc.content_hash, doc_meta=doc.metadata())
        else:
            index.replace_document(chunks, dense, sparse, doc_meta=doc.metadata())
    assert index.set_active(INACTIVE, False)


def search(index: ChunkIndex, mode: str, question: str, k: int, **fusion) -> list:
    dense, sparse = EMB.embed_queries([question])[0], BM25.encode_query(question)
    if mode == "dense":
        return index.search_dense(dense, k)
    if mode == "sparse":
        return index.search_sparse(sparse, k)
    return index.search_hybrid(dense, sparse, k, **fusion)


def both(index: ChunkIndex, monkeypatch, *args, **kwargs) -> tuple[list, list]:
    """The same search with the fast path (the client's query_points switched off) and with qdrant-client's local mode."""
    with monkeypatch.context() as m:
        m.setattr(index.client, "query_points", lambda *a, **kw: pytest.fail("the fast path called qdrant-client"))
        fast = search(index, *args, **kwargs)
    index.fast_local_search = False
    try:
        return fast, search(index, *args, **kwargs)
    finally:
        index.fast_local_search = True


def ranked(hits) -> list[tuple[str, float]]:
    return [(h.chunk.id, h.score) for h in hits]


def assert_same_up_to_ties(fast, slow, k: int) -> None:
    """Same scores rank by rank; ids equal within each group of tied scores (the group cut by k may keep other members)."""
    assert len(fast) == len(slow)
    assert [h.score for h in fast] == pytest.approx([h.score for h in slow], abs=1e-4)
    groups: list[list[int]] = []
    for i, h in enumerate(slow):
        if groups and math.isclose(h.score, slow[groups[-1][0]].score, rel_tol=1e-6):
            groups[-1].append(i)
        else:
            groups.append([i])
    if len(slow) == k:
        groups = groups[:-1]
    for g in groups:
        assert {fast[i].chunk.id for i in g} == {slow[i].chunk.id for i in g}


@pytest.fixture(scope="module")
def untied(tmp_path_factory):
    index = ChunkIndex(path=tmp_path_factory.mktemp("untied") / "qdrant")
    build(index, jitter=True)
    yield index
    index.close()


@pytest.fixture(scope="module")
def natural(tmp_path_factory):
    index = ChunkIndex(path=tmp_path_factory.mktemp("natural") / "qdrant")
    build(index, jitter=False)
    yield index
    index.close()


FUSIONS = {
    "dense": {},
    "sparse": {},
    "hybrid-rrf": {"prefetch": 40},
    "hybrid-weighted": {"prefetch": 40, "weights": (1.0, 2.0)},
    "hybrid-weighted-k60": {"prefetch": 40, "weights": (1.0, 2.0), "rrf_k": 60},
    "hybrid-k60-narrow": {"prefetch": 5, "rrf_k": 60},
}


@pytest.mark.parametrize("case", list(FUSIONS))
def test_results_equal_qdrant_client_local_mode(untied, monkeypatch, case):
    mode = case.split("-")[0]
    questions = QUESTIONS + ([STOPWORDS_ONLY] if mode == "hybrid" else [])
    assert untied.count() > 250
    for question in questions:
        for k in (1, 10, 60):
            fast, slow = both(untied, monkeypatch, mode, question, k, **FUSIONS[case])
            assert slow, question
            assert [i for i, _ in ranked(fast)] == [i for i, _ in ranked(slow)], (question, k)
            assert [s for _, s in ranked(fast)] == pytest.approx([s for _, s in ranked(slow)], abs=1e-4)
            assert not {h.chunk.doc_id for h in fast} & {INACTIVE}


@pytest.mark.parametrize("mode", ["dense", "sparse"])
def test_tied_scores_come_back_as_ties(natural, monkeypatch, mode):
    for question in QUESTIONS:
        for k in (5, 40):
            fast, slow = both(natural, monkeypatch, mode, question, k)
            assert_same_up_to_ties(fast, slow, k)


def test_chunks_without_a_sparse_vector_only_reach_dense_results(untied):
    docs = lambda hits: {h.chunk.doc_id for h in hits}  # noqa: E731
    question = "posgrados, maestrías y doctorados de la facultad"
    assert UNSPARSE not in docs(search(untied, "sparse", question, 300))
    assert UNSPARSE in docs(search(untied, "dense", question, 300))


BECAS = Document(id="becas", title="Becas", text="Las becas de transporte cubren el boleto. Se piden en marzo en Bienestar.", source="/docs/becas.md")
LOCKERS = Document(id="lockers", title="Lockers", text="No hay lockers en la Facultad. Los casilleros del gremio se alquilan.", source="/docs/lockers.md")


def put(index: ChunkIndex, doc: Document) -> None:
    chunks = chunk_document(doc, "sentence", size=50, overlap=0)
    texts = [c.embed_text for c in chunks]
    index.replace_document(chunks, EMB.embed_passages(texts), BM25.encode_passages(texts), doc_meta=doc.metadata())


def every_mode(index: ChunkIndex, question: str) -> dict[str, set[str]]:
    return {mode: {h.chunk.doc_id for h in search(index, mode, question, 10)} for mode in ("dense", "sparse", "hybrid")}


def test_every_write_is_seen_by_the_next_search(tmp_path):
    index = ChunkIndex(path=tmp_path / "qdrant")
    index.ensure(EMB.dim)
    put(index, BECAS)
    put(index, LOCKERS)
    q = "becas de transporte y lockers de la Facultad"
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), {"becas", "lockers"})

    index.set_active("becas", False)
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), {"lockers"})
    index.set_active("becas", True)
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), {"becas", "lockers"})

    put(index, Document(id="becas", title="Becas", text="Las becas de alimentación se cobran en el comedor universitario.", source="/docs/becas.md"))
    texts = {h.chunk.text for h in search(index, "hybrid", "becas comedor", 10)}
    assert any("comedor" in t for t in texts) and not any("boleto" in t for t in texts)

    index.delete_document("lockers")
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), {"becas"})

    index.reset()
    with pytest.raises(IndexError_, match="orienta ingest"):
        search(index, "hybrid", q, 5)
    index.ensure(EMB.dim)
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), set())
    put(index, LOCKERS)
    assert every_mode(index, q) == dict.fromkeys(("dense", "sparse", "hybrid"), {"lockers"})
    index.close()


@pytest.mark.parametrize("fast", [True, False])
def test_an_empty_collection_behaves_as_before(tmp_path, fast):
    index = ChunkIndex(path=tmp_path / "qdrant", fast_local_search=fast)
    for mode in ("dense", "sparse", "hybrid"):
        with pytest.raises(IndexError_, match="orienta ingest"):
            search(index, mode, "becas", 5)
    index.ensure(EMB.dim)
    assert every_mode(index, "becas") == dict.fromkeys(("dense", "sparse", "hybrid"), set())
    assert index.search_sparse(BM25.encode_query(STOPWORDS_ONLY), 5) == []
    index.close()


def test_settings_switch_the_fast_path(tmp_path):
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    assert ChunkIndex.from_settings(s).fast_local_search is True
    s.qdrant.fast_local_search = False
    index = ChunkIndex.from_settings(s)
    index.ensure(EMB.dim)
    put(index, BECAS)
    assert search(index, "hybrid", "becas", 5) and index._local_search is None
    index.close()
