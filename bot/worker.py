"""The loop's steps: store and clean inbound messages, gate and draft them, send approved replies."""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass, field
from email.utils import parseaddr

from sqlmodel import Session

from bot.email.intake import intake_email, needs_processing, process_stored
from bot.email.maildir import OutboxMaildir, build_reply
from bot.errors import ChannelError, SendUncertain
from bot.services import Services
from pipeline.errors import PipelineError
from pipeline.generation import Answer
from pipeline.texts import t
from review import queue, states
from review.db import session_scope
from review.models import DraftCreate, InboundMessage, OutgoingReply

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
    uncertain: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return self.__dict__.copy()


# ---------------------------------------------------------------- intake
__all__ = ["RunReport", "intake_email", "intake_maildir", "intake_imap", "draft_for", "draft_pending", "send_approved", "run_once"]
MAX_SEND_ATTEMPTS = 5


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
            message, created = intake_email(
                session, raw, source_key=source_key, max_bytes=services.settings.imap.max_message_bytes,
                own_address=services.settings.smtp.from_, rate_limit_per_hour=services.settings.imap.rate_limit_per_hour,
            )
            report.stored += created
            report.skipped += message.state == states.SKIPPED
            report.quarantined += message.state == states.QUARANTINED


def intake_imap(services: Services, report: RunReport) -> None:
    """One catch-up pass over the configured IMAP mailbox (reconnecting on a broken connection)."""
    from bot.email.imap import ImapIntake

    if not services.settings.imap.host:
        return
    intake = ImapIntake(services.settings.imap, engine=services.engine, own_address=services.settings.smtp.from_)
    try:
        sync = intake.sync_with_retry()
    except ChannelError as exc:
        log.error("IMAP intake failed: %s", exc)
        report.errors.append(f"imap: {exc}")
        return
    finally:
        intake.close()
    report.stored += sync.stored
    report.duplicates += sync.duplicates
    report.skipped += sync.skipped
    report.quarantined += sync.quarantined


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
    r = services.settings.retrieval
    hits = services.retriever.retrieve(question, r.k, support=r.support_chunks)
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
            fallback=answer.fallback,
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
                if needs_processing(message):  # intake was interrupted after the raw commit: finish it first
                    imap = services.settings.imap
                    process_stored(session, message, max_bytes=imap.max_message_bytes, own_address=services.settings.smtp.from_, rate_limit_per_hour=imap.rate_limit_per_hour)
                    if message.state != states.RECEIVED:
                        report.skipped += message.state == states.SKIPPED
                        report.quarantined += message.state == states.QUARANTINED
                        continue
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
def _begin_sending(session: Session, reply: OutgoingReply, our_message_id: str) -> None:
    """Record our Message-ID (or reply key) and the `sending` state before anything leaves."""
    reply.our_message_id = our_message_id
    reply.state = "sending"
    session.add(reply)
    session.commit()


def _email_reply(services: Services, reply: OutgoingReply):
    from_addr = services.settings.smtp.from_
    return build_reply(
        from_addr=from_addr,
        to_addr=reply.recipient or "",
        subject=reply.subject or "",
        body=reply.body,
        in_reply_to=reply.in_reply_to,
        references=reply.references_header,
        domain=parseaddr(from_addr)[1].split("@")[-1] or None,
        message_id=reply.our_message_id,  # a retry keeps the same Message-ID
    )


