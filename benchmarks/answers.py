"""Answer-evaluation benchmark on fiusac: RAG vs derivation with the non-LLM measures (offline generator).

  .venv/bin/python benchmarks/answers.py [--data-dir /tmp/orienta-bench-answers] [--limit N] [--k 5] [--methods rag,derivation]
Indexes ../shared/corpora/fiusac/text once (configured embedder and chunking), then runs `eval answers` over
fiusac/qa_dev.jsonl for each method. Without an LLM configured both methods run the offline extractive engine, so
the figures are the non-LLM measures (token F1 and edit distance against the reference answer, answered rate,
gold-document hit, grounding) and are expected to be identical; with ANTHROPIC_API_KEY set, the judge runs too.
Results are cached in the data dir's database, so a re-run only computes what changed.
Prints a table and writes benchmarks/results/answers.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/queue.py would shadow the stdlib `queue` (multiprocessing, joblib): keep this folder off the path
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.ops.answer_eval import evaluate_answers, grid  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402

FIUSAC = ROOT.parent / "shared" / "corpora" / "fiusac"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-answers"))
    ap.add_argument("--limit", type=int, default=None, help="An evenly spaced sample of N questions.")
    ap.add_argument("--k", default="5")
    ap.add_argument("--methods", default="rag,derivation")
    args = ap.parse_args()
    if not FIUSAC.exists():
        sys.exit(f"shared corpus not available at {FIUSAC}")
    settings = load_settings(data_dir=args.data_dir)
    settings.paths.documents = [FIUSAC / "text"]
    services = Services(settings)
    t0 = time.perf_counter()
    if not services.index.documents():
        ingest_documents(services)
    index_s = time.perf_counter() - t0
    qa = read_jsonl(FIUSAC / "qa_dev.jsonl")
    if args.limit:
        qa = qa[:: max(1, len(qa) // args.limit)][: args.limit]
    configs = grid(methods=args.methods.split(","), ks=[int(k) for k in args.k.split(",")], chunkings=[settings.retrieval.chunking])
    t0 = time.perf_counter()
    report = evaluate_answers(services, qa, configs, progress=lambda m: print(m, file=sys.stderr))
    run_s = time.perf_counter() - t0
    cols = ("label", "ran", "answered_rate", "correctness", "total", "token_f1", "edit_distance", "faithfulness", "doc_hit_rate", "acceptable_rate", "latency_ms_p50")
    print(" | ".join(cols))
    for r in report["configs"]:
        print(" | ".join(str(r[c] if not isinstance(r[c], float) else round(r[c], 4)) for c in cols))
    print(f"{report['n_questions']} questions, {report['computed']} computed, {report['cached']} cached, {run_s:.1f} s (index {index_s:.1f} s); embedder {settings.embedding.backend}/{settings.embedding.model}, chunking {settings.retrieval.chunking}, mode {settings.retrieval.mode}")
    if report["note"]:
        print(report["note"])
    print("(2-core machine shared with other jobs: timings are noisy)")
    out = ROOT / "benchmarks" / "results" / "answers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"qa": "fiusac/qa_dev.jsonl", "n_questions": report["n_questions"], "embedding": f"{settings.embedding.backend}/{settings.embedding.model}", "chunking": settings.retrieval.chunking, "mode": settings.retrieval.mode, "run_s": round(run_s, 1), "computed": report["computed"], "cached": report["cached"], "note": report["note"], "configs": report["configs"]}
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
