"""The review queue: keyword-only service functions shared by the terminal, Slack and the workers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, func, select

from review import answer_memory as answers, states
from review.errors import ConcurrentUpdate, NotFound, ReviewError, UnconfirmedLinks
from review.models import (
    AuditEvent,
    Decision,
    Draft,
    DraftCreate,
    InboundMessage,
    InboundMessageCreate,
    OutgoingReply,
    utcnow,
)

REJECT_REASONS: dict[str, str] = {
    "out_of_domain": "fuera de dominio",
    "incorrect": "información incorrecta",
    "missing_info": "falta información en los documentos",
    "personal": "requiere atención personal",
    "spam": "spam",
}
SYSTEM = "orienta"
FOREIGN_LINK = "foreign_link"


# ---------------------------------------------------------------- intake
def find_inbound(*, session: Session, source_key: str | None = None, external_id: str | None = None, content_hash: str | None = None) -> InboundMessage | None:
    """An already stored message with this source key, Message-ID or content hash."""
    for column, value in ((InboundMessage.source_key, source_key), (InboundMessage.external_id, external_id), (InboundMessage.content_hash, content_hash)):
        if value:
            found = session.exec(select(InboundMessage).where(column == value)).first()
            if found is not None:
                return found
    return None


def inbound_with_external_id(*, session: Session, external_id: str, limit: int = 20) -> Sequence[InboundMessage]:
    """Stored messages carrying this Message-ID (a copy, or a different mail that reused it)."""
    return session.exec(select(InboundMessage).where(InboundMessage.external_id == external_id).order_by(col(InboundMessage.id)).limit(limit)).all()


def store_inbound(*, session: Session, data: InboundMessageCreate, actor: str = SYSTEM) -> tuple[InboundMessage, bool]:
    """Store a message exactly once (by source key); returns (message, created)."""
    existing = find_inbound(session=session, source_key=data.source_key)
    if existing is not None:
        return existing, False
    message = InboundMessage.model_validate(data)
    session.add(message)
    try:
        session.flush()
    except IntegrityError:  # a concurrent worker stored it first
        session.rollback()
        existing = find_inbound(session=session, source_key=data.source_key)
        if existing is None:
            raise
        return existing, False
    session.add(AuditEvent(message_id=message.id, actor=actor, event="received", to_state=message.state, details={"channel": message.channel, "source_key": message.source_key}))
    if data.state != states.RECEIVED:
        session.add(AuditEvent(message_id=message.id, actor=actor, event="transition", from_state=states.RECEIVED, to_state=data.state, details={"reason": data.reason}))
    session.flush()
    return message, True


def skip(*, session: Session, message: InboundMessage, reason: str, actor: str = SYSTEM) -> InboundMessage:
    message.reason = reason
    return states.transition(session, message, states.SKIPPED, actor=actor, details={"reason": reason})


def quarantine(*, session: Session, message: InboundMessage, reason: str, actor: str = SYSTEM) -> InboundMessage:
    message.reason = reason
    session.add(message)
    return states.transition(session, message, states.QUARANTINED, actor=actor, details={"reason": reason})


def in_offices(stmt, offices: Sequence[str | None] | None):
    """`stmt` narrowed to the messages of `offices` (None in it: the default office's; `offices` None: every office)."""
    if offices is None:
        return stmt
    named = [o for o in offices if o is not None]
    where = col(InboundMessage.office).in_(named)
    return stmt.where(where | col(InboundMessage.office).is_(None) if None in offices else where)


def messages_in_state(*, session: Session, state: str, limit: int = 100, offices: Sequence[str | None] | None = None) -> Sequence[InboundMessage]:
    return session.exec(in_offices(select(InboundMessage).where(InboundMessage.state == state), offices).order_by(InboundMessage.id).limit(limit)).all()


def claim_for_drafting(*, session: Session, worker: str, limit: int = 10, due_only: bool = True) -> list[InboundMessage]:
    """Messages waiting to be drafted (those waiting after a transient failure once their next attempt is due, or all of
    them with `due_only=False`), locked for this worker (SKIP LOCKED on PostgreSQL)."""
    now = utcnow()
    stmt = (
        select(InboundMessage)
        .where(col(InboundMessage.state).in_([states.RECEIVED, states.CLASSIFIED]))
        .order_by(InboundMessage.id)
        .limit(limit)
        .options(defer(InboundMessage.raw), defer(InboundMessage.body_text), defer(InboundMessage.cleaned_text))  # type: ignore[arg-type]
    )
    if due_only:  # a message waiting after a transient failure: not before its next attempt
        stmt = stmt.where(col(InboundMessage.next_attempt_at).is_(None) | (col(InboundMessage.next_attempt_at) <= now))
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True)
    found = list(session.exec(stmt).all())
    for m in found:
        m.claimed_by, m.claimed_at = worker, utcnow()
        session.add(m)
    session.flush()
    return found


