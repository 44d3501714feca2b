"""Loop step 3: send approved replies through their channel exactly once."""

from __future__ import annotations

import logging
import threading
from email.utils import parseaddr

from sqlmodel import Session

from bot.email.maildir import OutboxMaildir, build_reply
from bot.errors import ChannelError, SendUncertain
from bot.wiring.metrics import count_message
from bot.loop.run_report import RunReport
from bot.wiring.services import Services
from review import queue
from review.db import session_scope
from review.models import OutgoingReply

log = logging.getLogger(__name__)
_send_lock = threading.Lock()
MAX_SEND_ATTEMPTS = 5


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
        rows = list(queue.replies_in_state(session=session, state="sending", limit=None)) + list(queue.pending_replies(session=session, limit=None))  # all of them, not a page
        ids = [r.id for r in rows if r.attempts < MAX_SEND_ATTEMPTS]
    for rid in ids:
        outcome = None
        with session_scope(services.engine) as session:
            reply = session.get(OutgoingReply, rid)
            if reply is None or reply.state in ("sent", "uncertain"):
                continue
            channel = reply.channel
            try:
                SENDERS[reply.channel](services, session, reply)
                report.sent += 1
                outcome = "sent"
            except SendUncertain as exc:  # never retried blindly: a person checks whether the student got it
                log.error("reply %s: %s", rid, exc)
                session.rollback()
                reply = session.get(OutgoingReply, rid)
                if reply is not None:
                    queue.mark_send_failed(session=session, reply=reply, error=f"uncertain: {exc}")
                    reply.state = "uncertain"
                    session.add(reply)
                report.uncertain += 1
                outcome = "send_uncertain"
            except Exception as exc:  # the edge: record the failure on the outbox row and go on
                log.exception("sending reply %s failed", rid)
                session.rollback()
                reply = session.get(OutgoingReply, rid)
                if reply is not None:
                    queue.mark_send_failed(session=session, reply=reply, error=f"{type(exc).__name__}: {exc}")
                report.failed += 1
                outcome = "send_failed"
        if outcome is not None:
            count_message(channel, outcome)


def send_now(services: Services) -> None:
    """Send approved replies at once (after a click in Slack), one sender per process; the loop's sending pass does the same later."""
    with _send_lock:
        report = RunReport()
        send_approved(services, report)
    if report.failed:
        log.warning("sending approved replies: %d failed", report.failed)
