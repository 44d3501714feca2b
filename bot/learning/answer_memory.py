"""Drafting from the approved-answer memory: a close repeat of an approved question gets the curated answer as its draft."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.learning.readiness_calibration import rule_in_use
from pipeline.anonymization import findings
from pipeline.answer_memory.check import verify_reuse
from pipeline.answer_memory.match import Match, MatchThresholds, best_match, candidates
from pipeline.errors import PipelineError
from pipeline.llm import prices_for
from pipeline.llm.base import Usage
from pipeline.generation import Answer, Reference
from pipeline.index import Hit
from review import answer_memory as answers
from review.answer_models import CuratedAnswer
from review.db import session_scope

if TYPE_CHECKING:
    from bot.wiring.services import Services

log = logging.getLogger(__name__)


def current_hashes(services: "Services") -> dict[str, str | None]:
    """doc_id -> content hash of the active indexed documents."""
    return {doc_id: d.get("content_hash") for doc_id, d in services.index.documents().items() if d.get("active", True)}


def thresholds(services: "Services") -> MatchThresholds:
    d = services.settings.drafting
    return MatchThresholds(similarity=d.reuse_similarity, lexical=d.reuse_lexical)


def calibrated(services: "Services", match: Match) -> bool:
    """Whether a match clears the reuse rule `orienta answers calibrate` adopted from what staff sent unchanged (a minimum
    similarity or lexical agreement, measured on held-out decisions, never adopted worse); always, when none was."""
    rule = rule_in_use(services, "reuse")
    return rule is None or getattr(match, rule.feature, rule.minimum) >= rule.minimum


def refresh_staleness(services: "Services") -> list[int]:
    """After the documents changed: flag stale the answers whose cited documents are not the indexed versions any more."""
    hashes = current_hashes(services)
    with session_scope(services.engine) as session:
        stale = answers.mark_stale_where_changed(session=session, current=hashes, offices=[services.office])  # this office's index, its answers
    if stale:
        log.info("curated answers %s are stale: the documents they cite changed", stale)
    return stale


@dataclass
class Reuse:
    """What the approved-answer memory made of a question: the draft (or None: the normal path) and the cost of checking."""

    answer: Answer | None = None
    usage: Usage | None = None  # the LLM checks, accepted or not: part of the draft's cost
    model: str | None = None
    suggestions: list[dict] = field(default_factory=list)  # close approved answers not reused, offered to the reviewer


def curated_draft(services: "Services", question: str) -> Answer | None:
    """The draft made from the closest curated answer whose cited documents are unchanged, or None (the normal path)."""
    return find_reuse(services, question).answer


def find_reuse(services: "Services", question: str) -> Reuse:
    """Look the question up in the approved-answer memory.

    With a model configured (and `drafting.reuse_check_with_llm`), the closest approved questions above
    `reuse_candidate_similarity` are put to the judge model, one short structured call each, and the first it says
    is answered as it is gets reused; a failed call falls back to the offline rule. Offline, a close question is
    reused only when it is very close in meaning and words, asks for the same kind of fact, and retrieval agrees:
    the best hit for the new question is a document the curated answer cites (exam dates vs exam sign-up in the
    same document are told apart by the question's words, another document by this).

    When nothing is reused offline, the closest approved answers come back as suggestions for the reviewer.

    Reads only: an answer whose documents changed is skipped here (the next closest is tried) and is flagged stale by
    `refresh_staleness` after ingestion.
    """
    if not services.settings.drafting.reuse_answers or not question.strip():
        return Reuse()
    with session_scope(services.engine) as session:
        found = answers.active_answers(session=session, offices=[services.office])  # an office reuses only its own approved answers
    if not found:
        return Reuse()
    from bot.learning.gate_training import embed_queries_cached

    rows = [(a, q) for a in found for q in (a.question, *(a.aliases or []))]  # every wording staff approved the answer for
    vectors = embed_queries_cached(services, [q for _, q in rows])
    qvec = services.embedder.embed_queries([question])[0]
    personal = {a.id: personal_details(services, a) for a in found}
    safe = [i for i, (a, _) in enumerate(rows) if not personal[a.id]]  # a text still holding someone's data is never reused as ready
    safe_rows, safe_vectors = [rows[i] for i in safe], vectors[safe]
    checker = _checker(services)
    if checker is not None and safe_rows:
        reuse = _checked(services, checker, question, qvec, safe_rows, safe_vectors)
        if reuse is not None:
            reuse.suggestions = _suggestions(services, question, qvec, rows, vectors, personal, only_personal=True) if reuse.answer is None else []
            return reuse
    answer = _offline(services, question, qvec, safe_rows, safe_vectors) if safe_rows else None
    if answer is not None:
        return Reuse(answer=answer)
    return Reuse(suggestions=_suggestions(services, question, qvec, rows, vectors, personal))


def personal_details(services: "Services", answer: CuratedAnswer) -> list[str]:
    """What personal detail or unfilled placeholder an approved answer's text still holds (addresses and phones of the
    documents it cites are the office's own); [] when it is fit for any student."""
    found = findings(answer.text)
    if found:
        cited = {r["doc_id"] for r in answer.references or [] if r.get("doc_id")}
        documents = "\n".join(chunk.text for chunk, _ in services.index.all_chunks(doc_ids=cited)) if cited else ""
        found = findings(answer.text, keep=documents) if documents else found
    return found


def closest_answers(services: "Services", question: str, qvec, rows, vectors) -> list[tuple[CuratedAnswer, str, Match]]:
    """Up to `reuse_max_checks` distinct approved answers (with the wording that matched) at least
    `reuse_candidate_similarity` close, not in conflict, citing unchanged documents; closest first."""
    d = services.settings.drafting
    hashes = current_hashes(services)
    out: list[tuple[CuratedAnswer, str, Match]] = []
    for match in candidates(question, qvec, [q for _, q in rows], vectors, d.reuse_candidate_similarity):
        found, wording = rows[match.index]
        if any(a.id == found.id for a, _, _ in out) or answers.changed_documents(found, hashes):
            continue
        out.append((found, wording, match))
        if len(out) == d.reuse_max_checks:
            break
    return out


def _suggestions(services: "Services", question: str, qvec, rows, vectors, personal: dict[int, list[str]], *, only_personal: bool = False) -> list[dict]:
    """The closest approved answers not reused: the card offers them to the reviewer ("Editar desde la respuesta #N"),
    who reads the approved text before it is sent; one that still holds personal data says what (`personal`)."""
    return [
        {"kind": answers.SUGGESTION_FLAG, "answer_id": found.id, "question": found.question[:300], "approved_at": found.approved_at.isoformat(timespec="seconds"), "similarity": round(match.similarity, 4)}
        | ({"personal": personal[found.id]} if personal.get(found.id) else {})
        for found, _, match in closest_answers(services, question, qvec, rows, vectors)
        if not only_personal or personal.get(found.id)
    ]


def _checker(services: "Services"):
    if not services.settings.drafting.reuse_check_with_llm:
        return None
    try:
        return services.judge_llm
    except PipelineError as exc:  # a model configured wrongly: the offline rule still works
        log.warning("no model for the reuse check (%s); the offline rule decides", exc)
        return None


def _checked(services: "Services", llm, question: str, qvec, rows, vectors) -> Reuse | None:
    """The first close candidate the model says answers the question as it is; None when a check could not be made."""
    closest = closest_answers(services, question, qvec, rows, vectors)
    usage = Usage()
    for found, wording, match in closest:
        if not calibrated(services, match):  # below the adopted rule: staff usually changed such reuses
            continue
        verdict = verify_reuse(llm, question, wording, found.text)
        usage = usage + (verdict.usage or Usage())
        if verdict.answers is None:
            return None
        if verdict.answers:
            answer = _answer(services, found, match.similarity, match.lexical, checked_by=llm.model, reason=verdict.reason)
            answer.usage = usage
            answer.cost_usd = usage.cost(prices_for(services.settings.llm, llm.model))
            return Reuse(answer=answer, usage=usage, model=llm.model)
    return Reuse(usage=usage if closest else None, model=llm.model)


def _offline(services: "Services", question: str, qvec, rows, vectors) -> Answer | None:
    hashes: dict[str, str | None] | None = None
    top_doc: list[str | None] = []
    while rows:
        match = best_match(question, qvec, [q for _, q in rows], vectors, thresholds(services))
        if match is None:
            return None
        found = rows[match.index][0]
        hashes = current_hashes(services) if hashes is None else hashes
        if calibrated(services, match) and not answers.changed_documents(found, hashes) and _retrieval_agrees(services, question, found, match.similarity, top_doc):
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


def _answer(services: "Services", found: CuratedAnswer, similarity: float, lexical: float, *, checked_by: str | None = None, reason: str | None = None) -> Answer:
    refs = [Reference(r["doc_id"], r.get("title") or r["doc_id"], r.get("url"), r.get("content_hash")) for r in found.references or []]
    flag = {
        "kind": answers.CURATED_FLAG,
        "answer_id": found.id,
        "approved_at": found.approved_at.isoformat(timespec="seconds"),
        "approved_by": found.approved_by,
        "similarity": round(similarity, 4),
        "lexical": round(lexical, 4),
    }
    if checked_by:  # the model that said the approved answer answers this question as it is, and why
        flag |= {"checked_by": checked_by, "check_reason": reason}
    cited = {r.doc_id for r in refs}
    hits = [Hit(chunk, 1.0) for chunk, _ in services.index.all_chunks(doc_ids=cited)]  # the documents' text, for the link check and the judge
    return Answer(text=found.text, method=answers.CURATED_METHOD, model=f"answer#{found.id}", references=refs, hits=hits, extra_flags=[flag])


def after_draft(session, answer: Answer) -> None:
    """Count the use of the curated answer a draft was made from (in the drafting transaction)."""
    flag = next((f for f in answer.extra_flags if f.get("kind") == answers.CURATED_FLAG), None)
    if flag is not None:
        answers.record_use(session=session, answer_id=int(flag["answer_id"]))
