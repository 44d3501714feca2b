"""Operations behind the CLI and the demo: ingestion and retrieval evaluation."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bot.services import Services
from pipeline.ingest import IngestReport, ingest


def ingest_documents(services: Services, paths: Sequence[Path] | None = None, *, strategy: str | None = None, chunk_size: int | None = None, reset: bool = False, progress: Callable[[str], None] | None = None) -> IngestReport:
    """Index documents (the configured folders, or the bundled sample office)."""
    r = services.settings.retrieval
    return ingest(
        list(paths or services.document_paths()),
        index=services.index,
        embedder=services.embedder,
        strategy=strategy or r.chunking,
        chunk_size=chunk_size or r.chunk_size,
        overlap=r.chunk_overlap,
        reset=reset,
        progress=progress,
    )


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaluate_retrieval(services: Services, qa: Sequence[dict], ks: Sequence[int]) -> dict:
    """Document-level recall@k, MRR and query latency for the current index."""
    kmax = max(ks)
    hits_at = dict.fromkeys(ks, 0)
    rr, latencies = 0.0, []
    retriever = services.retriever
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
    out = {f"recall@{k}": hits_at[k] / n for k in ks}
    out.update({"mrr": rr / n, "latency_ms_p50": float(np.percentile(latencies, 50)) if latencies else 0.0, "latency_ms_p95": float(np.percentile(latencies, 95)) if latencies else 0.0, "n": len(qa)})
    return out