def send_email_reply(services: Services, session: Session, reply: OutgoingReply) -> None:
    """Deliver one approved e-mail reply exactly once: SMTP (+ Sent copy) when configured, else the outbox Maildir."""
    if not services.settings.smtp.host:
        outbox = OutboxMaildir(services.settings.paths.outbox_dir)
        if reply.our_message_id and outbox.find(reply.our_message_id):  # delivered before a crash: just record it
            queue.mark_sent(session=session, reply=reply, our_message_id=reply.our_message_id)
            return
        msg = _email_reply(services, reply)
        _begin_sending(session, reply, msg["Message-ID"])
        outbox.deliver(msg)
        queue.mark_sent(session=session, reply=reply, our_message_id=msg["Message-ID"])
        return
    from bot.email.smtp import SmtpSender

    sender = SmtpSender(services.settings.smtp, services.settings.imap)
    if reply.state == "sending" and reply.our_message_id and sender.find_in_sent(reply.our_message_id):
        log.info("reply %s was delivered before a crash (found in Sent): recording it, not sending again", reply.id)
        queue.mark_sent(session=session, reply=reply, our_message_id=reply.our_message_id)
        return
    msg = _email_reply(services, reply)
    _begin_sending(session, reply, msg["Message-ID"])
    sender.send(msg)
    try:
        sender.append_to_sent(msg)
    except ChannelError as exc:  # delivered: the missing Sent copy must not cause a second delivery
        log.warning("reply %s sent, but the copy to Sent failed: %s", reply.id, exc)
    queue.mark_sent(session=session, reply=reply, our_message_id=msg["Message-ID"])


def send_slack_reply(services: Services, session: Session, reply: OutgoingReply) -> None:
    """Post one approved Slack reply in the student's thread exactly once (embedded: the outbox file)."""
    from bot.slack.outbox import SlackOutboxFile, SlackReplyPoster

    key = f"orienta-reply-{reply.id}"
    channel, _, thread_ts = (reply.references_header or "").partition(":")
    if services.settings.slack.bot_token is None:
        outbox = SlackOutboxFile(services.settings.paths.outbox_dir / "slack.jsonl")
        if not outbox.find(key):
            outbox.post(channel=channel, thread_ts=thread_ts, text=reply.body, reply_key=key)
        queue.mark_sent(session=session, reply=reply, our_message_id=key)
        return
    from bot.slack.app import web_client

    poster = SlackReplyPoster(web_client(services))
    if reply.state == "sending" and poster.find(channel=channel, thread_ts=thread_ts, reply_key=key):
        queue.mark_sent(session=session, reply=reply, our_message_id=key)
        return
    _begin_sending(session, reply, key)
    poster.post(channel=channel, thread_ts=thread_ts, text=reply.body, reply_key=key)
    queue.mark_sent(session=session, reply=reply, our_message_id=key)


SENDERS = {"email": send_email_reply, "slack": send_slack_reply}


def send_approved(services: Services, report: RunReport) -> None:
    """Send every approved reply not yet out (and reconcile `sending` rows left by a crash), through its channel."""
    with session_scope(services.engine) as session:
        rows = list(queue.replies_in_state(session=session, state="sending")) + list(queue.pending_replies(session=session))
        ids = [r.id for r in rows if r.attempts < MAX_SEND_ATTEMPTS]
    for rid in ids:
        with session_scope(services.engine) as session:
            reply = session.get(OutgoingReply, rid)
            if reply is None or reply.state in ("sent", "uncertain"):
                continue
            try:
                SENDERS[reply.channel](services, session, reply)
                report.sent += 1
            except SendUncertain as exc:  # never retried blindly: a person checks whether the student got it
                log.error("reply %s: %s", rid, exc)
                session.rollback()
                reply = session.get(OutgoingReply, rid)
                if reply is not None:
                    queue.mark_send_failed(session=session, reply=reply, error=f"uncertain: {exc}")
                    reply.state = "uncertain"
                    session.add(reply)
                report.uncertain += 1
            except Exception as exc:  # the edge: record the failure on the outbox row and go on
                log.exception("sending reply %s failed", rid)
                session.rollback()
                reply = session.get(OutgoingReply, rid)
                if reply is not None:
                    queue.mark_send_failed(session=session, reply=reply, error=f"{type(exc).__name__}: {exc}")
                report.failed += 1


def run_once(services: Services) -> RunReport:
    """One pass: intake (Maildir and IMAP), drafting, sending."""
    report = RunReport()
    intake_maildir(services, report)
    intake_imap(services, report)
    draft_pending(services, report)
    from bot.slack.reviewing import review_pass  # review cards for new drafts (issue 7); no-op without Slack review

    review_pass(services)
    send_approved(services, report)
    return report
