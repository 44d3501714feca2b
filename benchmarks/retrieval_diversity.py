"""Document diversity in the top 5: recall@1/@5 when at most N chunks per document are kept.

Run (after `orienta --data-dir D ingest ../shared/corpora/fiusac/text`):
  .venv/bin/python benchmarks/retrieval_diversity.py --data-dir D [--qa ../shared/corpora/fiusac/qa_dev.jsonl]
Prints a table and writes benchmarks/results/retrieval_diversity.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)  # keep benchmarks/ off the path (a module there could shadow the stdlib)

from bot.wiring.services import Services  # noqa: E402
from pipeline.retrieval import cap_per_document  # noqa: E402
from pipeline.settings import Settings  # noqa: E402


def diversify(hits, cap: int | None) -> list[str]:
    """Document ids of the hits left after the product's cap (at most `cap` chunks per document)."""
    return [h.chunk.doc_id for h in cap_per_document(hits, cap)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--qa", type=Path, default=ROOT.parent / "shared" / "corpora" / "fiusac" / "qa_dev.jsonl")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "retrieval_diversity.json")
    args = ap.parse_args()
    settings = Settings(data_dir=args.data_dir, _env_file=None)  # type: ignore[call-arg]
    settings.retrieval.max_chunks_per_document = 0  # the raw ranking; the caps are applied below
    services = Services(settings)
    qa = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, misses = [], {}
    for mode in ("dense", "sparse", "hybrid"):
        settings.retrieval.mode = mode  # type: ignore[assignment]
        services.__dict__.pop("retriever", None)
        lists = [services.retriever.retrieve(q["question"], 20) for q in qa]
        for cap in (None, 1, 2, 3):
            r1 = r5 = 0
            for q, docs in zip(qa, lists, strict=True):
                gold = q["doc"] if isinstance(q["doc"], list) else [q["doc"]]
                top = diversify(docs, cap)
                r1 += bool(top) and top[0] in gold
                r5 += any(d in gold for d in top[:5])
            if mode == "hybrid" and cap == 1:
                for q, docs in zip(qa, lists, strict=True):
                    gold = q["doc"] if isinstance(q["doc"], list) else [q["doc"]]
                    if not any(d in gold for d in diversify(docs, 1)[:5]):
                        misses.setdefault(gold[0], []).append({"question": q["question"], "top5": diversify(docs, 1)[:5]})
            rows.append({"mode": mode, "max_chunks_per_doc": cap, "recall@1": round(r1 / len(qa), 4), "recall@5": round(r5 / len(qa), 4), "n": len(qa)})
            print(f"{mode:7s} max/doc {str(cap or '-'):>2s}  R@1 {r1 / len(qa):.3f}  R@5 {r5 / len(qa):.3f}", flush=True)
    services.close()
    per_doc = {d: len(qs) for d, qs in sorted(misses.items(), key=lambda kv: -len(kv[1]))}
    print(f"hybrid, one chunk per document: questions missed at 5, by expected document: {per_doc}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"qa": str(args.qa.name), "rows": rows, "hybrid_cap1_misses_at_5": misses}, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
