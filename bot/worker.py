"""The loop's steps: store and clean inbound messages, gate and draft them, send approved replies."""

from __future__ import annotations

import logging
import socket
from datetime import timezone
from dataclasses import dataclass, field
from email.utils import parseaddr

from sqlmodel import Session

from bot.email.maildir import OutboxMaildir, build_reply
from bot.email.parse import content_hash, parse_email, skip_reason
from bot.errors import MalformedMessage
from bot.services import Services
from pipeline.cleaning import clean_text
from pipeline.errors import PipelineError
from pipeline.generation import Answer
from pipeline.redaction import redact
from pipeline.texts import t
from review import queue, states
from review.db import session_scope
from review.models import DraftCreate, InboundMessage, InboundMessageCreate, OutgoingReply

log = logging.getLogger(__name__)
WORKER_ID = f"{socket.gethostname()}"


@dataclass
class RunReport:
    """What one pass of the loop did."""

    stored: int = 0
    duplicates: int = 0
    skipped: int = 0
    quarantined: int = 0
    drafted: int = 0
    sent: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return self.__dict__.copy()


# ---------------------------------------------------------------- intake
def intake_email(session: Session, raw: bytes, *, source_key: str, max_bytes: int, own_message_ids: frozenset[str] = frozenset()) -> tuple[InboundMessage, bool]:
    """Store the raw e-mail first, then parse, skip or quarantine it, and keep clean and redacted text."""
    message, created = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(channel="email", source_key=source_key, raw=raw, content_hash=content_hash(raw)),
    )
    if not created:
        return message, False
    session.commit()  # the raw message is safe before anything else happens
    try:
        parsed = parse_email(raw, max_bytes=max_bytes)
    except MalformedMessage as exc:
        queue.quarantine(session=session, message=message, reason=f"malformed: {exc}")
        return message, True
    message.external_id = parsed.message_id
    message.thread_ref = parsed.thread_ref
    message.sender = parsed.sender
    message.subject = parsed.subject
    message.attachments = parsed.attachments
    message.body_text = parsed.body_text
    if parsed.date is not None:
        message.received_at = parsed.date if parsed.date.tzinfo else parsed.date.replace(tzinfo=timezone.utc)
    session.add(message)
    reason = skip_reason(parsed, own_message_ids=own_message_ids)
    if reason:
        queue.skip(session=session, message=message, reason=reason)
        return message, True
    duplicate = queue.find_inbound(session=session, external_id=parsed.message_id) if parsed.message_id else None
    if duplicate is not None and duplicate.id != message.id:
        queue.skip(session=session, message=message, reason=f"duplicate of message {duplicate.id} (same Message-ID)")
        return message, True
    cleaned = clean_text(parsed.body_text)
    if not cleaned:
        queue.quarantine(session=session, message=message, reason="empty: no question left after cleaning")
        return message, True
    message.cleaned_text = cleaned
    message.redacted_text = redact(cleaned).text
    session.add(message)
    return message, True


def intake_maildir(services: Services, report: RunReport) -> None:
    """Store every new message of the configured Maildir exactly once."""
    from bot.email.maildir import iter_maildir

    path = services.settings.paths.maildir
    if path is None:
        return
    for source_key, raw in iter_maildir(path):
        with session_scope(services.engine) as session:
            if queue.find_inbound(session=session, source_key=source_key):
                report.duplicates += 1
                continue
            message, created = intake_email(session, raw, source_key=source_key, max_bytes=services.settings.imap.max_message_bytes)
            report.stored += created
            report.skipped += message.state == states.SKIPPED
            report.quarantined += message.state == states.QUARANTINED


# ---------------------------------------------------------------- drafting
def draft_for(services: Services, question: str) -> tuple[Answer, bool | None, float | None]:
    """Gate the question, then retrieve and generate (or the canned out-of-domain reply)."""
    gate = services.gate_or_none() if services.settings.gate.enabled else None
    in_domain, score = None, None
    if gate is not None:
        decision = gate.decide(question, services.embedder)
        in_domain, score = decision.in_domain, decision.score
    if in_domain is False:
        lang = services.settings.llm.language
        from pipeline.generation import format_reply

        return Answer(text=format_reply(t("out_of_domain", lang), [], lang), method="canned", model="canned"), in_domain, score
    hits = services.retriever.retrieve(question, services.settings.retrieval.k)
    return services.generator().generate(question, hits), in_domain, score