def record_classification(*, session: Session, message: InboundMessage, in_domain: bool | None, score: float | None, actor: str = SYSTEM) -> InboundMessage:
    message.gate_in_domain, message.gate_score = in_domain, score
    session.add(message)
    return states.transition(session, message, states.CLASSIFIED, actor=actor, details={"in_domain": in_domain, "score": score})


def create_draft(*, session: Session, message: InboundMessage, data: DraftCreate, actor: str = SYSTEM) -> Draft:
    """Attach a draft and move the message to `drafted`."""
    draft = Draft.model_validate(data)
    session.add(draft)
    session.flush()
    states.transition(session, message, states.DRAFTED, actor=actor, details={"draft_id": draft.id, "method": draft.method, "model": draft.model})
    return draft


# ---------------------------------------------------------------- messages set aside without a draft ("necesita respuesta")
NEEDS_REPLY = "needs_reply"


def not_drafted(*, session: Session, state: str | None = None, since: datetime | None = None, until: datetime | None = None, limit: int = 100, offices: Sequence[str | None] | None = None) -> list[InboundMessage]:
    """Acknowledged, skipped and quarantined messages (or one of those states), newest first: what staff may send to drafting."""
    states_wanted = [state] if state else sorted(states.NOT_DRAFTED)
    if not set(states_wanted) <= states.NOT_DRAFTED:
        raise ReviewError(f"{state!r} is not a state set aside without a draft; choose from {', '.join(sorted(states.NOT_DRAFTED))}")
    stmt = in_offices(select(InboundMessage).where(col(InboundMessage.state).in_(states_wanted)).options(defer(InboundMessage.raw)), offices)  # type: ignore[arg-type]
    if since is not None:
        stmt = stmt.where(col(InboundMessage.updated_at) >= since)
    if until is not None:
        stmt = stmt.where(col(InboundMessage.updated_at) < until)
    return list(session.exec(stmt.order_by(col(InboundMessage.id).desc()).limit(limit)).all())


def staff_wants_reply(*, session: Session, message_id: int) -> bool:
    """Whether staff sent this message back to drafting: no automatic decision sets it aside again."""
    return session.exec(select(AuditEvent.id).where(AuditEvent.message_id == message_id, AuditEvent.event == NEEDS_REPLY)).first() is not None


def _question_text(message: InboundMessage) -> str:
    """The redacted question of a message set aside before intake finished (a skipped or quarantined e-mail)."""
    from email import policy
    from email.parser import BytesHeaderParser
    from email.utils import parseaddr

    from pipeline.cleaning import clean_text
    from pipeline.question import focus_question
    from pipeline.redaction import redact

    text = message.cleaned_text or message.body_text or (message.raw or b"").decode("utf-8", errors="replace")
    names: list[str] = []
    if message.channel == "email" and message.raw:
        try:
            names = [parseaddr(str(BytesHeaderParser(policy=policy.default).parsebytes(message.raw[:65536]).get("From") or ""))[0]]
        except (ValueError, TypeError, LookupError):
            names = []
    return redact(focus_question(clean_text(text)), names=[n for n in names if n]).text


