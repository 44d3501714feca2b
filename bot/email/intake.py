"""Store one raw e-mail exactly once, then parse, skip or quarantine it and keep its clean and redacted text."""

from __future__ import annotations

from datetime import timedelta, timezone
from email import policy
from email.parser import BytesHeaderParser
from email.utils import parseaddr

from sqlmodel import Session

from bot.email.parse import content_hash, parse_email, skip_reason
from bot.errors import MalformedMessage
from pipeline.cleaning import clean_text
from pipeline.redaction import redact
from review import queue
from review.models import InboundMessage, InboundMessageCreate

DEFAULT_RATE_LIMIT = 20


def header_message_id(raw: bytes) -> str | None:
    """The Message-ID header of raw bytes, read without parsing the body; None when absent or unreadable."""
    try:
        value = BytesHeaderParser(policy=policy.compat32).parsebytes(raw[:65536]).get("Message-ID")
    except (ValueError, TypeError, LookupError):
        return None
    value = " ".join(str(value or "").split())
    return value or None


def find_copy(session: Session, raw: bytes) -> InboundMessage | None:
    """An already stored e-mail that is this same message (same Message-ID, or same bytes when it has none)."""
    return queue.find_inbound(session=session, external_id=header_message_id(raw), content_hash=content_hash(raw))


def _own_ids(session: Session, *ids: str | None) -> frozenset[str]:
    return frozenset(i for i in ids if i and queue.find_reply_by_message_id(session=session, our_message_id=i) is not None)


def intake_email(
    session: Session,
    raw: bytes,
    *,
    source_key: str,
    max_bytes: int,
    own_message_ids: frozenset[str] | None = None,
    own_address: str | None = None,
    rate_limit_per_hour: int = DEFAULT_RATE_LIMIT,
) -> tuple[InboundMessage, bool]:
    """Store the raw e-mail first (committed), then parse, skip or quarantine it; returns (message, created)."""
    message, created = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(channel="email", source_key=source_key, raw=raw, content_hash=content_hash(raw)),
    )
    if not created:
        return message, False
    session.commit()  # the raw message is safe before anything else happens
    process_stored(session, message, max_bytes=max_bytes, own_message_ids=own_message_ids, own_address=own_address, rate_limit_per_hour=rate_limit_per_hour)
    return message, True


def needs_processing(message: InboundMessage) -> bool:
    """A stored e-mail whose parsing was interrupted (raw committed, then a crash): still `received` with no text."""
    return message.channel == "email" and message.state == "received" and message.raw is not None and message.redacted_text is None


def process_stored(
    session: Session,
    message: InboundMessage,
    *,
    max_bytes: int,
    own_message_ids: frozenset[str] | None = None,
    own_address: str | None = None,
    rate_limit_per_hour: int = DEFAULT_RATE_LIMIT,
) -> InboundMessage:
    """Parse a stored raw e-mail, then skip, quarantine or keep its cleaned and redacted text."""
    raw = message.raw or b""
    try:
        parsed = parse_email(raw, max_bytes=max_bytes)
    except MalformedMessage as exc:
        queue.quarantine(session=session, message=message, reason=f"malformed: {exc}")
        return message
    message.external_id = parsed.message_id[:998] if parsed.message_id else None
    message.thread_ref = parsed.thread_ref
    message.sender = parsed.sender[:512] if parsed.sender else None
    message.subject = parsed.subject
    message.attachments = parsed.attachments
    message.body_text = parsed.body_text
    if parsed.date is not None:
        message.received_at = (parsed.date if parsed.date.tzinfo else parsed.date.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    session.add(message)
    if own_message_ids is None:
        own_message_ids = _own_ids(session, parsed.message_id, parsed.in_reply_to)
    reason = skip_reason(parsed, own_message_ids=own_message_ids)
    if reason is None and own_address and parsed.sender == parseaddr(own_address)[1].lower():
        reason = "loop: sent from our own address"
    if reason is None and parsed.sender:
        since = message.received_at - timedelta(hours=1)
        recent = queue.count_recent_from(session=session, sender=parsed.sender, since=since, until=message.received_at, exclude_id=message.id)
        if recent >= rate_limit_per_hour:
            reason = f"rate_limited: {recent} messages from {parsed.sender} within an hour"
    if reason:
        queue.skip(session=session, message=message, reason=reason)
        return message
    duplicate = queue.find_inbound(session=session, external_id=parsed.message_id) if parsed.message_id else None
    if duplicate is not None and duplicate.id != message.id:
        queue.skip(session=session, message=message, reason=f"duplicate of message {duplicate.id} (same Message-ID)")
        return message
    cleaned = clean_text(parsed.body_text)
    if not cleaned:
        queue.quarantine(session=session, message=message, reason="empty: no question left after cleaning")
        return message
    message.cleaned_text = cleaned
    message.redacted_text = redact(cleaned).text
    session.add(message)
    return message
