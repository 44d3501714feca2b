"""Near-miss gate benchmark: whose business a message is, per category, on hand-written development sets.

Protocol:
  PYTHONPATH=$PWD python benchmarks/gate_near_miss.py --label before   # on the code before the change
  PYTHONPATH=$PWD python benchmarks/gate_near_miss.py --label after
For each office (FIUSAC text documents from the shared corpora, the bundled sample office) the gate is trained
offline from the indexed documents alone, with the configured defaults (features, model, balance), then scored on
tests/classifiers/data/gate_dev_<office>.jsonl (written by hand, never used for training):
  - per category: how many were let through (judged in domain) and turned away;
  - the domain boundary (in domain = answerable + no-info vs out of domain), on near misses only and on everything;
  - the information boundary (answerable vs no-info, among in-domain messages), when the gate has three outcomes.
Also the SQuAD-es check (in = fiusac/qa_dev.jsonl, out = ood/squad_es_dev.jsonl) and the decision latency per message
excluding the embedding (query vectors are served from memory). Results go under their label in
benchmarks/results/gate_near_miss.json; other labels already in the file are kept, so before and after sit side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and Path(p).resolve() != Path(__file__).resolve().parent]

from bot.learning.gate_training import CachedQueries  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from classifiers.evaluation import binary_report  # noqa: E402
from classifiers.features import FeatureSpace  # noqa: E402
from classifiers.training import offline_dataset, train_gate  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

SHARED = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parents[1] / "shared" / "corpora") if p.exists()), ROOT.parent / "shared" / "corpora")  # a worktree sits one level deeper
DEV = ROOT / "tests" / "classifiers" / "data"
OFFICES = {
    "fiusac": (SHARED / "fiusac" / "text", DEV / "gate_dev_fiusac.jsonl"),
    "sample": (ROOT / "bot" / "demo" / "sample_office" / "docs", DEV / "gate_dev_sample.jsonl"),
}


class MemoEmbedder:
    """The real embedder behind a memo (kept on disk between runs), so decision timings exclude the embedding."""

    def __init__(self, inner, path: Path) -> None:
        self.inner, self.name, self.dim, self.memo, self.path = inner, inner.name, inner.dim, {}, path
        if path.exists():
            data = np.load(path, allow_pickle=False)
            self.memo = dict(zip(data["keys"].tolist(), data["vecs"]))

    def save(self) -> None:
        np.savez(self.path, keys=np.array(list(self.memo)), vecs=np.stack(list(self.memo.values())))

    def embed_queries(self, texts):
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        todo = {k: t for k, t in zip(keys, texts) if k not in self.memo}
        if todo:
            vecs = self.inner.embed_queries(list(todo.values()))
            self.memo.update(zip(todo, vecs))
        return np.stack([self.memo[k] for k in keys]).astype(np.float32)

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)


def outcomes(gate, texts, embedder) -> list[str]:
    """'answerable' | 'no_info' | 'ood' for each text (a two-outcome gate says 'answerable' for everything it lets in)."""
    if hasattr(gate, "outcomes"):
        return [{"out_of_domain": "ood"}.get(d.outcome, d.outcome) for d in gate.outcomes(texts, embedder, explain=0)]
    p = gate.probabilities(texts, embedder)
    return ["answerable" if x >= gate.threshold else "ood" for x in p]


def office_figures(gate, rows: list[dict], embedder) -> dict:
    got = outcomes(gate, [r["text"] for r in rows], embedder)
    cats: dict[str, dict] = {}
    for r, o in zip(rows, got):
        c = cats.setdefault(r["category"], {"label": r["label"], "n": 0, "let_through": 0, "turned_away": 0, "no_info": 0, "misses": []})
        c["n"] += 1
        c["let_through" if o != "ood" else "turned_away"] += 1
        c["no_info"] += o == "no_info"
        wrong = (o == "ood") != (r["label"] == "ood")
        if wrong:
            c["misses"].append(r["text"])
    y_dom = [int(r["label"] != "ood") for r in rows]
    p_dom = [int(o != "ood") for o in got]
    near = [i for i, r in enumerate(rows) if r["category"] != "far"]
    domain_near = binary_report([y_dom[i] for i in near], [p_dom[i] for i in near])
    domain_all = binary_report(y_dom, p_dom)
    info_rows = [i for i, r in enumerate(rows) if r["label"] != "ood" and got[i] != "ood"]
    info = None
    if hasattr(gate, "outcomes") and info_rows:
        info = binary_report([int(rows[i]["label"] == "answerable") for i in info_rows], [int(got[i] == "answerable") for i in info_rows])
        info = {k: v for k, v in info.items()}
    informal = cats.get("informal", {})
    return {
        "categories": cats,
        "domain_near_miss": {k: domain_near[k] for k in ("f1_in", "f1_out", "recall_in", "recall_out", "confusion")},
        "domain_all": {k: domain_all[k] for k in ("f1_in", "f1_out", "recall_in", "recall_out", "confusion")},
        "information": None if info is None else {"f1_answerable": info["f1_in"], "f1_no_info": info["f1_out"], "confusion": info["confusion"], "note": "among in-domain messages the gate let in"},
        "informal_recall": informal.get("let_through", 0) / max(1, informal.get("n", 0)),
        "max_near_miss_let_through_rate": max((c["let_through"] / c["n"] for k, c in cats.items() if c["label"] == "ood" and k != "far"), default=0.0),
    }


def train_for(services: Services, embedder) -> tuple:
    pairs = services.index.all_chunks(with_vectors=True)
    chunks, vectors = [c for c, _ in pairs], np.stack([v for _, v in pairs])
    g = services.settings.gate
    space = FeatureSpace.fit(g.features, chunk_texts=[c.embed_text for c in chunks], chunk_vectors=vectors)
    examples = offline_dataset(chunks)
    t0 = time.perf_counter()
    gate = train_gate(examples, space=space, embedder=embedder, query_vecs=embedder.embed_queries([e.text for e in examples]) if space.needs_embedding else None, model=g.model, balanced=g.balanced, min_in_recall=g.min_in_recall)
    return gate, len(chunks), len(examples), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True, help="before | after | any name: the key the figures go under")
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/gate_near_miss"))
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "gate_near_miss.json")
    args = ap.parse_args()
    result: dict = {"label": args.label}
    for office, (docs, dev) in OFFICES.items():
        services = Services(load_settings(data_dir=args.data_dir / office))
        if not services.index.all_chunks():
            ingest_documents(services, [docs])
        # behind the memo, the data dir's embedding cache: a training text embedded by `gate train` there is not embedded again
        embedder = MemoEmbedder(CachedQueries(services), args.data_dir / office / "bench_queries.npz")
        gate, n_chunks, n_examples, train_s = train_for(services, embedder)
        if hasattr(gate, "info_coef"):
            figures_extra = {"information_heldout_synthetic": gate.meta.get("information_heldout")}
        else:
            figures_extra = {}
        rows = read_jsonl(dev)
        figures = office_figures(gate, rows, embedder)
        figures |= figures_extra | {"n_chunks": n_chunks, "n_training_examples": n_examples, "train_seconds_with_embedding": train_s, "threshold": gate.threshold, "features": gate.features, "model": gate.model}
        if office == "fiusac":
            ins = [r["question"] for r in read_jsonl(SHARED / "fiusac" / "qa_dev.jsonl")]
            outs = [r["question"] for r in read_jsonl(SHARED / "ood" / "squad_es_dev.jsonl")]
            texts = ins + outs
            embedder.embed_queries(texts)
            got = outcomes(gate, texts, embedder)
            rep = binary_report([1] * len(ins) + [0] * len(outs), [int(o != "ood") for o in got])
            figures["squad_es"] = {k: rep[k] for k in ("f1_in", "f1_out", "confusion")}
            lat = []
            for text in texts[::5]:
                s = time.perf_counter()
                outcomes(gate, [text], embedder)
                lat.append((time.perf_counter() - s) * 1000)
            figures["decision_ms_median"] = float(np.median(lat))
            figures["decision_ms_p95"] = float(np.percentile(lat, 95))
        embedder.save()
        result[office] = figures
        dn = figures["domain_near_miss"]
        print(f"{office}: near-miss F1 in {dn['f1_in']:.3f} / out {dn['f1_out']:.3f}; informal recall {figures['informal_recall']:.3f}; max near-miss let through {figures['max_near_miss_let_through_rate']:.2f}")
        for cat, c in figures["categories"].items():
            print(f"   {cat:18} n={c['n']:3} let through {c['let_through']:3} turned away {c['turned_away']:3} no-info {c['no_info']:3}")
        if "squad_es" in figures:
            print(f"   SQuAD-es F1 in {figures['squad_es']['f1_in']:.3f} / out {figures['squad_es']['f1_out']:.3f}; decision p95 {figures['decision_ms_p95']:.2f} ms")
        services.close()
    old = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    old.setdefault("protocol", __doc__.strip().splitlines()[0])
    old[args.label] = result
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(old, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
