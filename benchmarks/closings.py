"""Closings versus requests: how many thank-yous are acknowledged and how many real requests still reach staff.

Each message of benchmarks/data/closings.jsonl (written for this benchmark, never used to train the sentence
classifier) goes through what intake and drafting do: clean_text, redact, then the closing decision. A message
cleaning empties counts as lost (it would be quarantined as empty). Figures are reported for the `test` split; the
`dev` split is the one the rules and threshold were looked at with.

Run: PYTHONPATH=$PWD python benchmarks/closings.py [--split test|dev|all] [--failures]   (writes benchmarks/results/closings.json)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its modules could shadow the standard library

from pipeline.acknowledgement import classify  # noqa: E402
from pipeline.cleaning import clean_text  # noqa: E402
from pipeline.redaction import redact  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "closings.jsonl"
RESULT = REPO / "benchmarks" / "results" / "closings.json"


def decide(text: str) -> tuple[str, str]:
    """What intake + drafting would do with the message: ("acknowledged" | "drafted" | "emptied", reason)."""
    cleaned = clean_text(text)
    if not cleaned.strip():
        return "emptied", "cleaning left nothing"
    verdict = classify(redact(cleaned).text)
    return ("acknowledged" if verdict.closing else "drafted"), verdict.reason


def run(split: str) -> dict:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if split == "all" or r["split"] == split]
    started = time.perf_counter()
    results = []
    for r in rows:
        outcome, reason = decide(r["text"])
        results.append(r | {"outcome": outcome, "reason": reason})
    elapsed = time.perf_counter() - started
    closings = [r for r in results if r["label"] == "closing"]
    requests = [r for r in results if r["label"] == "request"]
    shaped = [r for r in requests if r["kind"] == "closing_shaped"]
    acknowledged = [r for r in results if r["outcome"] == "acknowledged"]
    true_ack = [r for r in acknowledged if r["label"] == "closing"]
    return {
        "split": split,
        "n": len(results),
        "closings": len(closings),
        "closings_acknowledged": sum(r["outcome"] == "acknowledged" for r in closings),
        "closing_recall": len(true_ack) / len(closings) if closings else None,
        "closing_precision": len(true_ack) / len(acknowledged) if acknowledged else None,
        "requests": len(requests),
        "requests_drafted": sum(r["outcome"] == "drafted" for r in requests),
        "request_drafted_rate": sum(r["outcome"] == "drafted" for r in requests) / len(requests) if requests else None,
        "closing_shaped_requests": len(shaped),
        "closing_shaped_drafted": sum(r["outcome"] == "drafted" for r in shaped),
        "emptied_by_cleaning": sum(r["outcome"] == "emptied" for r in results),
        "ms_per_message": round(1000 * elapsed / max(len(results), 1), 2),
        "failures": [
            {"id": r["id"], "label": r["label"], "outcome": r["outcome"], "reason": r["reason"], "text": r["text"]}
            for r in results
            if (r["label"] == "closing") != (r["outcome"] == "acknowledged")
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=["test", "dev", "all"])
    parser.add_argument("--failures", action="store_true", help="print every misjudged message")
    args = parser.parse_args()
    report = run(args.split)
    summary = {k: v for k, v in report.items() if k != "failures"}
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    if args.failures:
        for f in report["failures"]:
            print(f"  [{f['label']} -> {f['outcome']}] {f['text']!r}  ({f['reason']})")
    if args.split == "test":
        RESULT.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
