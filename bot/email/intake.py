"""Store one raw e-mail exactly once, then parse, skip or quarantine it and keep its clean and redacted text."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from datetime import timedelta
from email import policy
from email.parser import BytesHeaderParser
from email.utils import parseaddr

from sqlmodel import Session

from bot.email.html_body import HIDDEN_TEXT, hidden_text_flag
from bot.email.parse import content_hash, parse_email, skip_reason
from bot.errors import MalformedMessage
from pipeline.cleaning import clean_text
from pipeline.question import DEFAULT_MAX_CHARS, focus_question
from pipeline.redaction import redact
from review import queue
from review.models import InboundMessage, InboundMessageCreate
from review.safe_text import db_safe

log = logging.getLogger(__name__)
DEFAULT_RATE_LIMIT = 20
_FROM_LINE = re.compile(rb"(?im)^from:[ \t]*(.{0,200})")


def header_message_id(raw: bytes) -> str | None:
    """The Message-ID header of raw bytes, read without parsing the body; None when absent or unreadable."""
    try:
        value = BytesHeaderParser(policy=policy.compat32).parsebytes(raw[:65536]).get("Message-ID")
    except (ValueError, TypeError, LookupError):
        return None
    value = db_safe(" ".join(str(value or "").split()))
    return value or None


def fingerprint(raw: bytes) -> tuple:
    """What makes two copies of an e-mail the same message: From, Date, Subject and body (transport headers aside)."""
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    try:
        h = BytesHeaderParser(policy=policy.compat32).parsebytes(head[:65536] + b"\n\n")
        fields = tuple(" ".join(str(h.get(k) or "").split()) for k in ("From", "Date", "Subject"))
    except (ValueError, TypeError, LookupError):
        fields = ()
    return fields, content_hash(body)


def find_copy(session: Session, raw: bytes) -> InboundMessage | None:
    """An already stored e-mail that is this same message: same bytes, or same Message-ID and same content.

    A different mail that reuses a stored Message-ID is not a copy: it is stored as its own message (and flagged)."""
    same = queue.find_inbound(session=session, content_hash=content_hash(raw))
    if same is not None:
        return same
    mid = header_message_id(raw)
    if mid is None:
        return None
    for other in queue.inbound_with_external_id(session=session, external_id=mid):
        if other.raw is not None and fingerprint(other.raw) == fingerprint(raw):
            return other
    return None


def is_own_address(sender: str | None, own: str | Iterable[str] | None) -> bool:
    """Whether `sender` is one of the office's addresses, also with plus-addressing (consultas+bounce@...)."""
    if not sender or not own:
        return False
    addresses = [own] if isinstance(own, str) else list(own)
    local, _, domain = sender.lower().partition("@")
    local = local.split("+", 1)[0]
    for a in addresses:
        a_local, _, a_domain = parseaddr(a)[1].lower().partition("@")
        if a_domain and a_domain == domain and a_local.split("+", 1)[0] == local:
            return True
    return False


def _own_ids(session: Session, *ids: str | None) -> frozenset[str]:
    return frozenset(i for i in ids if i and queue.find_reply_by_message_id(session=session, our_message_id=i) is not None)


def intake_email(
    session: Session,
    raw: bytes,
    *,
    source_key: str,
    max_bytes: int,
    own_message_ids: frozenset[str] | None = None,
    own_address: str | Iterable[str] | None = None,
    rate_limit_per_hour: int = DEFAULT_RATE_LIMIT,
    question_max_chars: int = DEFAULT_MAX_CHARS,
) -> tuple[InboundMessage, bool]:
    """Store the raw e-mail first (committed), then parse, skip or quarantine it; returns (message, created).

    Whatever goes wrong after the raw commit quarantines this message with the exception text; nothing propagates."""
    message, created = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(channel="email", source_key=source_key, raw=raw, content_hash=content_hash(raw)),
    )
    if not created:
        return message, False
    session.commit()  # the raw message is safe before anything else happens
    try:
        process_stored(
            session, message, max_bytes=max_bytes, own_message_ids=own_message_ids, own_address=own_address,
            rate_limit_per_hour=rate_limit_per_hour, question_max_chars=question_max_chars,
        )
        session.flush()
    except Exception as exc:  # the edge of one message: poison input must not stop the pass
        log.exception("reading stored e-mail %s failed; quarantining it", message.id)
        message = quarantine_after_error(session, message.id, exc, stage="reading")  # type: ignore[arg-type]
    return message, True


