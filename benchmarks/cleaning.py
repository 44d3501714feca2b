"""Cleaning accuracy on the bundled sample office (e-mails and Slack) and redaction recall on hand-written Spanish examples.

Run: .venv/bin/python benchmarks/cleaning.py   (writes benchmarks/results/cleaning.json)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its modules could shadow the standard library

from bot.email.parse import parse_email, skip_reason  # noqa: E402
from bot.errors import MalformedMessage  # noqa: E402
from bot.slack.intake import slack_plain_text  # noqa: E402
from pipeline.cleaning import clean_text  # noqa: E402
from pipeline.redaction import redact  # noqa: E402

SAMPLE = REPO / "bot" / "demo" / "sample_office"
EXAMPLES = REPO / "tests" / "pipeline" / "data" / "redaction_examples.jsonl"  # written while developing the rules
HOLDOUT = REPO / "tests" / "pipeline" / "data" / "redaction_holdout.jsonl"  # written afterwards, rules not tuned on it


def cleaning() -> dict:
    expected = json.loads((SAMPLE / "expected.json").read_text(encoding="utf-8"))
    rows = []
    for name, row in expected["emails"].items():
        try:
            parsed = parse_email((SAMPLE / "emails" / name).read_bytes())
        except MalformedMessage as exc:
            rows.append({"id": name, "kind": "email", "expected": row["outcome"], "got": f"quarantined ({exc})", "ok": row["outcome"] == "quarantined"})
            continue
        reason = skip_reason(parsed)
        if row["outcome"] == "skipped" or reason:
            ok = row["outcome"] == "skipped" and reason is not None and reason.split(":")[0] == row["skip_reason"]
            rows.append({"id": name, "kind": "email", "expected": row.get("skip_reason"), "got": reason, "ok": ok})
            continue
        got = clean_text(parsed.body_text)
        rows.append({"id": name, "kind": "email", "expected": row["question"], "got": got, "ok": got == row["question"]})
    events = [json.loads(line) for line in (SAMPLE / "slack" / "messages.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    for event, row in zip(events, expected["slack"]):
        got = clean_text(slack_plain_text(event["text"]))
        rows.append({"id": event["ts"], "kind": "slack", "expected": row["question"], "got": got, "ok": got == row["question"]})
    questions = [r for r in rows if r["kind"] == "slack" or (isinstance(r["expected"], str) and len(r["expected"]) > 20)]
    return {
        "n": len(rows), "exact": sum(r["ok"] for r in rows), "accuracy": sum(r["ok"] for r in rows) / len(rows),
        "questions_n": len(questions), "questions_exact": sum(r["ok"] for r in questions),
        "failures": [r for r in rows if not r["ok"]],
    }


def redaction(path: Path) -> dict:
    examples = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    per_type: dict[str, list[int]] = {}
    false_positives, clean_n = 0, 0
    for ex in examples:
        result = redact(ex["text"])
        for kind, values in ex["items"].items():
            for value in values:
                found = value not in result.text
                per_type.setdefault(kind, [0, 0])
                per_type[kind][0] += found
                per_type[kind][1] += 1
        if not ex["items"]:
            clean_n += 1
            false_positives += result.text != ex["text"]
    total_found = sum(v[0] for v in per_type.values())
    total = sum(v[1] for v in per_type.values())
    return {
        "items": total, "recall": total_found / total,
        "per_type": {k: {"found": v[0], "n": v[1], "recall": v[0] / v[1]} for k, v in sorted(per_type.items())},
        "clean_sentences": clean_n, "clean_sentences_altered": false_positives,
    }


def main() -> None:
    out = {"cleaning": cleaning(), "redaction": redaction(EXAMPLES), "redaction_holdout": redaction(HOLDOUT)}
    (REPO / "benchmarks" / "results").mkdir(parents=True, exist_ok=True)
    (REPO / "benchmarks" / "results" / "cleaning.json").write_text(json.dumps(out, indent=2, ensure_ascii=False))
    c = out["cleaning"]
    print(f"cleaning: {c['exact']}/{c['n']} exact ({c['accuracy']:.1%}); questions {c['questions_exact']}/{c['questions_n']}")
    for f in c["failures"]:
        print(f"  MISS {f['id']}: expected {f['expected']!r} got {f['got']!r}")
    for label in ("redaction", "redaction_holdout"):
        r = out[label]
        print(f"{label} recall: {r['recall']:.1%} of {r['items']} items; clean sentences altered: {r['clean_sentences_altered']}/{r['clean_sentences']}")
        print(f"  {'type':<16}{'found':>6}{'n':>4}{'recall':>8}")
        for kind, v in r["per_type"].items():
            print(f"  {kind:<16}{v['found']:>6}{v['n']:>4}{v['recall']:>8.1%}")


if __name__ == "__main__":
    main()