def needs_reply(*, session: Session, message_id: int, actor: str) -> InboundMessage:
    """"Necesita respuesta": a message set aside (acknowledged, skipped, quarantined) goes back to drafting; audited."""
    message = session.get(InboundMessage, message_id)
    if message is None:
        raise NotFound(f"no message {message_id}")
    if message.state not in states.NOT_DRAFTED:
        raise states.InvalidTransition(message_id, message.state, states.RECEIVED)
    if message.redacted_text is None or not message.redacted_text.strip():
        message.redacted_text = _question_text(message)
    if not message.redacted_text.strip():
        raise ReviewError(f"message {message_id} has no text to draft from")
    was, why = message.state, message.reason
    message.reason = f"{NEEDS_REPLY}: {was} ({why})" if why else f"{NEEDS_REPLY}: {was}"
    message.claimed_by, message.claimed_at = None, None
    session.add(message)
    session.add(AuditEvent(message_id=message.id, actor=actor, event=NEEDS_REPLY, from_state=was, details={"reason": why}))
    return states.transition(session, message, states.RECEIVED, actor=actor, details={"action": NEEDS_REPLY, "was": was, "reason": why})


# ---------------------------------------------------------------- reading the queue
def latest_draft(*, session: Session, message_id: int) -> Draft | None:
    return session.exec(select(Draft).where(Draft.message_id == message_id).order_by(col(Draft.id).desc())).first()


def get_draft(*, session: Session, draft_id: int) -> tuple[Draft, InboundMessage]:
    draft = session.get(Draft, draft_id)
    if draft is None:
        raise NotFound(f"no draft #{draft_id}")
    message = session.get(InboundMessage, draft.message_id)
    assert message is not None
    return draft, message


def list_drafts(*, session: Session, state: str | None = states.DRAFTED, limit: int = 50, offset: int = 0, offices: Sequence[str | None] | None = None) -> list[tuple[Draft, InboundMessage]]:
    """Drafts with their messages, oldest first; `state=None` lists every drafted message. A message drafted again
    (moved to another office) shows its latest draft only. `offices`: only these offices' messages (None in it: the default office's)."""
    latest = select(func.max(Draft.id)).group_by(Draft.message_id)
    stmt = select(Draft, InboundMessage).join(InboundMessage, InboundMessage.id == Draft.message_id).where(col(Draft.id).in_(latest))
    if state is not None:
        stmt = stmt.where(InboundMessage.state == state)
    stmt = in_offices(stmt, offices).order_by(col(Draft.id)).offset(offset).limit(limit)
    return [(d, m) for d, m in session.exec(stmt).all()]


def count_pending(*, session: Session, offices: Sequence[str | None] | None = None) -> int:
    return session.exec(in_offices(select(func.count()).select_from(InboundMessage).where(InboundMessage.state == states.DRAFTED), offices)).one()


def decision_for(*, session: Session, message_id: int) -> Decision | None:
    return session.exec(select(Decision).where(Decision.message_id == message_id)).first()


# ---------------------------------------------------------------- decisions
def flagged_links(draft: Draft) -> list[str]:
    """Links of the draft that are not in the documents (stored as flags when it was drafted)."""
    return [f["link"] for f in draft.flags or [] if f.get("kind") == FOREIGN_LINK and f.get("link")]


def _check_links(draft: Draft, text: str, confirm_links: bool) -> None:
    links = [link for link in flagged_links(draft) if link.lower() in text.lower()]
    if links and not confirm_links:
        raise UnconfirmedLinks(draft.id or 0, links)


def _decide(*, session: Session, draft_id: int, actor: str, action: str, target: str, final_text: str | None, reason: str | None, comment: str | None, expected_version: int | None, confirm_links: bool = False) -> Decision:
    draft, message = get_draft(session=session, draft_id=draft_id)
    if expected_version is not None and message.version != expected_version:
        prior = decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
        raise ConcurrentUpdate(message.id or 0, prior.actor if prior else None, prior.action if prior else None)
    if message.state != states.DRAFTED:
        prior = decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
        if prior is not None:
            raise ConcurrentUpdate(message.id or 0, prior.actor, prior.action)
        raise states.InvalidTransition(message.id or 0, message.state, target)
    if latest_draft(session=session, message_id=message.id).id != draft.id:  # type: ignore[arg-type, union-attr]
        raise ReviewError(f"draft #{draft_id} is not the latest draft of message {message.id}")
    if action in ("approve", "edit"):  # links that are not in the documents go out only with an explicit confirmation
        _check_links(draft, final_text or draft.text, confirm_links)
    try:
        states.transition(session, message, target, actor=actor, details={"action": action, "draft_id": draft.id, "reason": reason})
    except ConcurrentUpdate as exc:  # report the winning decision (action names, not states) when there is one
        prior = decision_for(session=session, message_id=message.id)  # type: ignore[arg-type]
        if prior is None:
            raise
        raise ConcurrentUpdate(message.id or 0, prior.actor, prior.action) from exc
    decision = Decision(message_id=message.id, draft_id=draft.id, action=action, actor=actor, reason=reason, comment=comment, final_text=final_text)  # type: ignore[arg-type]
    session.add(decision)
    if confirm_links and action in ("approve", "edit") and flagged_links(draft):
        session.add(AuditEvent(message_id=message.id, actor=actor, event="foreign_links_confirmed", details={"draft_id": draft.id, "links": flagged_links(draft)}))
    if action in ("approve", "edit"):
        session.add(outgoing_reply_for(message=message, draft=draft, body=final_text or draft.text))
        session.flush()
        answers.remember_decision(session=session, decision=decision, draft=draft, message=message)
    session.flush()
    return decision


