"""Drafting retries: a message whose drafting failed transiently waits (attempts, next attempt, since when) and is
tried again with exponential backoff; quarantined messages can be sent back to drafting by staff."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from review import states
from review.errors import ReviewError
from review.models import AuditEvent, InboundMessage, utcnow

WAITING = "waiting"  # reason prefix of a message waiting for its next drafting attempt
DEFERRED_EVENT = "draft_deferred"
OFFLINE_EVENT = "drafted_offline"
REQUEUED_EVENT = "requeued"
OFFLINE_FLAG = "offline_fallback"  # Draft.flags kind: drafted offline because the model (or a service) stayed unreachable


def _aware(at: datetime) -> datetime:
    from datetime import timezone

    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def backoff(attempts: int, *, base_s: float, max_s: float) -> float:
    """Seconds before attempt `attempts + 1`: base, 2×base, 4×base… capped at max_s."""
    return min(max_s, base_s * 2 ** max(0, attempts - 1))


def defer(*, session: Session, message: InboundMessage, error: BaseException, base_s: float, max_s: float, fallback_after_s: float | None, now: datetime | None = None) -> datetime:
    """Record a transient drafting failure: the message stays in its state, waiting until the returned time."""
    now = now or utcnow()
    message.draft_attempts = (message.draft_attempts or 0) + 1
    message.waiting_since = message.waiting_since or now
    at = now + timedelta(seconds=backoff(message.draft_attempts, base_s=base_s, max_s=max_s))
    if fallback_after_s is not None:  # the offline attempt happens on time, not after a long backoff
        at = max(now, min(at, _aware(message.waiting_since) + timedelta(seconds=fallback_after_s)))
    message.next_attempt_at = at
    message.reason = f"{WAITING}: {type(error).__name__}: {error}"[:2000]
    session.add(message)
    session.add(AuditEvent(message_id=message.id, actor="orienta", event=DEFERRED_EVENT, details={"attempts": message.draft_attempts, "next_attempt_at": at.isoformat(timespec="seconds"), "error": type(error).__name__}))
    session.flush()
    return at


def offline_due(message: InboundMessage, *, fallback_after_s: float | None, now: datetime | None = None) -> bool:
    """Whether a waiting message has waited long enough to be drafted offline."""
    if fallback_after_s is None or message.waiting_since is None:
        return False
    return (now or utcnow()) >= _aware(message.waiting_since) + timedelta(seconds=fallback_after_s)


def settled(message: InboundMessage) -> None:
    """The message left drafting (drafted, acknowledged or quarantined): its wait is over."""
    message.draft_attempts, message.next_attempt_at, message.waiting_since = 0, None, None
    if (message.reason or "").startswith(WAITING):
        message.reason = None


def is_waiting(message: InboundMessage) -> bool:
    return message.state in (states.RECEIVED, states.CLASSIFIED) and (message.draft_attempts or 0) > 0


def waiting(*, session: Session, limit: int = 100) -> list[InboundMessage]:
    """Messages waiting for another drafting attempt after a transient failure, the longest waiting first."""
    stmt = select(InboundMessage).where(col(InboundMessage.state).in_([states.RECEIVED, states.CLASSIFIED]), col(InboundMessage.draft_attempts) > 0)
    return list(session.exec(stmt.order_by(col(InboundMessage.waiting_since)).limit(limit)).all())


def requeue(*, session: Session, message: InboundMessage, actor: str) -> InboundMessage:
    """Send a quarantined message back to drafting (`orienta review retry`): it is drafted on the next pass."""
    if message.state != states.QUARANTINED:
        raise ReviewError(f"message {message.id} is {message.state}, not quarantined: nothing to retry")
    if message.redacted_text is None and not (message.channel == "email" and message.raw is not None):
        raise ReviewError(f"message {message.id} has no text to draft from (quarantined as: {message.reason})")
    previous = message.reason
    settled(message)
    message.reason, message.claimed_by, message.claimed_at = None, None, None
    session.add(message)
    states.transition(session, message, states.RECEIVED, actor=actor, details={"reason": previous})
    session.add(AuditEvent(message_id=message.id, actor=actor, event=REQUEUED_EVENT, details={"reason": previous}))
    session.flush()
    return message


def requeue_quarantined(*, session: Session, actor: str, message_id: int | None = None) -> tuple[list[int], dict[int, str]]:
    """Requeue one quarantined message or all of them; returns (requeued ids, refused id -> why)."""
    if message_id is not None:
        message = session.get(InboundMessage, message_id)
        if message is None:
            from review.errors import NotFound

            raise NotFound(f"no message {message_id}")
        found = [message]
    else:
        found = list(session.exec(select(InboundMessage).where(InboundMessage.state == states.QUARANTINED).order_by(col(InboundMessage.id))).all())
    done, refused = [], {}
    for message in found:
        try:
            requeue(session=session, message=message, actor=actor)
            done.append(message.id)
        except ReviewError as exc:
            if message_id is not None:
                raise
            refused[message.id] = str(exc)
    return done, refused  # type: ignore[return-value]
