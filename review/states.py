"""The message lifecycle, enforced in one place; every transition is an audit event."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlmodel import Session

from review.errors import ConcurrentUpdate, InvalidTransition
from review.models import AuditEvent, InboundMessage, utcnow

RECEIVED, SKIPPED, QUARANTINED, CLASSIFIED, DRAFTED = "received", "skipped", "quarantined", "classified", "drafted"
APPROVED, EDITED, REJECTED, SENT, SEND_FAILED = "approved", "edited", "rejected", "sent", "send_failed"
ACKNOWLEDGED = "acknowledged"  # a closing ("gracias") with no new question: recorded, no draft, no reply

TRANSITIONS: dict[str, frozenset[str]] = {
    RECEIVED: frozenset({SKIPPED, QUARANTINED, CLASSIFIED, ACKNOWLEDGED}),
    CLASSIFIED: frozenset({DRAFTED, QUARANTINED, ACKNOWLEDGED}),
    DRAFTED: frozenset({APPROVED, EDITED, REJECTED, CLASSIFIED}),  # -> classified: moved to another office, drafted again there
    APPROVED: frozenset({SENT, SEND_FAILED}),
    EDITED: frozenset({SENT, SEND_FAILED}),
    SEND_FAILED: frozenset({SENT, SEND_FAILED}),
    # "necesita respuesta": staff send a message an automatic decision set aside back to drafting
    SKIPPED: frozenset({RECEIVED}),
    QUARANTINED: frozenset({RECEIVED, CLASSIFIED}),  # «necesita respuesta» / `review retry`; a move to an office (a message whose office did not exist)
    REJECTED: frozenset(),
    SENT: frozenset(),
    ACKNOWLEDGED: frozenset({RECEIVED}),
}
STATES = frozenset(TRANSITIONS)
NOT_DRAFTED = frozenset({ACKNOWLEDGED, SKIPPED, QUARANTINED})  # set aside by an automatic decision: listed for staff, reversible
DECIDED = frozenset({APPROVED, EDITED, REJECTED, SENT, SEND_FAILED})


def can_transition(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


def transition(session: Session, message: InboundMessage, target: str, *, actor: str, details: dict[str, Any] | None = None) -> InboundMessage:
    """Move `message` to `target` if the lifecycle allows it and nobody changed it meanwhile; audit it."""
    current = message.state
    if not can_transition(current, target):
        raise InvalidTransition(message.id or 0, current, target)
    # Optimistic concurrency: the UPDATE only matches the version we read.
    result = session.execute(
        update(InboundMessage)
        .where(InboundMessage.id == message.id, InboundMessage.version == message.version, InboundMessage.state == current)
        .values(state=target, version=message.version + 1, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        session.rollback()
        latest = session.get(InboundMessage, message.id)
        last = None
        if latest is not None:
            session.refresh(latest)
            from sqlmodel import select

            last = session.exec(
                select(AuditEvent).where(AuditEvent.message_id == message.id).order_by(AuditEvent.id.desc())  # type: ignore[union-attr]
            ).first()
        raise ConcurrentUpdate(message.id or 0, last.actor if last else None, last.to_state if last else None)
    session.add(AuditEvent(message_id=message.id, actor=actor, event="transition", from_state=current, to_state=target, details=details or {}))
    session.flush()
    session.refresh(message)
    return message


MOVABLE = frozenset({RECEIVED, CLASSIFIED, DRAFTED, QUARANTINED})  # not decided yet: an office can still take it over


def reassign(session: Session, message: InboundMessage, office: str | None, *, actor: str, details: dict[str, Any] | None = None) -> InboundMessage:
    """Move `message` to another office (None: the default one), audited as a `routed` event; a drafted or quarantined
    message goes back to `classified` so that its new office drafts it."""
    if message.state not in MOVABLE:
        raise InvalidTransition(message.id or 0, message.state, f"office {office!r}")
    before = message.office
    target = CLASSIFIED if message.state in (DRAFTED, QUARANTINED) else message.state
    result = session.execute(
        update(InboundMessage)
        .where(InboundMessage.id == message.id, InboundMessage.version == message.version, InboundMessage.state == message.state)
        .values(office=office, state=target, version=message.version + 1, updated_at=utcnow(), **({"reason": None} if target != message.state else {}))
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        session.rollback()
        raise ConcurrentUpdate(message.id or 0, None, None)
    audit = {"from_office": before, "to_office": office, **(details or {})}
    session.add(AuditEvent(message_id=message.id, actor=actor, event="routed", from_state=message.state, to_state=target, details=audit))
    session.flush()
    session.refresh(message)
    return message
