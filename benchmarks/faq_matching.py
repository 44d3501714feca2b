"""FAQ question matching: how the similarity of a student's question to an FAQ entry's own question separates the
questions the FAQ answers from the others, and what a threshold matches.

  nice -n 10 .venv/bin/python benchmarks/faq_matching.py --data-dir DIR [--qa FILE.jsonl ...] [--out FILE.json]
Reads the FAQ entries (units of kind "faq") of an index built from ../shared/corpora/fiusac/text (benchmarks/offline_drafts.py
builds one with the same settings). Per question: the most similar entry's question (cosine of query embeddings), whether
that entry holds the asked object (pipeline.generation.faq_match.object_held), and the entry a reference answer names
(the entry whose answer holds most of the reference's content words). Per threshold: FAQ questions matched to their
entry (right), matched to another entry (wrong), and other documents' questions matched to an entry (false), by the
similarity alone and with the spread (how far the entry stands above the document's other entries, faq_match.spread_of).
The reference's entry is read from its words: a reference that shares more words with another entry's answer than with
its own counts its match as wrong, so read the details before trusting a "wrong".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.ops.documents import read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.generation.asking import ask  # noqa: E402
from pipeline.generation.faq_match import MIN_OBJECT, MIN_SIMILARITY, MIN_SPREAD, FaqMatcher, object_held, spread_of  # noqa: E402
from pipeline.settings import load_settings  # noqa: E402
from pipeline.text import STOPWORDS_ES, stem, tokens  # noqa: E402

FIUSAC = ROOT.parent / "shared" / "corpora" / "fiusac"
FAQ_DOC = "preguntas_frecuentes"
THRESHOLDS = (0.84, 0.86, 0.87, 0.88, 0.89, 0.90, 0.91, 0.92, 0.94)


def content_words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w not in STOPWORDS_ES and len(w) > 2}


def evaluate(rows: list[dict], thresholds=THRESHOLDS, min_object: float = MIN_OBJECT, min_spread: float | None = None) -> dict:
    out = {}
    for th in thresholds:
        right = wrong = false = 0
        for r in rows:
            hit = r["sim"] >= th and r["object"] >= min_object and (min_spread is None or (r["spread"] is not None and r["spread"] >= min_spread))
            if not hit:
                continue
            if r["faq"]:
                right += r["entry"] == r["gold_entry"]
                wrong += r["entry"] != r["gold_entry"]
            else:
                false += 1
        n_faq = sum(r["faq"] for r in rows)
        out[f"{th:.2f}"] = {"right": right, "wrong": wrong, "false": false, "faq_questions": n_faq, "other_questions": len(rows) - n_faq}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True, help="An index of <corpus>/text (see benchmarks/offline_drafts.py).")
    ap.add_argument("--corpus", type=Path, default=FIUSAC)
    ap.add_argument("--qa", type=Path, action="append", default=None, help="Question sets (default: <corpus>/qa_dev.jsonl); repeatable.")
    ap.add_argument("--details", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "faq_matching.json")
    args = ap.parse_args()
    if not args.corpus.exists():
        sys.exit(f"shared corpus not available at {args.corpus}")
    settings = load_settings(data_dir=args.data_dir)
    settings.paths.documents = [args.corpus / "text"]
    services = Services(settings)
    if not services.index.exists():
        sys.exit(f"no index in {args.data_dir}: run benchmarks/offline_drafts.py --data-dir {args.data_dir} first")
    entries = {}
    for chunk, _ in services.index.all_chunks():
        for u in chunk.units or ():
            if u.kind == "faq" and u.context:
                entries.setdefault(u.context.strip(), u.text)
    if not entries:
        sys.exit("the index holds no FAQ entry")
    matcher = FaqMatcher(services.embedder)
    names = list(entries)
    faq_vecs = np.stack(matcher.vectors(names))
    result: dict = {"entries": len(names), "threshold": MIN_SIMILARITY, "min_spread": MIN_SPREAD, "min_object": MIN_OBJECT, "sets": {}}
    details = []
    for qa_path in args.qa or [args.corpus / "qa_dev.jsonl"]:
        rows = []
        for row in read_jsonl(qa_path):
            q = row["question"]
            gold = row.get("doc") or row.get("document")
            is_faq = FAQ_DOC in (gold if isinstance(gold, list) else [gold])
            qv = np.asarray(services.embedder.embed_queries([q])[0], dtype=np.float32)
            qv = qv / (float(np.linalg.norm(qv)) or 1.0)
            sims = faq_vecs @ qv
            i = int(np.argmax(sims))
            ref = content_words(row.get("answer") or "")
            gold_entry = max(names, key=lambda n: len(ref & content_words(entries[n]))) if is_faq and ref else None
            asked = ask(q)
            rows.append({"question": q, "faq": is_faq, "entry": names[i], "sim": round(float(sims[i]), 4), "object": round(object_held(asked, names[i], entries[names[i]]), 3), "spread": spread_of(float(sims[i]), [float(x) for x in sims]), "gold_entry": gold_entry,
                         "gold_sim": round(float(sims[names.index(gold_entry)]), 4) if gold_entry else None})
        name = str(qa_path.relative_to(ROOT)) if qa_path.is_relative_to(ROOT) else qa_path.name
        result["sets"][name] = {"similarity_alone": evaluate(rows), f"with_spread_{MIN_SPREAD}": evaluate(rows, min_spread=MIN_SPREAD)}
        details += [{"set": name} | r for r in rows]
    services.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.details:
        args.details.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in details), encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
