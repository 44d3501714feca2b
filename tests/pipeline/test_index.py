"""The Qdrant chunk index: metadata, the active flag, atomic replacement."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.chunking import chunk_document
from pipeline.documents import Document
from pipeline.embeddings import HashingEmbedder
from pipeline.errors import IndexError_
from pipeline.index import ChunkIndex
from pipeline.settings import Settings
from pipeline.sparse import BM25Encoder
from tests.pipeline.index_fixtures import index  # noqa: F401  (fixture)

EMB = HashingEmbedder(dim=64)
SPARSE = BM25Encoder()


def put(index, doc: Document) -> None:
    chunks = chunk_document(doc, "sentence", size=50, overlap=0)
    texts = [c.embed_text for c in chunks]
    index.replace_document(chunks, EMB.embed_passages(texts), SPARSE.encode_passages(texts), doc_meta=doc.metadata())


BECAS = Document(id="becas", title="Becas", text="Las becas de transporte cubren el boleto. Se piden en marzo en Bienestar.", source="/docs/becas.md", url="https://x/becas")
LOCKERS = Document(id="lockers", title="Lockers", text="No hay lockers en la Facultad. Los casilleros del gremio se alquilan.", source="/docs/lockers.md")


def test_documents_carry_their_metadata(index):
    index.ensure(EMB.dim)
    put(index, BECAS)
    d = index.documents()["becas"]
    assert (d["title"], d["url"], d["source"], d["content_hash"], d["active"]) == ("Becas", "https://x/becas", "/docs/becas.md", BECAS.content_hash, True)
    assert d["ingested_at"].startswith(str(BECAS.ingested_at.year)) and d["chunks"] == 2


def test_inactive_documents_are_excluded_from_every_search_but_kept(index):
    index.ensure(EMB.dim)
    put(index, BECAS)
    put(index, LOCKERS)
    q = "becas de transporte en la Facultad"
    assert index.search_sparse(SPARSE.encode_query(q), 5)[0].chunk.doc_id == "becas"
    assert index.set_active("becas", False) == 2
    for hits in (index.search_dense(EMB.embed_queries([q])[0], 5), index.search_sparse(SPARSE.encode_query(q), 5), index.search_hybrid(EMB.embed_queries([q])[0], SPARSE.encode_query(q), 5)):
        assert hits and {h.chunk.doc_id for h in hits} == {"lockers"}
    assert {c.doc_id for c, _ in index.all_chunks()} == {"lockers"}
    assert index.documents()["becas"]["active"] is False
    index.set_active("becas", True)
    assert index.search_sparse(SPARSE.encode_query(q), 5)[0].chunk.doc_id == "becas"
    assert index.set_active("nope", False) == 0


def test_all_chunks_returns_dense_vectors_in_document_order(index):
    index.ensure(EMB.dim)
    put(index, LOCKERS)
    put(index, BECAS)
    pairs = index.all_chunks(with_vectors=True)
    assert [(c.doc_id, c.position) for c, _ in pairs] == [("becas", 0), ("becas", 1), ("lockers", 0), ("lockers", 1)]
    np.testing.assert_allclose(pairs[0][1], EMB.embed_passages([pairs[0][0].embed_text])[0], rtol=1e-5)


def test_all_chunks_of_some_documents_only_and_only_active_ones(index):
    index.ensure(EMB.dim)
    put(index, BECAS)
    put(index, LOCKERS)
    assert [(c.doc_id, c.position) for c, _ in index.all_chunks(doc_ids={"lockers"})] == [("lockers", 0), ("lockers", 1)]
    assert index.all_chunks(doc_ids={"nope"}) == []
    index.set_active("lockers", False)
    assert index.all_chunks(doc_ids={"lockers", "becas"}) == index.all_chunks() and {c.doc_id for c, _ in index.all_chunks()} == {"becas"}


def test_a_failed_write_keeps_the_previous_version_and_leaves_nothing_half_written(index):
    index.ensure(EMB.dim)
    put(index, BECAS)
    new = Document(id="becas", title="Becas", text="Versión nueva. " * 20, source="/docs/becas.md")
    chunks = chunk_document(new, "fixed", size=100, overlap=0)
    vectors = EMB.embed_passages([c.embed_text for c in chunks])
    vectors[-1] = np.nan  # the last point cannot be written
    with pytest.raises(IndexError_, match="previous version was kept"):
        index.replace_document(chunks, vectors, SPARSE.encode_passages([c.text for c in chunks]), doc_meta=new.metadata())
    d = index.documents()["becas"]
    assert d["content_hash"] == BECAS.content_hash and d["chunks"] == 2


def test_an_index_built_for_another_model_asks_for_a_reset(index):
    index.ensure(EMB.dim)
    with pytest.raises(IndexError_, match="--reset"):
        index.ensure(EMB.dim + 1)


def test_searching_before_ingesting_says_so(index):
    with pytest.raises(IndexError_, match="orienta ingest"):
        index.search_dense(np.ones(8, dtype=np.float32), 3)


def test_settings_choose_local_mode_or_a_server(tmp_path):
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    local = ChunkIndex.from_settings(s)
    assert local.url is None and local.path == tmp_path / "qdrant"
    s.qdrant.url, s.qdrant.collection = "http://qdrant.internal:6333", "office"
    remote = ChunkIndex.from_settings(s)
    assert (remote.url, remote.path, remote.collection) == ("http://qdrant.internal:6333", None, "office")
