"""Redaction recall by type and precision on hand-written Guatemalan/FIUSAC examples, plus false positives on the FIUSAC documents.

Run: nice -n 10 python benchmarks/redaction.py   (writes benchmarks/results/redaction.json)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its modules could shadow the standard library

from pipeline.redaction_eval import evaluate, fiusac_false_positives  # noqa: E402

CASES = REPO / "tests" / "pipeline" / "data" / "redaction_cases.jsonl"  # written while developing the rules
HOLDOUT = REPO / "tests" / "pipeline" / "data" / "redaction_holdout_gt.jsonl"  # written afterwards; first run: recall 0.913 (21/23), precision 1.0
FIUSAC = REPO.parent / "shared" / "corpora" / "fiusac" / "text"


def main() -> None:
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    holdout = [json.loads(line) for line in HOLDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = {"cases": evaluate(cases), "holdout": evaluate(holdout), "fiusac": fiusac_false_positives(FIUSAC)}
    out = REPO / "benchmarks" / "results" / "redaction.json"
    out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    c = result["cases"]
    print(f"recall {c['recall']} precision {c['precision']} by type {c['recall_by_type']}")
    h = result["holdout"]
    print(f"holdout: recall {h['recall']} precision {h['precision']} by type {h['recall_by_type']}")
    print("fiusac", {k: v for k, v in (result["fiusac"] or {}).items() if k != "examples"})
    for m in c["misses"]:
        print("MISS", m)
    for f in c["false_positives"]:
        print("FP", f)
    for e in (result["fiusac"] or {}).get("examples", []):
        print("FIUSAC FP", e)


if __name__ == "__main__":
    main()
