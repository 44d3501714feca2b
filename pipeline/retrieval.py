"""Retrieval: from a question to the best chunks."""

from __future__ import annotations

from typing import Protocol

from pipeline.embeddings import Embedder
from pipeline.index import ChunkIndex, Hit


class Retriever(Protocol):
    """Finds the chunks most relevant to a question."""

    def retrieve(self, question: str, k: int) -> list[Hit]: ...


class DenseRetriever:
    """Nearest chunks by dense embedding."""

    def __init__(self, index: ChunkIndex, embedder: Embedder) -> None:
        self.index, self.embedder = index, embedder

    def retrieve(self, question: str, k: int) -> list[Hit]:
        return self.index.search_dense(self.embedder.embed_queries([question])[0], k)
