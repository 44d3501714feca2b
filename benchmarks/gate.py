"""Gate benchmark: train offline from the fiusac documents only, evaluate on real questions.

Protocol (the figures in the issue-4 report):
  orienta --data-dir /tmp/g4 ingest ../shared/corpora/fiusac/text     # once (this script does it if the index is empty)
  .venv/bin/python benchmarks/gate.py [--data-dir /tmp/g4]
Trains every model x {full, balanced} x feature set on the offline synthetic dataset built from the index alone,
evaluates with in-domain = fiusac/qa_dev.jsonl questions, out-of-domain = ood/squad_es_dev.jsonl, and times
a decision excluding the embedding. Prints a table and writes benchmarks/results/gate.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): keep it off the import path
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

from bot.learning.gate_training import CachedQueries  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers.evaluation import binary_report  # noqa: E402
from classifiers.features import FeatureSpace  # noqa: E402
from classifiers.training import offline_dataset, train_gate  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora") if p.exists()), ROOT.parent / "shared" / "corpora")  # a worktree sits one level deeper
FEATURE_SETS = [
    "embedding", "similarity", "tfidf", "lexical", "embedding+similarity", "similarity+lexical",
    "embedding+similarity+lexical", "similarity+tfidf+lexical", "embedding+similarity+tfidf+lexical",
]
MODELS = ["knn", "svm", "logreg"]


class EmbeddingCache:
    """Query embeddings by text, kept on disk between runs of the benchmark."""

    def __init__(self, embedder, path: Path) -> None:
        self.embedder, self.path = embedder, path
        self.vecs: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path, allow_pickle=False)
            self.vecs = dict(zip(data["keys"].tolist(), data["vecs"]))

    def __call__(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = sorted({(k, t) for k, t in zip(keys, texts) if k not in self.vecs})
        if missing:
            vecs = self.embedder.embed_queries([t for _, t in missing])
            self.vecs.update({k: v for (k, _), v in zip(missing, vecs)})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(self.path, keys=np.array(list(self.vecs)), vecs=np.stack(list(self.vecs.values())))
        return np.stack([self.vecs[k] for k in keys])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/g4"))
    ap.add_argument("--features", nargs="*", default=FEATURE_SETS)
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gate.json")
    args = ap.parse_args()

    services = Services(load_settings(data_dir=args.data_dir))
    if not services.index.all_chunks():
        ingest_documents(services, [SHARED / "fiusac" / "text"])
    pairs = services.index.all_chunks(with_vectors=True)
    chunks, vectors = [c for c, _ in pairs], np.stack([v for _, v in pairs])
    embed = EmbeddingCache(CachedQueries(services), args.data_dir / "cache" / "gate_bench_queries.npz")  # behind it, the data dir's embedding cache

    examples = offline_dataset(chunks)
    t0 = time.perf_counter()
    train_vecs = embed([e.text for e in examples])
    ins = [r["question"] for r in read_jsonl(SHARED / "fiusac" / "qa_dev.jsonl")]
    outs = [r["question"] for r in read_jsonl(SHARED / "ood" / "squad_es_dev.jsonl")]
    eval_texts, y = ins + outs, [1] * len(ins) + [0] * len(outs)
    eval_vecs = embed(eval_texts)
    embed_s = time.perf_counter() - t0

    rows = []
    for features in args.features:
        space = FeatureSpace.fit(features, chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
        dense, sparse = space.transform(eval_texts, query_vecs=eval_vecs)
        for model in args.models:
            if model == "knn" and features == "tfidf":
                continue
            for balanced in (False, True):
                gate = train_gate(examples, space=space, query_vecs=train_vecs, model=model, balanced=balanced, embedder=services.embedder)
                p = gate.probabilities_from_features(dense, sparse)
                rep = binary_report(y, (p >= gate.threshold).astype(int).tolist())
                lat = []
                for i in range(0, len(eval_texts), 23):  # one message at a time, embedding excluded
                    s = time.perf_counter()
                    d1, s1 = space.transform([eval_texts[i]], query_vecs=eval_vecs[i : i + 1])
                    gate.probabilities_from_features(d1, s1)
                    lat.append((time.perf_counter() - s) * 1000)
                row = {
                    "model": model, "balanced": balanced, "features": features, "threshold": gate.threshold,
                    "n_train_in": gate.meta["n_in"], "n_train_out": gate.meta["n_out"],
                    "heldout_synthetic_f1_in": gate.meta["heldout"]["f1_in"], "heldout_synthetic_f1_out": gate.meta["heldout"]["f1_out"],
                    "decision_ms_median": statistics.median(lat), "decision_ms_p95": float(np.percentile(lat, 95)),
                    **{k: rep[k] for k in ("f1_in", "f1_out", "precision_in", "recall_in", "precision_out", "recall_out", "accuracy", "confusion")},
                }
                rows.append(row)
                print(f"{model:6} {'bal' if balanced else 'full':4} {features:38} F1in={rep['f1_in']:.3f} F1out={rep['f1_out']:.3f} acc={rep['accuracy']:.3f} thr={gate.threshold:.2f} held={row['heldout_synthetic_f1_in']:.2f}/{row['heldout_synthetic_f1_out']:.2f} {row['decision_ms_median']:.2f}ms", flush=True)
    result = {
        "protocol": "train offline from fiusac/text index only; eval in=fiusac/qa_dev.jsonl, out=ood/squad_es_dev.jsonl",
        "embedder": services.embedder.name, "n_chunks": len(chunks), "n_examples": len(examples),
        "n_eval_in": len(ins), "n_eval_out": len(outs), "embedding_seconds": embed_s, "rows": rows,
        "note": "decision latency excludes the embedding; 2 shared CPU cores, timings are noisy",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    best = max(rows, key=lambda r: min(r["f1_in"], r["f1_out"]))
    print(f"\nbest by min(F1): {best['model']} {'balanced' if best['balanced'] else 'full'} {best['features']}: F1 in {best['f1_in']:.3f} / out {best['f1_out']:.3f}")
    services.close()


if __name__ == "__main__":
    main()