def outgoing_reply_for(*, message: InboundMessage, draft: Draft, body: str) -> OutgoingReply:
    """The outbox row for an approved reply: threaded to the student's message."""
    subject = message.subject or ""
    if subject and not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    refs = " ".join(x for x in ((message.thread_ref or "").strip(), message.external_id or "") if x) if message.channel == "email" else message.thread_ref
    return OutgoingReply(
        message_id=message.id,  # type: ignore[arg-type]
        draft_id=draft.id,  # type: ignore[arg-type]
        channel=message.channel,
        recipient=message.sender,
        subject=subject or "Re: consulta",
        body=body,
        in_reply_to=message.external_id,
        references_header=refs,
    )


def approve(*, session: Session, draft_id: int, actor: str, expected_version: int | None = None, confirm_links: bool = False) -> Decision:
    """Approve the draft as is; queues the reply. An empty draft (the model declined) must be edited or rejected; links not in the documents need `confirm_links`."""
    draft = session.get(Draft, draft_id)
    if draft is not None and not draft.text.strip():
        raise ReviewError("the draft is empty (the model declined to answer): edit it or reject it")
    return _decide(session=session, draft_id=draft_id, actor=actor, action="approve", target=states.APPROVED, final_text=None, reason=None, comment=None, expected_version=expected_version, confirm_links=confirm_links)


def edit(*, session: Session, draft_id: int, actor: str, text: str, expected_version: int | None = None, confirm_links: bool = False) -> Decision:
    """Approve an edited version of the draft; queues the reply (flagged links left in the text need `confirm_links`)."""
    if not text.strip():
        raise ReviewError("the edited reply is empty")
    return _decide(session=session, draft_id=draft_id, actor=actor, action="edit", target=states.EDITED, final_text=text.strip(), reason=None, comment=None, expected_version=expected_version, confirm_links=confirm_links)


def reject(*, session: Session, draft_id: int, actor: str, reason: str, comment: str | None = None, expected_version: int | None = None) -> Decision:
    """Reject the draft with one of REJECT_REASONS; nothing is sent."""
    if reason not in REJECT_REASONS:
        raise ReviewError(f"unknown reject reason {reason!r}; choose from {', '.join(REJECT_REASONS)}")
    return _decide(session=session, draft_id=draft_id, actor=actor, action="reject", target=states.REJECTED, final_text=None, reason=reason, comment=comment, expected_version=expected_version)


# ---------------------------------------------------------------- outbox
def pending_replies(*, session: Session, channel: str | None = None, limit: int | None = 100) -> Sequence[OutgoingReply]:
    stmt = select(OutgoingReply).where(col(OutgoingReply.state).in_(["pending", "failed"]))
    if channel:
        stmt = stmt.where(OutgoingReply.channel == channel)
    return session.exec(stmt.order_by(OutgoingReply.id).limit(limit)).all()


