"""Retrieval: from a question to the best chunks (dense, sparse or hybrid, optionally re-ranked)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Literal, Protocol

from pipeline.embeddings import Embedder
from pipeline.errors import ConfigurationError, IndexError_, RetrievalError
from pipeline.headings import request_heading
from pipeline.index import ChunkIndex, Hit
from pipeline.sparse import BM25Encoder

log = logging.getLogger(__name__)
Mode = Literal["dense", "sparse", "hybrid"]
MODES: tuple[str, ...] = ("dense", "sparse", "hybrid")
DocumentFusion = Literal["rank", "scores"]


class Retriever(Protocol):
    """Finds the chunks most relevant to a question."""

    def retrieve(self, question: str, k: int, *, support: int = 0) -> list[Hit]: ...


class Reranker(Protocol):
    """Re-scores (question, chunk) pairs; higher is better."""

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]: ...


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder by name or path, loaded on first use."""

    def __init__(self, model: str) -> None:
        self.model_name = model
        self._model = None

    def warm_up(self) -> None:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            try:
                self._model = CrossEncoder(self.model_name, device="cpu")
            except Exception as exc:  # missing offline model, bad path, network: many error types
                raise ConfigurationError(f"cannot load cross-encoder {self.model_name!r}: {exc}") from exc

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        if not hits:
            return []
        self.warm_up()
        scores = self._model.predict([(question, h.chunk.embed_text) for h in hits], show_progress_bar=False)  # type: ignore[union-attr]
        ranked = sorted(zip(hits, scores, strict=True), key=lambda hs: -float(hs[1]))
        return [Hit(h.chunk, float(s)) for h, s in ranked]


def load_reranker(model: str | None) -> Reranker | None:
    """The configured cross-encoder, or None (with a warning) when it cannot be loaded offline."""
    if not model:
        return None
    reranker = CrossEncoderReranker(model)
    try:
        reranker.warm_up()
    except ConfigurationError as exc:
        log.warning("re-ranking disabled: %s", exc)
        return None
    return reranker


class QdrantRetriever:
    """Dense, sparse (BM25 with Qdrant's IDF) or hybrid (prefetch both, fuse by RRF) search, then optional re-ranking."""

    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder | None,
        *,
        mode: Mode = "hybrid",
        sparse: BM25Encoder | None = None,
        prefetch: int = 40,
        rrf_k: int | None = None,
        weights: tuple[float, float] | None = None,
        reranker: Reranker | None = None,
        rerank_candidates: int = 20,
        min_score: float = 0.0,
        max_chunks_per_document: int = 0,
        second_chunk_weight: float = 0.0,
        document_fusion: DocumentFusion = "rank",
    ) -> None:
        if mode not in MODES:
            raise ConfigurationError(f"unknown retrieval mode {mode!r}; choose from {', '.join(MODES)}")
        if mode != "sparse" and embedder is None:
            raise ConfigurationError(f"retrieval mode {mode!r} needs a dense embedder")
        self.index, self.embedder, self.mode = index, embedder, mode
        self.sparse = sparse or BM25Encoder()
        self.prefetch, self.rrf_k, self.weights = prefetch, rrf_k, weights
        self.reranker, self.rerank_candidates, self.min_score = reranker, rerank_candidates, min_score
        self.max_chunks_per_document = max_chunks_per_document
        self.second_chunk_weight = second_chunk_weight
        self.document_fusion = document_fusion

    def _search(self, question: str, n: int) -> tuple[list[Hit], dict[str, float] | None]:
        """The hits, and in hybrid mode with `document_fusion="scores"`, each document's score by a fusion of the branches' scores."""
        if self.mode == "sparse":
            return self.index.search_sparse(self.sparse.encode_query(question), n), None
        dense = self.embedder.embed_queries([question])[0]  # type: ignore[union-attr]
        if self.mode == "dense":
            return self.index.search_dense(dense, n), None
        sparse, prefetch = self.sparse.encode_query(question), max(self.prefetch, n)
        hits = self.index.search_hybrid(dense, sparse, n, prefetch=prefetch, rrf_k=self.rrf_k, weights=self.weights)
        if self.document_fusion != "scores" or not self.max_chunks_per_document or self.reranker:
            return hits, None
        pooled = score_fusion([self.index.search_dense(dense, prefetch), self.index.search_sparse(sparse, prefetch)])
        return hits, document_scores(pooled, self.second_chunk_weight)

    def retrieve(self, question: str, k: int, *, support: int = 0) -> list[Hit]:
        """The k best hits (at most max_chunks_per_document per document), then up to `support` more chunks of those documents.

        Support chunks give a generator the depth of the documents found (the second and third chunk of the best
        one) without letting one document crowd the others out of the top k.
        """
        n = max(k, self.rerank_candidates) if self.reranker else k
        if self.max_chunks_per_document or support:  # a deeper candidate list: k distinct documents, then their other chunks
            n = max(n, self.prefetch)
        try:
            hits, documents = self._search(question, n)
        except IndexError_:
            raise
        except ValueError as exc:  # qdrant-client reports a bad query/collection this way
            raise RetrievalError(f"search failed: {exc}") from exc
        if self.reranker:
            hits = self.reranker.rerank(question, hits)
        elif self.min_score > 0 and self.mode == "dense":
            hits = [h for h in hits if h.score >= self.min_score]
        ranked = by_document(hits, self.second_chunk_weight, documents) if self.max_chunks_per_document and not self.reranker else hits
        top = cap_per_document(ranked, self.max_chunks_per_document)[:k]
        more = support_chunks(hits, top, support)
        return top + more + request_chunks(hits, top[:REQUEST_DOCS], [*top, *more], support)


