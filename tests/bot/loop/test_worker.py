"""The worker against real servers: IMAP intake to drafts, replies over SMTP (Sent copy, exactly once), Slack thread replies."""

from __future__ import annotations

import email
from email import policy

import pytest
from pydantic import SecretStr
from sqlmodel import Session, select

from bot.email.intake import intake_email
from bot.email.smtp import SmtpSender
from bot.wiring.services import Services
from bot.loop.worker import RunReport, _begin_sending, _email_reply, run_once, send_approved
from review import queue, states
from review.db import session_scope
from review.models import DraftCreate, InboundMessage, OutgoingReply

STUDENT = (
    b"From: Ana <ana@example.org>\r\nTo: consultas@ingenieria.example.edu.uy\r\nSubject: Inscripcion\r\n"
    b"Message-ID: <q1@example.org>\r\nReferences: <older@example.org>\r\nDate: Fri, 20 Nov 2026 10:00:00 -0300\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n\r\nHola, \xc2\xbfhasta cu\xc3\xa1ndo me inscribo? Mi celular es 099 123 456.\r\n\r\nGracias\r\nAna\r\n"
)


@pytest.fixture
def services(settings, imap_account, smtp_server):
    settings.imap.host, settings.imap.port, settings.imap.security = imap_account.host, imap_account.port, "none"
    settings.imap.user, settings.imap.password = imap_account.user, SecretStr(imap_account.password)
    settings.smtp.host, settings.smtp.port, settings.smtp.security = smtp_server.host, smtp_server.port, "none"
    settings.gate.enabled = False
    svc = Services(settings)
    yield svc
    svc.close()


def _approved_email_reply(svc: Services, raw: bytes = STUDENT, key: str = "test:1") -> int:
    with session_scope(svc.engine) as session:
        message, _ = intake_email(session, raw, source_key=key, max_bytes=10**6)
        queue.record_classification(session=session, message=message, in_domain=True, score=0.9)
        draft = queue.create_draft(session=session, message=message, data=DraftCreate(message_id=message.id, text="La inscripción es del 11 al 22 de enero.", method="rag", model="test"))
        queue.approve(session=session, draft_id=draft.id, actor="staff")
        return message.id


def _reply(svc: Services) -> OutgoingReply:
    with Session(svc.engine) as s:
        return s.exec(select(OutgoingReply)).one()


def test_intake_stores_raw_cleaned_and_redacted_text(services):
    mid = _approved_email_reply(services)
    with Session(services.engine) as s:
        m = s.get(InboundMessage, mid)
    assert m.raw == STUDENT
    assert m.cleaned_text == "¿hasta cuándo me inscribo? Mi celular es 099 123 456."
    assert m.redacted_text == "¿hasta cuándo me inscribo? Mi celular es [TELEFONO]."


def test_reply_goes_out_threaded_once_with_a_sent_copy(services, smtp_server, imap_account):
    _approved_email_reply(services)
    first, second = RunReport(), RunReport()
    send_approved(services, first)
    send_approved(services, second)
    assert (first.sent, second.sent) == (1, 0)
    [received] = smtp_server.messages
    msg = received.message
    assert received.rcpt_tos == ["ana@example.org"]
    assert msg["Subject"] == "Re: Inscripcion" and msg["In-Reply-To"] == "<q1@example.org>"
    assert msg["References"].split() == ["<older@example.org>", "<q1@example.org>"]
    assert msg["Message-ID"].endswith("@ingenieria.example.edu.uy>") and "consultas@ingenieria.example.edu.uy" in msg["From"]
    sent = imap_account.server.fetch_all("Sent", imap_account.user, imap_account.password)
    assert len(sent) == 1 and email.message_from_bytes(sent[0][1], policy=policy.default)["Message-ID"].strip() == msg["Message-ID"].strip()
    reply = _reply(services)
    assert reply.state == "sent" and reply.our_message_id == msg["Message-ID"].strip()
    with Session(services.engine) as s:
        assert s.get(InboundMessage, reply.message_id).state == states.SENT


def test_crash_after_smtp_acceptance_is_detected_in_sent_and_not_resent(services, smtp_server):
    _approved_email_reply(services)
    with session_scope(services.engine) as session:  # what a worker did before it was killed
        reply = session.exec(select(OutgoingReply)).one()
        msg = _email_reply(services, reply)
        _begin_sending(session, reply, msg["Message-ID"])
        sender = SmtpSender(services.settings.smtp, services.settings.imap)
        sender.send(msg)
        sender.append_to_sent(msg)
    assert _reply(services).state == "sending"
    report = RunReport()
    send_approved(services, report)  # the restarted worker
    assert report.sent == 1 and len(smtp_server.messages) == 1
    assert _reply(services).state == "sent"


def test_crash_before_smtp_resends_with_the_same_message_id(services, smtp_server):
    _approved_email_reply(services)
    with session_scope(services.engine) as session:
        reply = session.exec(select(OutgoingReply)).one()
        _begin_sending(session, reply, "<fixed-id@ingenieria.example.edu.uy>")
    send_approved(services, RunReport())
    [received] = smtp_server.messages
    assert received.message["Message-ID"].strip() == "<fixed-id@ingenieria.example.edu.uy>"


