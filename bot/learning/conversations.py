"""Conversations: link an inbound message to the earlier one it follows up, its earlier turns, closings recorded without a draft."""

from __future__ import annotations

import re
from datetime import timedelta
from email import policy
from email.parser import BytesHeaderParser
from email.utils import parseaddr

from sqlmodel import Session, col, select

from pipeline.acknowledgement import classify
from pipeline.conversation import Turn, leans_on_context
from pipeline.redaction import redact
from review import queue, states
from review.models import InboundMessage, OutgoingReply

SUBJECT_FALLBACK_DAYS = 30  # a "Re:" with the same subject from the same sender within this window belongs to the thread
DM_FOLLOW_UP_HOURS = 24  # a top-level DM leaning on the student's previous DM within this window continues it
MAX_TURNS = 6
_MSGID = re.compile(r"<[^<>\s]+>")
_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|rv|fw|fwd|aw|sv|res)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)


def base_subject(subject: str | None) -> str:
    """The subject without its Re:/RV:/Fwd: prefixes, folded for comparison."""
    return " ".join(_REPLY_PREFIX.sub("", subject or "").lower().split())


def _slack_ts(message: InboundMessage) -> float:
    try:
        return float((message.external_id or "").rsplit(":", 1)[-1])
    except ValueError:
        return 0.0


def _earlier_email(session: Session, message: InboundMessage) -> InboundMessage | None:
    """The nearest earlier message named by References/In-Reply-To (a student's message, or one we answered with that Message-ID)."""
    for mid in reversed(_MSGID.findall(message.thread_ref or "")):
        found = session.exec(
            select(InboundMessage).where(InboundMessage.external_id == mid, InboundMessage.id != message.id, InboundMessage.state != states.SKIPPED).order_by(col(InboundMessage.id))
        ).first()
        if found is None:
            reply = queue.find_reply_by_message_id(session=session, our_message_id=mid)
            found = session.get(InboundMessage, reply.message_id) if reply is not None else None
        if found is not None and found.id != message.id and _same_sender(found, message):
            return found  # a forwarded thread names another student's messages: it starts a conversation of its own
    if not message.sender or not _REPLY_PREFIX.match(message.subject or "") or not base_subject(message.subject):
        return None
    since = message.received_at - timedelta(days=SUBJECT_FALLBACK_DAYS)
    same = session.exec(
        select(InboundMessage)
        .where(
            InboundMessage.channel == "email", InboundMessage.sender == message.sender, InboundMessage.id != message.id,
            InboundMessage.state != states.SKIPPED, col(InboundMessage.received_at) >= since, col(InboundMessage.received_at) <= message.received_at,
        )
        .order_by(col(InboundMessage.received_at).desc())
    ).all()
    return next((m for m in same if base_subject(m.subject) == base_subject(message.subject)), None)


def _same_sender(a: InboundMessage, b: InboundMessage) -> bool:
    return bool(a.sender) and (a.sender or "").strip().lower() == (b.sender or "").strip().lower()


def _earlier_slack(session: Session, message: InboundMessage) -> InboundMessage | None:
    """The same student's latest earlier message of the same Slack thread (thread_ts), the thread's root included.

    A conversation belongs to one student: another user replying in a channel thread starts a conversation of their own
    (the office's own posts reach the history as our replies, never as someone else's question)."""
    if not message.thread_ref or message.thread_ref == message.external_id or not message.sender:
        return None  # not a reply in a thread (or nobody to tie it to)
    mine = _slack_ts(message)
    rows = session.exec(
        select(InboundMessage).where(
            InboundMessage.channel == "slack", InboundMessage.id != message.id, InboundMessage.state != states.SKIPPED,
            InboundMessage.sender == message.sender,
            (InboundMessage.thread_ref == message.thread_ref) | (InboundMessage.external_id == message.thread_ref),
        )
    ).all()
    earlier = [m for m in rows if _slack_ts(m) < mine]
    return max(earlier, key=_slack_ts) if earlier else None


def _earlier_slack_dm(session: Session, message: InboundMessage) -> InboundMessage | None:
    """A top-level direct message that leans on the one before it ("¿y para Sistemas?") follows that one.

    Students often answer in the DM itself instead of in our reply's thread. Only a message without its own key terms
    is linked, to the same student's previous message in the same DM within DM_FOLLOW_UP_HOURS: a new full question
    starts a conversation of its own."""
    channel, _, ts = (message.external_id or "").rpartition(":")
    if not channel.startswith("D") or message.thread_ref != message.external_id or not leans_on_context(message.redacted_text or ""):
        return None
    mine = _slack_ts(message)
    rows = session.exec(
        select(InboundMessage).where(
            InboundMessage.channel == "slack", InboundMessage.id != message.id, InboundMessage.sender == message.sender,
            InboundMessage.state != states.SKIPPED, col(InboundMessage.external_id).startswith(f"{channel}:"),
        )
    ).all()
    earlier = [m for m in rows if mine - DM_FOLLOW_UP_HOURS * 3600 <= _slack_ts(m) < mine]
    return max(earlier, key=_slack_ts) if earlier else None