def cap_per_document(hits: Sequence[Hit], cap: int | None) -> list[Hit]:
    """Keep at most `cap` chunks of each document, in rank order (0 or None keeps every hit)."""
    if not cap:
        return list(hits)
    seen: Counter[str] = Counter()
    kept = []
    for h in hits:
        if seen[h.chunk.doc_id] < cap:
            seen[h.chunk.doc_id] += 1
            kept.append(h)
    return kept


def score_fusion(branches: Sequence[Sequence[Hit]]) -> list[Hit]:
    """Chunks of several ranked lists by the sum of their scores, each list's scaled to [0, 1] (min-max), best first.

    Unlike RRF, which keeps only each chunk's rank, a chunk barely ahead in one list gains barely more than the one behind it:
    a document whose chunks score well in both lists outranks one whose single chunk tops one list by a hair.
    """
    total: dict[str, float] = {}
    chunks: dict[str, Hit] = {}
    for hits in branches:
        if not hits:
            continue
        hi, lo = max(h.score for h in hits), min(h.score for h in hits)
        for h in hits:
            total[h.chunk.id] = total.get(h.chunk.id, 0.0) + (h.score - lo) / ((hi - lo) or 1.0)
            chunks.setdefault(h.chunk.id, h)
    return [Hit(chunks[i].chunk, s) for i, s in sorted(total.items(), key=lambda t: -t[1])]


def document_scores(hits: Sequence[Hit], second: float) -> dict[str, float]:
    """Each document's score: its best chunk's plus `second` times its second-best chunk's."""
    scores: dict[str, list[float]] = {}
    for h in hits:
        scores.setdefault(h.chunk.doc_id, []).append(h.score)
    return {doc: s[0] + second * s[1] if len(s) > 1 else s[0] for doc, s in ((d, sorted(v, reverse=True)) for d, v in scores.items())}


def by_document(hits: Sequence[Hit], second: float, documents: dict[str, float] | None = None) -> list[Hit]:
    """The hits grouped by document, best document first; chunks keep their order within a document.

    A document scores its best chunk's score plus `second` times its second-best chunk's: with 0 documents rank by their
    best chunk alone; above 0 a document that answers in two places breaks a near tie with one whose single chunk
    happens to share the question's words (a regulation's two articles against an FAQ entry that only names the topic).
    `documents` gives the documents' scores from elsewhere (a fusion of their own); a document it lacks ranks after those it has.
    """
    if documents is None and second <= 0:
        return list(hits)  # in rank order, a document's first chunk is its best
    total = document_scores(hits, second) if documents is None else documents
    first = {doc: i for i, doc in reversed(list(enumerate(h.chunk.doc_id for h in hits)))}
    return sorted(hits, key=lambda h: (-total.get(h.chunk.doc_id, float("-inf")), first[h.chunk.doc_id]))


def support_chunks(ranked: Sequence[Hit], top: Sequence[Hit], n: int) -> list[Hit]:
    """Up to n further chunks, in rank order, of the documents already in `top`."""
    docs, taken = {h.chunk.doc_id for h in top}, {h.chunk.id for h in top}
    return [h for h in ranked if h.chunk.doc_id in docs and h.chunk.id not in taken][:n]


REQUEST_CHUNKS = 2  # at most this many 'Cómo se solicita' / 'Plazos' sections of the best documents, beyond the support chunks
REQUEST_DOCS = 2  # ... of the documents of the first this many hits


def request_chunks(ranked: Sequence[Hit], best: Sequence[Hit], taken: Sequence[Hit], support: int) -> list[Hit]:
    """The sections of the best documents headed as how or by when to request (pipeline.headings.request_heading), in rank
    order, that the hits and support chunks leave out: the rest of a rules answer ('¿puedo…?' → the form and the
    deadline) when the generator is given support chunks at all."""
    if not support or not best:
        return []
    docs, have = {h.chunk.doc_id for h in best}, {h.chunk.id for h in taken}
    return [h for h in ranked if h.chunk.doc_id in docs and h.chunk.id not in have and request_heading(h.chunk.section)][:REQUEST_CHUNKS]


def retriever_from_settings(retrieval_settings, *, index: ChunkIndex, embedder: Embedder | None) -> Retriever:
    """The retriever the settings ask for (pipeline.settings.RetrievalSettings)."""
    r = retrieval_settings
    return QdrantRetriever(
        index,
        embedder,
        mode=r.mode,
        sparse=BM25Encoder(avg_len=r.bm25_avg_len),
        prefetch=r.prefetch,
        rrf_k=r.rrf_k,
        weights=r.fusion_weights,
        reranker=load_reranker(r.reranker),
        rerank_candidates=r.rerank_candidates,
        min_score=r.min_score,
        max_chunks_per_document=r.max_chunks_per_document,
        second_chunk_weight=r.second_chunk_weight,
        document_fusion=r.document_fusion,
    )