def mark_sent(*, session: Session, reply: OutgoingReply, our_message_id: str | None, actor: str = SYSTEM, at: datetime | None = None) -> None:
    """Record a delivered reply: outbox row and message both say sent."""
    message = session.get(InboundMessage, reply.message_id)
    if message is None:
        raise NotFound(f"no message {reply.message_id}")
    if message.state not in (states.APPROVED, states.EDITED, states.SEND_FAILED):
        raise states.InvalidTransition(message.id or 0, message.state, states.SENT)
    reply.state, reply.our_message_id, reply.sent_at = "sent", our_message_id or reply.our_message_id, at or utcnow()
    session.add(reply)
    states.transition(session, message, states.SENT, actor=actor, details={"reply_id": reply.id, "our_message_id": reply.our_message_id})


def mark_send_failed(*, session: Session, reply: OutgoingReply, error: str, actor: str = SYSTEM) -> None:
    message = session.get(InboundMessage, reply.message_id)
    assert message is not None
    reply.state, reply.attempts, reply.last_error = "failed", reply.attempts + 1, error[:2000]
    session.add(reply)
    states.transition(session, message, states.SEND_FAILED, actor=actor, details={"error": error[:500], "attempts": reply.attempts})


# ---------------------------------------------------------------- review UI support (Slack cards, App Home, audit)
def drafts_without_card(*, session: Session, limit: int = 100) -> list[tuple[Draft, InboundMessage]]:
    """Pending drafts whose review card has not been posted yet, oldest first."""
    stmt = (
        select(Draft, InboundMessage)
        .join(InboundMessage, InboundMessage.id == Draft.message_id)
        .where(InboundMessage.state == states.DRAFTED, col(Draft.slack_ts).is_(None))
        .order_by(col(Draft.id))
        .limit(limit)
    )
    return [(d, m) for d, m in session.exec(stmt).all()]


def set_card(*, session: Session, draft_id: int, channel: str, ts: str) -> Draft:
    """Remember where the draft's review card was posted."""
    draft = session.get(Draft, draft_id)
    if draft is None:
        raise NotFound(f"no draft #{draft_id}")
    draft.slack_channel, draft.slack_ts = channel, ts
    session.add(draft)
    session.flush()
    return draft


def audit(*, session: Session, actor: str, event: str, message_id: int | None = None, details: dict | None = None) -> AuditEvent:
    """Record something that happened without a state change (e.g. a refused click)."""
    row = AuditEvent(message_id=message_id, actor=actor, event=event, details=details or {})
    session.add(row)
    session.flush()
    return row


def oldest_pending_at(*, session: Session, offices: Sequence[str | None] | None = None) -> datetime | None:
    """When the oldest message still waiting for review was stored."""
    return session.exec(in_offices(select(func.min(InboundMessage.created_at)).where(InboundMessage.state == states.DRAFTED), offices)).one()


def decisions_by(*, session: Session, actor: str, since: datetime) -> int:
    """How many decisions `actor` recorded since `since`."""
    return session.exec(select(func.count()).select_from(Decision).where(Decision.actor == actor, Decision.created_at >= since)).one()


# ---------------------------------------------------------------- channel helpers (added for issue 6)
def find_reply_by_message_id(*, session: Session, our_message_id: str) -> OutgoingReply | None:
    """The outgoing reply that carried this Message-ID (loop detection), or None."""
    return session.exec(select(OutgoingReply).where(OutgoingReply.our_message_id == our_message_id)).first()


def count_recent_from(*, session: Session, sender: str, since: datetime, until: datetime, exclude_id: int | None = None) -> int:
    """How many stored, not skipped messages this sender sent in [since, until] (per-sender rate limit)."""
    stmt = select(func.count()).select_from(InboundMessage).where(
        InboundMessage.sender == sender,
        col(InboundMessage.received_at) >= since,
        col(InboundMessage.received_at) <= until,
        InboundMessage.state != states.SKIPPED,
    )
    if exclude_id is not None:
        stmt = stmt.where(InboundMessage.id != exclude_id)
    return session.exec(stmt).one()


def replies_in_state(*, session: Session, state: str, channel: str | None = None, limit: int | None = 100) -> Sequence[OutgoingReply]:
    """Outbox rows in one state (e.g. `sending` rows left by a crash, to be reconciled)."""
    stmt = select(OutgoingReply).where(OutgoingReply.state == state)
    if channel:
        stmt = stmt.where(OutgoingReply.channel == channel)
    return session.exec(stmt.order_by(OutgoingReply.id).limit(limit)).all()
