"""Judge the week's drafts once: store JudgeScore rows, rescoring only when the reference changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from sqlmodel import Session, col, select

from pipeline.redaction import redact
from review.evaluation_models import CORRECTNESS, FAITHFULNESS, RELEVANCE, JudgeScore
from review.judge import Judge, JudgeCall, Verdict, text_hash
from review.models import Decision, Draft

ChunkText = Callable[[Sequence[str]], dict[str, str]]


def reference_for(draft: Draft, decision: Decision | None) -> str | None:
    """What the judge compares against: the reply staff sent, or a reviewer's comment on an incorrect draft."""
    if decision is None:
        return None
    if decision.action == "approve":
        return draft.text
    if decision.action == "edit":
        return decision.final_text or draft.text
    if decision.action == "reject" and decision.reason == "incorrect" and decision.comment:
        return f"El personal rechazó la respuesta propuesta por contener información incorrecta. Comentario del revisor: {decision.comment}"
    return None


def _store(session: Session, existing: JudgeScore | None, draft_id: int, verdict: Verdict, ref_hash: str | None) -> JudgeScore:
    row = existing or JudgeScore(draft_id=draft_id, kind=verdict.kind)
    row.status, row.score, row.justification = verdict.status, verdict.score, verdict.justification
    row.runs, row.spread, row.reference_hash = list(verdict.runs), verdict.spread, ref_hash
    row.model, row.prompt_hash, row.cost_usd, row.error = verdict.model, verdict.prompt_hash, verdict.cost_usd, verdict.error
    session.add(row)
    return row


def score_drafts(*, session: Session, judge: Judge, items: Iterable[tuple[Draft, Decision | None, str]], chunk_text: ChunkText | None = None) -> int:
    """Judge each (draft, decision, question) not judged yet; returns the number of judgements made.

    The judgements are planned first, so that a large week goes to the judge as one Message Batch
    (Judge.prefetch); small weeks are judged synchronously.
    """
    items = [(d, dec, q) for d, dec, q in items if not d.out_of_domain]
    if not items:
        return 0
    ids = [d.id for d, _, _ in items]
    have = {(s.draft_id, s.kind): s for s in session.exec(select(JudgeScore).where(col(JudgeScore.draft_id).in_(ids))).all()}
    plan: list[tuple[Draft, JudgeScore | None, JudgeCall, str | None]] = []
    for draft, decision, question in items:
        if not draft.text.strip():  # the model declined: nothing to judge
            continue
        reference = reference_for(draft, decision)
        if reference is not None:
            ref = redact(reference).text
            old = have.get((draft.id, CORRECTNESS))
            if old is None or old.reference_hash != text_hash(ref):
                plan.append((draft, old, judge.correctness_call(question=question, answer=draft.text, reference=ref), text_hash(ref)))
        if (draft.id, RELEVANCE) not in have:
            plan.append((draft, None, judge.relevance_call(question=question, answer=draft.text), None))
        if (draft.id, FAITHFULNESS) not in have and chunk_text is not None and draft.chunks:
            texts = chunk_text([c["chunk_id"] for c in draft.chunks if c.get("chunk_id")])
            chunks = [texts[c["chunk_id"]] for c in draft.chunks if c.get("chunk_id") in texts]
            if chunks:
                plan.append((draft, None, judge.faithfulness_call(answer=draft.text, chunks=chunks), None))
    judge.prefetch([call for _, _, call, _ in plan], job="judge-week")
    for draft, old, call, ref_hash in plan:
        _store(session, old, draft.id, judge.judge(call), ref_hash)  # type: ignore[arg-type]
    session.flush()
    return len(plan)
