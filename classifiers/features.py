"""Gate features: the query embedding plus its similarity to the indexed corpus."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.embeddings import Embedder


def similarity_features(query_vecs: np.ndarray, corpus: np.ndarray, k: int = 3) -> np.ndarray:
    """Per query: max cosine, mean of the top-k cosines, and their gap to the corpus mean."""
    if corpus.size == 0:
        return np.zeros((len(query_vecs), 3), dtype=np.float32)
    sims = query_vecs @ corpus.T
    k = min(k, sims.shape[1])
    top = -np.sort(-sims, axis=1)[:, :k]
    return np.column_stack([top[:, 0], top.mean(axis=1), top[:, 0] - sims.mean(axis=1)]).astype(np.float32)


def build_features(texts: Sequence[str], *, embedder: Embedder, corpus: np.ndarray, kind: str = "embedding+similarity") -> np.ndarray:
    """The feature matrix for `texts`: 'embedding', 'similarity' or 'embedding+similarity'."""
    q = embedder.embed_queries(list(texts))
    parts = []
    if "embedding" in kind:
        parts.append(q)
    if "similarity" in kind:
        parts.append(similarity_features(q, corpus) * 4.0)  # scaled so a few dimensions weigh against 384
    if not parts:
        raise ValueError(f"unknown feature set {kind!r}")
    return np.hstack(parts).astype(np.float32)