def quarantine_after_error(session: Session, message_id: int, exc: BaseException, *, stage: str) -> InboundMessage:
    """Roll back the failed work and quarantine the stored message with the exception text."""
    session.rollback()
    message = session.get(InboundMessage, message_id)
    assert message is not None
    queue.quarantine(session=session, message=message, reason=f"internal error while {stage}: {type(exc).__name__}: {str(exc)[:500]}")
    session.flush()
    return message


def store_unreadable(session: Session, raw: bytes, *, source_key: str, exc: BaseException) -> tuple[InboundMessage, bool]:
    """Keep a message whose normal intake failed before its row existed: stored raw, quarantined with the exception text."""
    session.rollback()
    return queue.store_inbound(
        session=session,
        data=InboundMessageCreate(
            channel="email", source_key=source_key, raw=raw, content_hash=content_hash(raw), state="quarantined",
            reason=f"internal error while storing: {type(exc).__name__}: {str(exc)[:500]}",
        ),
    )


def needs_processing(message: InboundMessage) -> bool:
    """A stored e-mail whose parsing was interrupted (raw committed, then a crash): still `received` with no text."""
    return message.channel == "email" and message.state == "received" and message.redacted_text is None and message.raw is not None


def process_stored(
    session: Session,
    message: InboundMessage,
    *,
    max_bytes: int,
    own_message_ids: frozenset[str] | None = None,
    own_address: str | Iterable[str] | None = None,
    rate_limit_per_hour: int = DEFAULT_RATE_LIMIT,
    question_max_chars: int = DEFAULT_MAX_CHARS,
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
    if parsed.hidden_text:  # dropped from the question; the reviewer is told what was hidden
        message.flags = [*(f for f in message.flags or [] if f.get("kind") != HIDDEN_TEXT), hidden_text_flag(parsed.hidden_text)]
        queue.audit(session=session, actor=queue.SYSTEM, event=HIDDEN_TEXT, message_id=message.id, details={"kinds": sorted({h["kind"] for h in parsed.hidden_text}), "count": len(parsed.hidden_text)})
    if parsed.mime_defects:  # read as far as it could be: the reviewer is told the structure was broken
        message.flags = [*(f for f in message.flags or [] if f.get("kind") != "mime_defects"), {"kind": "mime_defects", "flag": f"estructura MIME dañada, se leyó el texto recuperable ({', '.join(parsed.mime_defects)})"}]
    if parsed.date is not None:
        message.received_at = parsed.date  # already UTC (parse_email drops dates that cannot be)
    session.add(message)
    if own_message_ids is None:
        own_message_ids = _own_ids(session, parsed.message_id, parsed.in_reply_to)
    reason = skip_reason(parsed, own_message_ids=own_message_ids)
    if reason is None and is_own_address(parsed.sender, own_address):
        reason = "loop: sent from our own address"
    if reason is None and parsed.sender:
        since = message.received_at - timedelta(hours=1)
        recent = queue.count_recent_from(session=session, sender=parsed.sender, since=since, until=message.received_at, exclude_id=message.id)
        if recent >= rate_limit_per_hour:
            reason = f"rate_limited: {recent} messages from {parsed.sender} within an hour"
    if reason:
        queue.skip(session=session, message=message, reason=reason)
        return message
    others = [m for m in queue.inbound_with_external_id(session=session, external_id=parsed.message_id) if m.id != message.id] if parsed.message_id else []
    mine = fingerprint(raw)
    copy = next((m for m in others if m.raw is not None and fingerprint(m.raw) == mine), None)
    if copy is not None:
        queue.skip(session=session, message=message, reason=f"duplicate of message {copy.id} (same Message-ID and content)")
        return message
    if others:  # a different mail with a stored Message-ID: its own message, flagged for the reviewer
        message.reason = f"reused_message_id: Message-ID already used by message {others[0].id}"
        queue.audit(session=session, actor=queue.SYSTEM, event="reused_message_id", message_id=message.id, details={"other": others[0].id})
    cleaned = clean_text(parsed.body_text)
    if not cleaned:
        queue.quarantine(session=session, message=message, reason="empty: only hidden text" if parsed.hidden_text else "empty: no question left after cleaning")
        return message
    message.cleaned_text = cleaned
    # Only the question part (bounded) is redacted and later embedded or sent to an LLM; the full text stays for the reviewer.
    message.redacted_text = redact(focus_question(cleaned, question_max_chars), names=[parsed.sender_name or ""]).text
    session.add(message)
    return message
