"""Loop step 1: store every new inbound message (Maildir, IMAP) exactly once."""

from __future__ import annotations

import logging

from bot.email.intake import intake_email, store_unreadable
from bot.errors import ChannelError
from bot.wiring.metrics import count_message, mailbox_polled
from bot.loop.run_report import RunReport
from bot.wiring.services import Services
from pipeline.errors import is_transient
from pipeline.settings import Settings
from review import queue, states
from review.db import session_scope

log = logging.getLogger(__name__)


def email_options(settings: Settings) -> dict:
    """How stored e-mails are read: size limit, the office's own addresses, sender rate limit, question budget."""
    return {
        "max_bytes": settings.imap.max_message_bytes,
        "own_address": settings.smtp.own_addresses,
        "rate_limit_per_hour": settings.imap.rate_limit_per_hour,
        "question_max_chars": settings.drafting.question_max_chars,
    }


def intake_maildir(services: Services, report: RunReport) -> None:
    """Store every new message of the configured Maildir exactly once; one unreadable message never stops the pass."""
    from bot.email.maildir import iter_maildir

    path = services.settings.paths.maildir
    if path is None:
        return
    options = email_options(services.settings)
    for source_key, raw in iter_maildir(path):
        try:
            with session_scope(services.engine) as session:
                if queue.find_inbound(session=session, source_key=source_key):
                    report.duplicates += 1
                    continue
                message, created = intake_email(session, raw, source_key=source_key, **options)
                report.stored += created
                report.skipped += message.state == states.SKIPPED
                report.quarantined += message.state == states.QUARANTINED
            count_message("email", "received", created)
            if created and message.state in (states.SKIPPED, states.QUARANTINED):
                count_message("email", message.state)
        except Exception as exc:  # the edge: storing failed; keep it quarantined (or at least reported) and go on
            log.exception("storing %s failed", source_key)
            report.errors.append(f"{source_key}: {type(exc).__name__}: {exc}")
            if is_transient(exc):  # the database is down or busy: the mail stays in the Maildir, stored on a later pass
                continue
            try:
                with session_scope(services.engine) as session:
                    _, created = store_unreadable(session, raw, source_key=source_key, exc=exc)
                    report.stored += created
                    report.quarantined += created
                count_message("email", "received", created)
                count_message("email", "quarantined", created)
            except Exception:  # noqa: BLE001 - the database itself refuses: the error above is in the report
                log.exception("could not even quarantine %s", source_key)


def intake_imap(services: Services, report: RunReport) -> None:
    """One catch-up pass over the configured IMAP mailbox (reconnecting on a broken connection)."""
    from bot.email.imap import ImapIntake

    if not services.settings.imap.host:
        return
    s = services.settings
    intake = ImapIntake(s.imap, engine=services.engine, own_address=s.smtp.own_addresses, question_max_chars=s.drafting.question_max_chars)
    try:
        sync = intake.sync_with_retry()
    except ChannelError as exc:
        log.error("IMAP intake failed: %s", exc)
        report.errors.append(f"imap: {exc}")
        return
    finally:
        intake.close()
    mailbox_polled()
    count_message("email", "received", sync.stored)
    count_message("email", "skipped", sync.skipped)
    count_message("email", "quarantined", sync.quarantined)
    report.stored += sync.stored
    report.duplicates += sync.duplicates
    report.skipped += sync.skipped
    report.quarantined += sync.quarantined
