"""Operations behind the CLI and the demo: ingestion, document switches and retrieval evaluation."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bot.wiring.services import Services
from pipeline.embed_cache import CachedEmbedder, EmbeddingCache
from pipeline.embeddings import ingest_embedder
from pipeline.ingest import IngestProgress, IngestReport, ingest
from pipeline.retrieval import Retriever
from pipeline.sparse import BM25Encoder


def ingest_documents(
    services: Services,
    paths: Sequence[Path] | None = None,
    *,
    strategy: str | None = None,
    chunk_size: int | None = None,
    reset: bool = False,
    progress: Callable[[str], None] | None = None,
    embed_progress: Callable[[int, int], None] | None = None,
    on_progress: Callable[[IngestProgress], None] | None = None,
) -> IngestReport:
    """Index documents (the configured folders, or the bundled sample office), embedding through the cache."""
    s = services.settings
    r = s.retrieval
    cache = EmbeddingCache(s.paths.cache_dir)
    inner = ingest_embedder(s.embedding, services.embedder)
    workers = getattr(inner, "workers", 1)
    embedder = CachedEmbedder(inner, cache, batch_size=s.embedding.batch_size * workers)  # each call keeps every worker busy
    try:
        report = ingest(
            list(paths or services.document_paths()),
            index=services.index,
            embedder=embedder,
            strategy=strategy or r.chunking,
            chunk_size=chunk_size or r.chunk_size,
            overlap=min(r.chunk_overlap, (chunk_size or r.chunk_size) // 2),
            reset=reset,
            progress=progress,
            embed_progress=embed_progress,
            on_progress=on_progress,
            sparse=BM25Encoder(avg_len=r.bm25_avg_len),
            max_bytes=int(r.max_document_mb * 1024 * 1024),
        )
    finally:
        cache.close()
        if inner is not services.embedder:
            inner.close()  # type: ignore[attr-defined]
    report.embedding = {"embedded": embedder.misses, "from_cache": embedder.hits}
    if report.updated or report.removed:
        from bot.learning.answer_memory import refresh_staleness

        refresh_staleness(services)  # answers citing a changed document are no longer reused
    return report


def set_document_active(services: Services, doc_id: str, active: bool) -> int:
    """Include or exclude a document from retrieval (kept in the index); returns how many chunks changed."""
    changed = services.index.set_active(doc_id, active)
    if changed and not active:
        from bot.learning.answer_memory import refresh_staleness

        refresh_staleness(services)  # an answer citing a withdrawn document is no longer reused
    return changed


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaluate_retriever(retriever: Retriever, qa: Sequence[dict], ks: Sequence[int]) -> dict:
    """Document-level recall@k, MRR (over the top max(k)) and per-query latency of a retriever."""
    kmax = max(ks)
    hits_at = dict.fromkeys(ks, 0)
    rr, latencies = 0.0, []
    retriever.retrieve("warm up", 1)
    for row in qa:
        gold = row["doc"] if isinstance(row["doc"], list) else [row["doc"]]
        start = time.perf_counter()
        hits = retriever.retrieve(row["question"], kmax)
        latencies.append((time.perf_counter() - start) * 1000)
        # rank of the first retrieved chunk that belongs to a relevant document
        rank = next((i for i, h in enumerate(hits, start=1) if h.chunk.doc_id in gold), None)
        if rank:
            rr += 1 / rank
            for k in ks:
                hits_at[k] += rank <= k
    n = max(1, len(qa))
    out: dict = {f"recall@{k}": hits_at[k] / n for k in ks}
    out.update({"mrr": rr / n, "latency_ms_p50": float(np.percentile(latencies, 50)) if latencies else 0.0, "latency_ms_p95": float(np.percentile(latencies, 95)) if latencies else 0.0, "n": len(qa)})
    return out


def evaluate_retrieval(services: Services, qa: Sequence[dict], ks: Sequence[int]) -> dict:
    """Document-level recall@k, MRR and query latency (embedding + search) for the current index."""
    return evaluate_retriever(services.retriever, qa, ks)
