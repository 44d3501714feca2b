"""Slack events become inbound messages, stored exactly once (by event id, else channel+ts)."""

from __future__ import annotations

import hashlib
import html
import json
import logging
import re

from sqlmodel import Session

from bot.email.intake import quarantine_after_error
from pipeline.cleaning import clean_text
from pipeline.question import DEFAULT_MAX_CHARS, focus_question
from pipeline.redaction import redact
from bot.wiring.metrics import count_message
from review import queue, states
from review.models import InboundMessage, InboundMessageCreate

log = logging.getLogger(__name__)
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]+))?>")


def slack_plain_text(text: str) -> str:
    """Slack mrkdwn to plain text: mentions dropped, links to their label, entities unescaped."""
    text = _MENTION.sub("", text or "")
    text = _LINK.sub(lambda m: m.group(2) or m.group(1).removeprefix("mailto:"), text)
    return html.unescape(text).strip()


def slack_source_key(event: dict, event_id: str | None) -> str:
    """One key per Slack message (channel + ts): retries of an event and its message/app_mention twins collapse."""
    if event.get("channel") and event.get("ts"):
        return f"slack:{event['channel']}:{event['ts']}"
    return f"slack:{event_id}"


def intake_slack_event(session: Session, event: dict, *, event_id: str | None = None, question_max_chars: int = DEFAULT_MAX_CHARS) -> tuple[InboundMessage, bool]:
    """Store a Slack message/app_mention event, then clean and redact its (bounded) question; a failure after storing quarantines it."""
    raw = json.dumps({"event_id": event_id, "event": event}, ensure_ascii=False, sort_keys=True).encode("utf-8")
    message, created = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(
            channel="slack",
            source_key=slack_source_key(event, event_id),
            external_id=f"{event.get('channel')}:{event.get('ts')}",
            thread_ref=f"{event.get('channel')}:{event.get('thread_ts') or event.get('ts')}",
            sender=event.get("user"),
            subject=None,
            raw=raw,
            content_hash=hashlib.sha256(raw).hexdigest(),
        ),
    )
    if not created:
        return message, False
    session.commit()
    try:
        _read(session, message, event, question_max_chars)
        session.flush()
    except Exception as exc:  # the edge of one message: it is kept, quarantined with the exception text
        log.exception("reading Slack message %s failed; quarantining it", message.id)
        message = quarantine_after_error(session, message.id, exc, stage="reading")  # type: ignore[arg-type]
    count_message("slack", "received")
    if message.state in (states.SKIPPED, states.QUARANTINED):
        count_message("slack", message.state)
    return message, True


def _read(session: Session, message: InboundMessage, event: dict, question_max_chars: int) -> None:
    if event.get("bot_id") or event.get("subtype") in ("bot_message", "message_changed", "message_deleted"):
        queue.skip(session=session, message=message, reason=f"slack: {event.get('subtype') or 'bot message'}")
        return
    text = slack_plain_text(event.get("text") or "")
    message.body_text = text
    cleaned = clean_text(text)
    if not cleaned:
        queue.quarantine(session=session, message=message, reason="empty: no text in the Slack message")
        return
    message.cleaned_text = cleaned
    message.redacted_text = redact(focus_question(cleaned, question_max_chars)).text
    session.add(message)
