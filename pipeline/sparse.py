"""Sparse lexical vectors: BM25 term weights per chunk, with the IDF applied by Qdrant (Modifier.IDF)."""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.text import lexical_terms


@dataclass(slots=True)
class SparseVector:
    """Term ids and weights, ready for a Qdrant sparse vector."""

    indices: list[int]
    values: list[float]

    def to_qdrant(self):
        from qdrant_client import models

        return models.SparseVector(indices=self.indices, values=self.values)


def term_id(term: str) -> int:
    """Stable 32-bit id for a term (CRC32; collisions are negligible for an office's vocabulary)."""
    return zlib.crc32(term.encode("utf-8"))


class BM25Encoder:
    """BM25 term-frequency saturation for passages, binary weights for queries; Qdrant multiplies in the IDF."""

    name = "bm25-es-snowball"

    def __init__(self, *, k1: float = 1.2, b: float = 0.75, avg_len: float = 80.0) -> None:
        self.k1, self.b, self.avg_len = k1, b, avg_len

    def _vector(self, weights: dict[str, float]) -> SparseVector:
        merged: dict[int, float] = {}
        for term, w in weights.items():
            i = term_id(term)
            merged[i] = merged.get(i, 0.0) + w
        indices = sorted(merged)
        return SparseVector(indices=indices, values=[merged[i] for i in indices])

    def encode_passage(self, text: str) -> SparseVector:
        terms = lexical_terms(text)
        counts = Counter(terms)
        norm = self.k1 * (1 - self.b + self.b * len(terms) / self.avg_len)
        return self._vector({t: tf * (self.k1 + 1) / (tf + norm) for t, tf in counts.items()})

    def encode_passages(self, texts: Sequence[str]) -> list[SparseVector]:
        return [self.encode_passage(t) for t in texts]

    def encode_query(self, text: str) -> SparseVector:
        return self._vector(dict.fromkeys(lexical_terms(text), 1.0))
