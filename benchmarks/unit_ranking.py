"""Learned unit ranking on fiusac: precision@1 on held-out dev questions, hand score vs models trained on synthetic and dev-train pairs.

  nice -n 10 /work/main/.venv/bin/python benchmarks/unit_ranking.py [--corpus ../shared/corpora/fiusac] [--data-dir /tmp/orienta-bench-offline] [--save-model FILE]
Indexes fiusac/text (incrementally), splits fiusac/qa_dev.jsonl by a hash of the question into a train half and a held-out
half, writes synthetic questions from the index's own units, and trains the unit ranker on (a) synthetic pairs only and
(b) synthetic + dev-train pairs. A candidate "answers" a dev question when it holds the largest share of the reference
answer's content words (>= 0.35, within 0.75 of the best candidate); questions where no candidate does are not counted.
precision@1 = share of counted held-out questions whose best-ranked unit answers, split by question kind (course-plan
lookups vs rules/procedures/guides). Writes benchmarks/results/unit_ranking.json.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.generation.ranker_data import Labelled, build_pairs, split, synthetic_questions  # noqa: E402
from pipeline.generation.ranking import fit, precision_at_1  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

FIUSAC = ROOT.parent / "shared" / "corpora" / "fiusac"


def is_plan(row: dict) -> bool:
    doc = row.get("doc")
    return any(str(d).startswith("pensum_") for d in (doc if isinstance(doc, list) else [doc]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=FIUSAC)
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-offline"))
    ap.add_argument("--per-document", type=int, default=40, help="Synthetic questions per document.")
    ap.add_argument("--save-model", type=Path, default=None, help="Also write the synthetic-only model here.")
    ap.add_argument("--pairs-cache", type=Path, default=None, help="Keep the built pairs here (pickle) and reuse them while the file exists.")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "unit_ranking.json")
    args = ap.parse_args()
    if not args.corpus.exists():
        sys.exit(f"shared corpus not available at {args.corpus}")
    settings = load_settings(data_dir=args.data_dir)
    settings.paths.documents = [args.corpus / "text"]
    settings.llm.provider = "extractive"
    services = Services(settings)
    ingest_documents(services)
    gen = services.generator()
    r = settings.retrieval
    gen.ranker = None

    def retrieve(q: str):
        return services.retriever.retrieve(q, r.k, support=r.support_chunks)

    gen.generate("¿Cuándo es el examen?", retrieve("¿Cuándo es el examen?"))  # corpus statistics
    t0 = time.perf_counter()
    qa = read_jsonl(args.corpus / "qa_dev.jsonl")
    train_rows, test_rows = split(qa)
    if args.pairs_cache and args.pairs_cache.exists():
        synthetic, dev_train, test = pickle.loads(args.pairs_cache.read_bytes())
    else:
        chunks = [c for c, _ in services.index.all_chunks()]
        synthetic = build_pairs(gen, retrieve, synthetic_questions(chunks, per_document=args.per_document))
        dev_train = build_pairs(gen, retrieve, [Labelled(x["question"], "dev", reference=x["answer"]) for x in train_rows])
        test = {kind: build_pairs(gen, retrieve, [Labelled(x["question"], "dev", reference=x["answer"]) for x in test_rows if is_plan(x) == (kind == "course_plan")]) for kind in ("course_plan", "rules_procedures")}
        if args.pairs_cache:
            args.pairs_cache.write_bytes(pickle.dumps((synthetic, dev_train, test)))
    build_s = time.perf_counter() - t0
    models = {"hand": None, "synthetic": fit(synthetic), "dev_train": fit(dev_train), "synthetic+dev_train": fit(synthetic + dev_train)}
    if args.save_model:
        models["synthetic"].save(args.save_model)  # type: ignore[union-attr]
    results = {}
    for name, model in models.items():
        row = {}
        for kind, pairs in test.items():
            p, n = precision_at_1(model, pairs)
            row[kind] = {"precision_at_1": round(p, 4), "n": n}
        p, n = precision_at_1(model, [x for pairs in test.values() for x in pairs])
        row["all"] = {"precision_at_1": round(p, 4), "n": n}
        results[name] = row
    payload = {
        "qa": "fiusac/qa_dev.jsonl",
        "split": {"train": len(train_rows), "held_out": len(test_rows), "by": "sha256('unit-ranker:' + question) < 0.5"},
        "pairs": {"synthetic": len(synthetic), "dev_train": len(dev_train), "held_out_counted": {k: len(v) for k, v in test.items()}},
        "embedding": f"{settings.embedding.backend}/{settings.embedding.model}",
        "build_s": round(build_s, 1),
        "precision_at_1": results,
        "note": "held-out questions were never used to train; 'hand' is today's hand-weighted unit score",
    }
    services.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(payload, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