def test_connection_lost_after_acceptance_is_never_retried_blindly(services, smtp_server):
    _approved_email_reply(services)
    smtp_server.drop_next(after_accept=True)
    first, second = RunReport(), RunReport()
    send_approved(services, first)
    send_approved(services, second)
    assert (first.uncertain, second.sent, len(smtp_server.messages)) == (1, 0, 1)
    reply = _reply(services)
    assert reply.state == "uncertain" and "uncertain" in reply.last_error
    with Session(services.engine) as s:
        assert s.get(InboundMessage, reply.message_id).state == states.SEND_FAILED


def test_temporary_refusal_is_retried_on_the_next_pass(services, smtp_server):
    _approved_email_reply(services)
    smtp_server.fail_next(code=451)
    first, second = RunReport(), RunReport()
    send_approved(services, first)
    assert first.failed == 1 and _reply(services).state == "failed" and not smtp_server.messages
    send_approved(services, second)
    assert second.sent == 1 and len(smtp_server.messages) == 1 and _reply(services).state == "sent"


def test_our_own_reply_coming_back_is_skipped_as_a_loop(services, smtp_server):
    _approved_email_reply(services)
    send_approved(services, RunReport())
    echoed = smtp_server.messages[0].data
    with session_scope(services.engine) as session:
        message, _ = intake_email(session, echoed, source_key="test:echo", max_bytes=10**6)
    assert message.state == states.SKIPPED and message.reason.startswith("loop")


def test_run_once_takes_mail_from_imap_to_a_draft(services, imap_account):
    from bot.ops.documents import ingest_documents

    ingest_documents(services)
    imap_account.append(STUDENT)
    auto = STUDENT.replace(b"<q1@", b"<q2@").replace(b"Subject: Inscripcion", b"Subject: Fuera de oficina\r\nAuto-Submitted: auto-replied")
    imap_account.append(auto)
    first = run_once(services)
    second = run_once(services)
    assert (first.stored, first.skipped, first.drafted) == (2, 1, 1)
    assert (second.stored, second.drafted) == (0, 0)
    with Session(services.engine) as s:
        rows = s.exec(select(InboundMessage).order_by(InboundMessage.id)).all()
    assert [(r.state, r.reason) for r in rows][0] == (states.DRAFTED, None)
    assert rows[1].state == states.SKIPPED
    assert rows[1].reason.startswith("auto_reply")


def test_per_sender_rate_limit(services):
    with session_scope(services.engine) as session:
        states_seen = []
        for i in range(4):
            raw = STUDENT.replace(b"<q1@", f"<r{i}@".encode())
            message, _ = intake_email(session, raw, source_key=f"test:r{i}", max_bytes=10**6, rate_limit_per_hour=3)
            session.commit()
            states_seen.append((message.state, (message.reason or "").split(":")[0]))
    assert states_seen[:3] == [(states.RECEIVED, "")] * 3
    assert states_seen[3] == (states.SKIPPED, "rate_limited")


def test_slack_reply_is_posted_in_the_thread_once(settings, slack_server):
    settings.slack.bot_token, settings.slack.signing_secret = SecretStr("xoxb-test"), SecretStr("s3cret-signing")
    settings.slack.base_url = slack_server.api_url
    settings.gate.enabled = False
    svc = Services(settings)
    slack_server.add_message("C0CHAN001", "¿cuándo abre bedelía?", ts="1700000000.000100")
    from bot.slack.intake import intake_slack_event

    with session_scope(svc.engine) as session:
        event = {"type": "message", "channel": "C0CHAN001", "user": "U0USER001", "text": "¿cuándo abre bedelía?", "ts": "1700000000.000100", "channel_type": "channel"}
        message, _ = intake_slack_event(session, event, event_id="Ev1")
        queue.record_classification(session=session, message=message, in_domain=True, score=0.9)
        draft = queue.create_draft(session=session, message=message, data=DraftCreate(message_id=message.id, text="De 9 a 17.", method="rag", model="test"))
        queue.approve(session=session, draft_id=draft.id, actor="staff")
    with session_scope(svc.engine) as session:  # a worker that posted, then died before recording it
        reply = session.exec(select(OutgoingReply)).one()
        _begin_sending(session, reply, f"orienta-reply-{reply.id}")
        from bot.slack.app import web_client
        from bot.slack.outbox import SlackReplyPoster

        SlackReplyPoster(web_client(svc)).post(channel="C0CHAN001", thread_ts="1700000000.000100", text="De 9 a 17.", reply_key=f"orienta-reply-{reply.id}")
    report = RunReport()
    send_approved(svc, report)
    send_approved(svc, RunReport())
    posts = [c for c in slack_server.calls if c.method == "chat.postMessage"]
    assert report.sent == 1 and len(posts) == 1
    assert posts[0].args["thread_ts"] == "1700000000.000100" and posts[0].args["channel"] == "C0CHAN001"
    svc.close()


def test_intake_interrupted_after_the_raw_commit_is_finished_by_the_worker(services):
    from bot.email.parse import content_hash
    from bot.loop.worker import draft_pending
    from review.models import InboundMessageCreate

    with session_scope(services.engine) as session:  # the process died right after committing the raw bytes
        queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="imap:x:INBOX:1:1", raw=STUDENT, content_hash=content_hash(STUDENT)))
    report = RunReport()
    draft_pending(services, report)
    with Session(services.engine) as s:
        m = s.exec(select(InboundMessage)).one()
    assert m.redacted_text == "¿hasta cuándo me inscribo? Mi celular es [TELEFONO]."
    assert m.state in (states.DRAFTED, states.QUARANTINED) and report.drafted + report.quarantined == 1
