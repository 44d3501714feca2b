"""Retention: after a configurable number of days every stored text of a message is removed or tombstoned, in every state.

Counts survive (states, decisions' actions and reasons, gate scores, costs): the digest's figures need no text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from review.evaluation_models import JudgeScore
from review.models import AuditEvent, Decision, DigestRun, Draft, InboundMessage, OutgoingReply, utcnow

PURGED_SENDER = "(eliminado)"
TOMBSTONE = "(contenido eliminado por la política de retención)"
UNSENT = ("pending", "failed", "sending")
_SAFE_DETAIL_TEXT = frozenset({"action", "method", "model", "channel", "kind", "to_state", "from_state"})


@dataclass
class RetentionReport:
    """What one retention pass removed, and what the edges must still clean (outbox files, Slack cards)."""

    cutoff: datetime
    messages: int = 0
    replies: int = 0
    drafts: int = 0
    decisions: int = 0
    expired_replies: int = 0
    outbox_message_ids: list[str] = field(default_factory=list)  # e-mail replies whose outbox copy must go
    slack_reply_keys: list[str] = field(default_factory=list)  # Slack replies whose outbox line must go
    cards: list[tuple[int, str, str]] = field(default_factory=list)  # (draft id, channel, ts) of review cards to blank
    digest_weeks: list[str] = field(default_factory=list)
    curated_cleaned: int = 0  # curated answers whose question went and whose text was checked again, untied from the messages
    curated_deleted: int = 0  # curated answers that could not be cleaned

    def as_dict(self) -> dict:
        return {
            "cutoff": self.cutoff.isoformat(), "messages": self.messages, "replies": self.replies, "drafts": self.drafts,
            "decisions": self.decisions, "expired_replies": self.expired_replies, "cards": len(self.cards), "digest_weeks": self.digest_weeks,
            "curated_cleaned": self.curated_cleaned, "curated_deleted": self.curated_deleted,
        }


def category(reason: str | None) -> str | None:
    """The category of a skip/quarantine reason ("malformed: From header 'Ana'..." -> "malformed"): no personal text."""
    if not reason:
        return reason
    return reason.split(":", 1)[0].strip()[:64]


def safe_details(details: dict) -> dict:
    """Audit details without free text: numbers, flags, ids and the few fixed vocabularies stay; reasons keep their category."""
    out: dict = {}
    for key, value in (details or {}).items():
        if value is None or isinstance(value, (bool, int, float)):
            out[key] = value
        elif key == "reason" and isinstance(value, str):
            out[key] = category(value)
        elif key in _SAFE_DETAIL_TEXT and isinstance(value, str):
            out[key] = value
    return out


def purge_personal_data(
    *, session: Session, days: int, now: datetime | None = None, actor: str = "orienta-retention", batch: int = 500,
    offices: Sequence[str | None] | None = None, except_offices: Sequence[str] = (), before_wipe: Callable[[list[InboundMessage]], None] | None = None,
) -> RetentionReport:
    """Remove every stored text of messages older than `days` (any state); unsent replies expire; counts and decisions stay.
    Campus mode: only the messages of `offices` (None in it: the default office's), or of every office but `except_offices`
    (those keep their own retention). `before_wipe` sees each batch of messages while their texts are still there (to
    forget what was derived from them elsewhere, e.g. cached vectors)."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    report = RetentionReport(cutoff=cutoff)
    while True:
        messages = list(
            session.exec(
                _of_offices(select(InboundMessage), offices, except_offices)
                .where(InboundMessage.created_at < cutoff, col(InboundMessage.redacted_at).is_(None))
                .order_by(col(InboundMessage.id))
                .limit(batch)
            ).all()
        )
        if not messages:
            break
        ids = [m.id for m in messages]
        at = utcnow()
        if before_wipe is not None:
            before_wipe(messages)
        _forget_curated(session, messages, report, actor=actor)  # first: it still reads the students' names
        for m in messages:
            m.raw = m.body_text = m.cleaned_text = m.redacted_text = m.subject = m.thread_ref = m.external_id = None
            m.sender, m.attachments, m.reason, m.redacted_at = PURGED_SENDER, [], category(m.reason), at
            m.flags = [{"kind": f.get("kind")} for f in m.flags or [] if f.get("kind")]  # the hidden text they quoted goes too
            session.add(m)
        for draft in session.exec(select(Draft).where(col(Draft.message_id).in_(ids))).all():
            draft.text, draft.derivation, draft.flags, draft.context = TOMBSTONE, [], [{"kind": f.get("kind")} for f in draft.flags or [] if f.get("kind")], {}
            draft.references = [{k: v for k, v in r.items() if k != "claims"} for r in draft.references or []]  # claims quote the draft
            session.add(draft)
            report.drafts += 1
            if draft.slack_channel and draft.slack_ts:
                report.cards.append((draft.id, draft.slack_channel, draft.slack_ts))  # type: ignore[arg-type]
        _forget_turns(session, messages)
        report.decisions += session.execute(
            update(Decision).where(col(Decision.message_id).in_(ids)).values(final_text=None, comment=None).execution_options(synchronize_session=False)
        ).rowcount or 0
        for reply in session.exec(select(OutgoingReply).where(col(OutgoingReply.message_id).in_(ids))).all():
            if reply.our_message_id:
                (report.outbox_message_ids if reply.channel == "email" else report.slack_reply_keys).append(reply.our_message_id)
            if reply.state in UNSENT:  # never sent, and now there is nothing left to send
                reply.state = "expired"
                report.expired_replies += 1
            reply.recipient = reply.subject = reply.in_reply_to = reply.references_header = reply.last_error = None
            reply.body = ""
            session.add(reply)
            report.replies += 1
        for event in session.exec(select(AuditEvent).where(col(AuditEvent.message_id).in_(ids))).all():
            cleaned = safe_details(event.details)
            if cleaned != event.details:
                event.details = cleaned
                session.add(event)
        draft_ids = select(Draft.id).where(col(Draft.message_id).in_(ids))
        session.execute(update(JudgeScore).where(col(JudgeScore.draft_id).in_(draft_ids)).values(justification=None, error=None).execution_options(synchronize_session=False))
        session.add_all(AuditEvent(message_id=i, actor=actor, event="personal_data_deleted", details={"retention_days": days}) for i in ids)
        session.flush()
        report.messages += len(ids)
    report.digest_weeks = _expire_digests(session, cutoff)
    return report


PURGED_QUESTION = "(pregunta eliminada por la política de retención)"


def _of_offices(stmt, offices: Sequence[str | None] | None, except_offices: Sequence[str]):
    if offices is not None:
        named = [o for o in offices if o is not None]
        mine = col(InboundMessage.office).in_(named)
        stmt = stmt.where((mine | col(InboundMessage.office).is_(None)) if None in offices else mine)
    if except_offices:
        stmt = stmt.where(col(InboundMessage.office).is_(None) | col(InboundMessage.office).not_in(list(except_offices)))
    return stmt


def _forget_curated(session: Session, messages: list[InboundMessage], report: RetentionReport, *, actor: str) -> None:
    """Curated answers kept from these messages: the question wording (and the wordings they were confirmed for) goes,
    the text is anonymized again and kept only when nothing personal is left (else the answer is deleted), and the
    answer is untied from the messages. Without its question it is no longer matched: retired, unless already stale/retired."""
    from pipeline.anonymization import findings
    from review.answer_models import ACTIVE, RETIRED, CuratedAnswer
    from review.answer_memory import CURATED_FLAG, SUGGESTION_FLAG, reusable

    by_id = {m.id: m for m in messages}
    draft_ids = select(Draft.id).where(col(Draft.message_id).in_(list(by_id)))
    found = session.exec(select(CuratedAnswer).where(col(CuratedAnswer.message_id).in_(list(by_id)) | col(CuratedAnswer.draft_id).in_(draft_ids))).all()
    touched: set[int] = set()
    for answer in found:
        message = by_id.get(answer.message_id) or session.get(InboundMessage, answer.message_id) if answer.message_id else None
        clean = reusable(answer.text, message=message) if message is not None else None
        text = clean.text if clean is not None else answer.text
        touched.add(answer.id)  # type: ignore[arg-type]
        if not text.strip() or findings(text):
            session.add(AuditEvent(message_id=None, actor=actor, event="curated_answer_deleted", details={"answer_id": answer.id, "reason": "retention"}))
            session.delete(answer)
            report.curated_deleted += 1
            continue
        answer.text, answer.question, answer.aliases = text, PURGED_QUESTION, []
        answer.message_id = answer.draft_id = None
        if answer.state == ACTIVE:
            answer.state, answer.state_reason, answer.state_changed_at, answer.state_changed_by = RETIRED, "retention: question deleted", utcnow(), actor
        session.add(answer)
        report.curated_cleaned += 1
    if not touched:
        return
    session.flush()
    for draft in session.exec(select(Draft).where(col(Draft.flags).is_not(None))).all():  # other drafts quoted the question
        flags = draft.flags or []
        kept = [
            {k: v for k, v in f.items() if k not in ("question", "check_reason")} if f.get("kind") in (SUGGESTION_FLAG, CURATED_FLAG) and f.get("answer_id") in touched else f
            for f in flags
        ]
        if kept != flags:
            draft.flags = kept
            session.add(draft)


def _forget_turns(session: Session, messages: list[InboundMessage]) -> None:
    """Later drafts of the same conversations drop the purged messages' turns from their context."""
    gone = {m.id for m in messages}
    conversations = {m.conversation_id for m in messages if m.conversation_id is not None}
    if not conversations:
        return
    later = select(Draft).join(InboundMessage, InboundMessage.id == Draft.message_id).where(col(InboundMessage.conversation_id).in_(conversations), col(Draft.message_id).not_in(gone))
    for draft in session.exec(later).all():
        turns = (draft.context or {}).get("turns") or []
        kept = [t for t in turns if t.get("message_id") not in gone]
        if len(kept) != len(turns):
            draft.context = {k: v for k, v in ({**draft.context, "turns": kept, "query": None}).items() if v}  # the query quoted them too
            session.add(draft)


def _expire_digests(session: Session, cutoff: datetime) -> list[str]:
    """Digests of weeks before the cutoff keep their counts; the quoted questions and report files go."""
    from review.weeks import iso_week

    last = iso_week(cutoff - timedelta(days=7))
    weeks = []
    for run in session.exec(select(DigestRun).where(DigestRun.iso_week <= last)).all():
        figures = _numbers_only(run.figures)
        if figures != run.figures or run.markdown_path or run.html_path:
            run.figures, run.markdown_path, run.html_path = figures, None, None
            session.add(run)
            weeks.append(run.iso_week)
    session.flush()
    return weeks


def _numbers_only(value):
    """Figures without free text: numbers and booleans stay, strings in lists (quoted questions) go, reason keys keep their category."""
    if isinstance(value, dict):
        out: dict = {}
        for k, v in value.items():
            if isinstance(v, str) and k not in ("week", "iso_week", "kind", "status"):
                continue
            key = category(k) if isinstance(k, str) and ":" in k else k
            v = _numbers_only(v)
            out[key] = out[key] + v if key in out and isinstance(v, (int, float)) and isinstance(out[key], (int, float)) else v
        return out
    if isinstance(value, list):
        return [_numbers_only(v) for v in value if not isinstance(v, str)]
    return value
