"""Drafting from the approved-answer memory: a close repeat of an approved question gets the curated answer as its draft."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pipeline.answer_match import MatchThresholds, best_match
from pipeline.generation import Answer, Reference
from pipeline.index import Hit
from review import answers
from review.answer_models import CuratedAnswer
from review.db import session_scope

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger(__name__)


def current_hashes(services: "Services") -> dict[str, str | None]:
    """doc_id -> content hash of the active indexed documents."""
    return {doc_id: d.get("content_hash") for doc_id, d in services.index.documents().items() if d.get("active", True)}


def thresholds(services: "Services") -> MatchThresholds:
    d = services.settings.drafting
    return MatchThresholds(similarity=d.reuse_similarity, lexical=d.reuse_lexical)


def refresh_staleness(services: "Services") -> list[int]:
    """After the documents changed: flag stale the answers whose cited documents are not the indexed versions any more."""
    hashes = current_hashes(services)
    with session_scope(services.engine) as session:
        stale = answers.mark_stale_where_changed(session=session, current=hashes)
    if stale:
        log.info("curated answers %s are stale: the documents they cite changed", stale)
    return stale


def curated_draft(services: "Services", question: str) -> Answer | None:
    """The draft made from the closest curated answer whose cited documents are unchanged, or None (the normal path).

    Reads only: an answer whose documents changed is skipped here (the next closest is tried) and is flagged stale by
    `refresh_staleness` after ingestion. The indexed document versions are read only when a question matches.
    A close question is reused only when retrieval agrees: the best hit for the new question is a document the curated
    answer cites (a question about the same words but another passage — exam dates vs exam sign-up in the same
    document are told apart by the question's words, another document by this — goes the normal path). The search
    runs only when a question matches (about 25 ms).
    """
    if not services.settings.drafting.reuse_answers or not question.strip():
        return None
    with session_scope(services.engine) as session:
        candidates = answers.active_answers(session=session)
    if not candidates:
        return None
    from bot.gating import embed_queries_cached

    rows = [(a, q) for a in candidates for q in (a.question, *(a.aliases or []))]  # every wording staff approved the answer for
    vectors = embed_queries_cached(services, [q for _, q in rows])
    qvec = services.embedder.embed_queries([question])[0]
    hashes: dict[str, str | None] | None = None
    top_doc: list[str | None] = []
    while rows:
        match = best_match(question, qvec, [q for _, q in rows], vectors, thresholds(services))
        if match is None:
            return None
        found = rows[match.index][0]
        hashes = current_hashes(services) if hashes is None else hashes
        if not answers.changed_documents(found, hashes) and _retrieval_agrees(services, question, found, match.similarity, top_doc):
            return _answer(services, found, match.similarity, match.lexical)
        keep = [i for i, (a, _) in enumerate(rows) if a.id != found.id]
        rows, vectors = [rows[i] for i in keep], vectors[keep]
    return None


def _retrieval_agrees(services: "Services", question: str, found: CuratedAnswer, similarity: float, top_doc: list[str | None]) -> bool:
    """The new question's best hit is a document the curated answer cites (an answer citing none needs a near-identical question)."""
    cited = {r["doc_id"] for r in found.references or []}
    if not cited:
        return similarity >= thresholds(services).strong_similarity
    if not top_doc:  # searched once per question, only when some curated question matched
        hits = services.retriever.retrieve(question, 1)
        top_doc.append(hits[0].chunk.doc_id if hits else None)
    return top_doc[0] in cited


def _answer(services: "Services", found: CuratedAnswer, similarity: float, lexical: float) -> Answer:
    refs = [Reference(r["doc_id"], r.get("title") or r["doc_id"], r.get("url"), r.get("content_hash")) for r in found.references or []]
    flag = {
        "kind": answers.CURATED_FLAG,
        "answer_id": found.id,
        "approved_at": found.approved_at.isoformat(timespec="seconds"),
        "approved_by": found.approved_by,
        "similarity": round(similarity, 4),
        "lexical": round(lexical, 4),
    }
    cited = {r.doc_id for r in refs}
    hits = [Hit(chunk, 1.0) for chunk, _ in services.index.all_chunks(doc_ids=cited)]  # the documents' text, for the link check and the judge
    return Answer(text=found.text, method=answers.CURATED_METHOD, model=f"answer#{found.id}", references=refs, hits=hits, extra_flags=[flag])


def after_draft(session, answer: Answer) -> None:
    """Count the use of the curated answer a draft was made from (in the drafting transaction)."""
    flag = next((f for f in answer.extra_flags if f.get("kind") == answers.CURATED_FLAG), None)
    if flag is not None:
        answers.record_use(session=session, answer_id=int(flag["answer_id"]))
