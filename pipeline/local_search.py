"""Vectorised search over an in-memory copy of a local-mode Qdrant collection, scored as qdrant-client's local mode scores it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pipeline.sparse import SparseVector

EPSILON = 1.1920929e-7  # what qdrant-client divides by instead of a zero norm


def _idf(df: int, n: int) -> float:
    """Qdrant's IDF modifier."""
    return math.log((n - df + 0.5) / (df + 0.5) + 1)


class LocalSearch:
    """Cosine, IDF-weighted sparse dot product and RRF fusion over a snapshot of the points (payload and vectors).

    Results are (payload, score) pairs, best first, among points whose payload is not `active: False`.
    """

    def __init__(self, points: Sequence, *, dense: str, sparse: str) -> None:
        from scipy.sparse import csr_matrix

        n = len(points)
        self.payloads = [p.payload or {} for p in points]
        self.active = np.array([pl.get("active") is not False for pl in self.payloads], dtype=bool)
        vectors = [p.vector if isinstance(p.vector, dict) else {} for p in points]

        rows = [v.get(dense) for v in vectors]
        dim = next((len(r) for r in rows if r is not None), 0)
        self.has_dense = np.array([r is not None for r in rows], dtype=bool)
        matrix = np.zeros((n, dim), dtype=np.float32)
        for i, r in enumerate(rows):
            if r is not None:
                matrix[i] = r
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self.matrix = matrix / np.where(norms != 0.0, norms, EPSILON)

        self.columns: dict[int, int] = {}  # Qdrant term id -> column
        indptr, indices, data = [0], [], []
        self.n_sparse = 0  # the IDF corpus: every point that has a sparse vector, active or not
        for v in vectors:
            sv = v.get(sparse)
            if sv is not None:
                self.n_sparse += 1
                indices.extend(self.columns.setdefault(t, len(self.columns)) for t in sv.indices)
                data.extend(sv.values)
            indptr.append(len(indices))
        indices_arr = np.asarray(indices, dtype=np.int64)
        self.df = np.bincount(indices_arr, minlength=len(self.columns))
        self.terms = csr_matrix((np.asarray(data, dtype=np.float64), indices_arr, indptr), shape=(n, len(self.columns))).tocsc()

    def __len__(self) -> int:
        return len(self.payloads)

    def dense(self, query: np.ndarray, k: int) -> list[tuple[dict, float]]:
        return self._pairs(self._dense(query, k))

    def sparse(self, query: SparseVector, k: int) -> list[tuple[dict, float]]:
        return self._pairs(self._sparse(query, k))

    def hybrid(self, dense: np.ndarray, sparse: SparseVector, k: int, *, prefetch: int, rrf_k: int | None, weights: list[float] | None) -> list[tuple[dict, float]]:
        """Top `prefetch` of each branch fused by qdrant-client's own RRF; no sparse branch when the sparse query is empty."""
        from qdrant_client import models
        from qdrant_client.hybrid.fusion import reciprocal_rank_fusion

        branches = [self._dense(dense, prefetch)] + ([self._sparse(sparse, prefetch)] if sparse.indices else [])
        responses = [[models.ScoredPoint.model_construct(id=i, version=0, score=s) for i, s in branch] for branch in branches]
        fused = reciprocal_rank_fusion(responses, limit=k, ranking_constant_k=rrf_k, weights=weights)
        return [(self.payloads[p.id], float(p.score)) for p in fused]

    def _dense(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        q = np.asarray(query, dtype=np.float64)
        if np.isnan(q).any():
            raise ValueError("Query vector must not contain NaN")
        if not self.has_dense.any():
            return []
        norm = np.linalg.norm(q)
        q = (q / (norm if norm != 0.0 else EPSILON)).astype(np.float32)
        scores = np.einsum("ij,j->i", self.matrix, q)  # not `@`: multi-threaded BLAS stalls for ms when the other core is busy
        return self._top(scores, self.active & self.has_dense, k)

    def _sparse(self, query: SparseVector, k: int) -> list[tuple[int, float]]:
        cols, weights = [], []
        for term, value in zip(query.indices, query.values, strict=True):
            col = self.columns.get(term)
            if col is not None:  # a term no point has matches nothing
                cols.append(col)
                weights.append(value * _idf(int(self.df[col]), self.n_sparse))
        if not cols:
            return []
        sub = self.terms[:, cols]
        scores = (sub @ np.asarray(weights)).astype(np.float32)
        overlap = np.bincount(sub.indices, minlength=len(self)) > 0  # points sharing no term are not results, even at score 0
        return self._top(scores, overlap & self.active, k)

    @staticmethod
    def _top(scores: np.ndarray, mask: np.ndarray, k: int) -> list[tuple[int, float]]:
        rows = np.flatnonzero(mask)
        if k <= 0 or not len(rows):
            return []
        if len(rows) > k:
            rows = rows[np.argpartition(-scores[rows], k - 1)[:k]]
        rows = rows[np.argsort(-scores[rows], kind="stable")]
        return [(int(i), float(scores[i])) for i in rows]

    def _pairs(self, top: list[tuple[int, float]]) -> list[tuple[dict, float]]:
        return [(self.payloads[i], s) for i, s in top]