def link(session: Session, message: InboundMessage, *, _depth: int = 0) -> InboundMessage | None:
    """Record the message's conversation (and the earlier message it follows up); returns that earlier message or None."""
    if message.conversation_id is not None:
        return session.get(InboundMessage, message.follows_id) if message.follows_id else None
    if message.channel == "slack":
        earlier = _earlier_slack(session, message) or _earlier_slack_dm(session, message)
    else:
        earlier = _earlier_email(session, message)
    if earlier is not None and earlier.conversation_id is None:  # the earlier message is not drafted yet (stored in another order): link it first
        if _depth < MAX_TURNS:
            link(session, earlier, _depth=_depth + 1)
        if earlier.conversation_id is None:
            earlier.conversation_id = earlier.id
            session.add(earlier)
    message.follows_id = earlier.id if earlier is not None else None
    message.conversation_id = earlier.conversation_id if earlier is not None else message.id
    session.add(message)
    session.flush()
    if earlier is not None:
        queue.audit(session=session, actor=queue.SYSTEM, event="follow_up", message_id=message.id, details={"follows": earlier.id, "conversation": message.conversation_id})
    return earlier


def _display_names(message: InboundMessage) -> list[str]:
    """The student's name from the From header of a stored e-mail (staff replies often greet them by it)."""
    if message.channel != "email" or not message.raw:
        return []
    try:
        name = parseaddr(str(BytesHeaderParser(policy=policy.default).parsebytes(message.raw[:65536]).get("From") or ""))[0]
    except (ValueError, TypeError, LookupError):
        return []
    return [name] if name else []


def _office_reply(session: Session, message: InboundMessage) -> str | None:
    """What the office answered to `message` (an approved or sent reply), redacted (the student's name too)."""
    reply = session.exec(select(OutgoingReply).where(OutgoingReply.message_id == message.id)).first()
    return redact(reply.body, names=_display_names(message)).text if reply is not None and reply.body else None


def history(session: Session, message: InboundMessage, *, max_turns: int = MAX_TURNS) -> list[Turn]:
    """The earlier turns of the message's conversation, oldest first: each student message (redacted; closings marked acknowledged) and our reply to it."""
    turns: list[Turn] = []
    seen: set[int] = set()
    current = session.get(InboundMessage, message.follows_id) if message.follows_id else None
    while current is not None and current.id not in seen and len(turns) < max_turns:
        seen.add(current.id)  # type: ignore[arg-type]
        if current.state == states.ACKNOWLEDGED:  # shown on the card, kept out of the prompt (pipeline.conversation.spoken)
            if current.redacted_text:
                turns.append(Turn("student", current.redacted_text, current.id, acknowledged=True))
        else:
            answer = _office_reply(session, current)
            if answer:
                turns.append(Turn("office", answer, current.id))
            if current.redacted_text:
                turns.append(Turn("student", current.redacted_text, current.id))
        current = session.get(InboundMessage, current.follows_id) if current.follows_id else None
    return list(reversed(turns))[-max_turns:]


def acknowledge_if_closing(session: Session, message: InboundMessage) -> bool:
    """A closing with no new question ("gracias", "listo, ya lo hice") is recorded as acknowledged: no draft, no reply.

    Never for a message staff sent back to drafting ("necesita respuesta")."""
    if queue.staff_wants_reply(session=session, message_id=message.id):  # type: ignore[arg-type]
        return False
    verdict = classify(message.redacted_text or "")
    if not verdict.closing:
        return False
    message.reason = f"acknowledgement: {verdict.reason}"
    session.add(message)
    states.transition(session, message, states.ACKNOWLEDGED, actor=queue.SYSTEM, details={"reason": verdict.reason, "follows": message.follows_id})
    return True


def conversation_of(session: Session, message: InboundMessage) -> list[InboundMessage]:
    """Every message of the message's conversation, in the order received (itself included)."""
    if message.conversation_id is None:
        return [message]
    rows = session.exec(select(InboundMessage).where(InboundMessage.conversation_id == message.conversation_id)).all()
    key = _slack_ts if message.channel == "slack" else (lambda m: m.received_at)
    return sorted(rows, key=key)  # type: ignore[arg-type]


def standalone(llm, question: str, history: list[Turn]) -> tuple[str, object | None]:
    """The retrieval query of a follow-up: the `llm`'s rewrite when a model is configured, else the offline combination."""
    from pipeline.conversation import rewrite_query, standalone_query

    if not history:
        return question, None
    if llm is not None:
        return rewrite_query(llm, question, history)
    return standalone_query(question, history), None