def draft_message(services: Services, session: Session, message: InboundMessage) -> None:
    """Gate and draft one stored message; failures quarantine it with the reason."""
    question = message.redacted_text or ""
    try:
        answer, in_domain, score = draft_for(services, question)
    except PipelineError as exc:
        queue.quarantine(session=session, message=message, reason=f"pipeline: {type(exc).__name__}: {exc}")
        return
    if message.state == states.RECEIVED:
        queue.record_classification(session=session, message=message, in_domain=in_domain, score=score)
    queue.create_draft(
        session=session,
        message=message,
        data=DraftCreate(
            message_id=message.id,  # type: ignore[arg-type]
            text=answer.text,
            method=answer.method,
            model=answer.model,
            no_info=answer.no_info,
            out_of_domain=in_domain is False,
            references=[r.as_dict() for r in answer.references],
            derivation=[s.as_dict() for s in answer.derivation],
            flags=answer.flags,
            chunks=answer.as_dict()["chunks"],
            prompt_hash=answer.prompt_hash,
            usage=answer.usage.as_dict(),
            cost_usd=answer.cost_usd,
            latency_ms=answer.latency_ms,
            gate_score=score,
            gate_in_domain=in_domain,
        ),
    )


def draft_pending(services: Services, report: RunReport, *, limit: int = 1000) -> None:
    """Draft every stored message that is waiting for one."""
    with session_scope(services.engine) as session:
        pending = queue.claim_for_drafting(session=session, worker=WORKER_ID, limit=limit)
        ids = [m.id for m in pending]
    for mid in ids:
        with session_scope(services.engine) as session:
            message = session.get(InboundMessage, mid)
            if message is None or message.state not in (states.RECEIVED, states.CLASSIFIED):
                continue
            try:
                draft_message(services, session, message)
                report.drafted += 1
            except Exception as exc:  # the edge: one bad message must not stop the worker
                log.exception("drafting message %s failed", mid)
                session.rollback()
                message = session.get(InboundMessage, mid)
                if message is not None and message.state in (states.RECEIVED, states.CLASSIFIED):
                    queue.quarantine(session=session, message=message, reason=f"internal error while drafting: {type(exc).__name__}: {exc}")
                    report.quarantined += 1
                report.errors.append(f"message {mid}: {exc}")


# ---------------------------------------------------------------- replies
def send_email_reply(services: Services, session: Session, reply: OutgoingReply) -> None:
    """Deliver one approved e-mail reply to the outbox Maildir, exactly once."""
    outbox = OutboxMaildir(services.settings.paths.outbox_dir)
    if reply.our_message_id and outbox.find(reply.our_message_id):  # delivered before a crash: just record it
        queue.mark_sent(session=session, reply=reply, our_message_id=reply.our_message_id)
        return
    from_addr = services.settings.smtp.from_
    msg = build_reply(
        from_addr=from_addr,
        to_addr=reply.recipient or "",
        subject=reply.subject or "",
        body=reply.body,
        in_reply_to=reply.in_reply_to,
        references=reply.references_header,
        domain=parseaddr(from_addr)[1].split("@")[-1] or None,
    )
    reply.our_message_id = msg["Message-ID"]
    reply.state = "sending"
    session.add(reply)
    session.commit()  # our Message-ID is recorded before the message leaves
    outbox.deliver(msg)
    queue.mark_sent(session=session, reply=reply, our_message_id=msg["Message-ID"])


def send_slack_reply(services: Services, session: Session, reply: OutgoingReply) -> None:
    """Post one approved Slack reply in the student's thread (embedded: the outbox file), exactly once."""
    from bot.slack.outbox import SlackOutboxFile

    outbox = SlackOutboxFile(services.settings.paths.outbox_dir / "slack.jsonl")
    key = f"orienta-reply-{reply.id}"
    if not outbox.find(key):
        channel, _, thread_ts = (reply.references_header or "").partition(":")
        outbox.post(channel=channel, thread_ts=thread_ts, text=reply.body, reply_key=key)
    queue.mark_sent(session=session, reply=reply, our_message_id=key)


SENDERS = {"email": send_email_reply, "slack": send_slack_reply}


def send_approved(services: Services, report: RunReport) -> None:
    """Send every approved reply that has not gone out yet, through the channel it came from."""
    with session_scope(services.engine) as session:
        ids = [r.id for r in queue.pending_replies(session=session)]
    for rid in ids:
        with session_scope(services.engine) as session:
            reply = session.get(OutgoingReply, rid)
            if reply is None or reply.state == "sent":
                continue
            try:
                SENDERS[reply.channel](services, session, reply)
                report.sent += 1
            except Exception as exc:  # the edge: record the failure on the outbox row and go on
                log.exception("sending reply %s failed", rid)
                session.rollback()
                reply = session.get(OutgoingReply, rid)
                if reply is not None:
                    queue.mark_send_failed(session=session, reply=reply, error=f"{type(exc).__name__}: {exc}")
                report.failed += 1


def run_once(services: Services) -> RunReport:
    """One pass: intake, drafting, sending."""
    report = RunReport()
    intake_maildir(services, report)
    draft_pending(services, report)
    send_approved(services, report)
    return report
