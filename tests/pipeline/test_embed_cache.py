"""The embedding cache: keyed by model and text, persistent across runs."""

from __future__ import annotations

import numpy as np

from pipeline.embed_cache import CachedEmbedder, EmbeddingCache
from pipeline.embeddings import HashingEmbedder


class CountingEmbedder(HashingEmbedder):
    """Hashing embedder that counts the passages it really embeds."""

    def __init__(self, dim: int = 32, name: str | None = None) -> None:
        super().__init__(dim=dim)
        self.name = name or self.name
        self.embedded = 0

    def embed_passages(self, texts):
        self.embedded += len(texts)
        return super().embed_passages(texts)


def test_second_embedding_of_the_same_text_costs_nothing_and_is_identical(tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, EmbeddingCache(tmp_path), batch_size=2)
    texts = ["uno", "dos", "tres", "uno"]
    first = emb.embed_passages(texts)
    assert inner.embedded == 3  # the repeated text is embedded once
    again = CachedEmbedder(inner, EmbeddingCache(tmp_path)).embed_passages(texts)  # a new process, same cache dir
    assert inner.embedded == 3
    np.testing.assert_allclose(first, again)
    np.testing.assert_allclose(first, HashingEmbedder(dim=32).embed_passages(texts), rtol=1e-6)


def test_cache_is_keyed_by_model(tmp_path):
    cache = EmbeddingCache(tmp_path)
    a, b = CountingEmbedder(name="model-a"), CountingEmbedder(name="model-b")
    CachedEmbedder(a, cache).embed_passages(["hola"])
    CachedEmbedder(b, cache).embed_passages(["hola"])
    assert (a.embedded, b.embedded) == (1, 1)
    assert cache.count("model-a") == cache.count("model-b") == 1


def test_progress_reports_batches_up_to_the_total(tmp_path):
    seen = []
    CachedEmbedder(CountingEmbedder(), EmbeddingCache(tmp_path), batch_size=2).embed_passages(["a", "b", "c"], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (3, 3) and seen[0][0] < 3
