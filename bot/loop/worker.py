"""One pass of the loop: intake, drafting, review cards, sending (each step lives in its own module)."""

from __future__ import annotations

import logging

from bot.loop.drafting import draft_for, draft_message, draft_pending
from bot.loop.intake import intake_imap, intake_maildir
from bot.loop.run_report import RunReport
from bot.loop.sending import _begin_sending, _email_reply, send_approved
from bot.wiring.services import Services
from pipeline.errors import is_transient

log = logging.getLogger(__name__)

__all__ = ["RunReport", "intake_maildir", "intake_imap", "draft_for", "draft_message", "draft_pending", "send_approved", "run_once", "_begin_sending", "_email_reply"]


def run_once(services: Services) -> RunReport:
    """One pass: intake (Maildir and IMAP), drafting, review cards, sending, retention.

    A step that fails transiently (the database or another service down: pipeline.errors.is_transient) is recorded in
    the report and the pass goes on; what it did not do waits for the next pass (mail stays in the Maildir, messages
    keep their state). Anything else is raised."""
    report = RunReport()
    from bot.slack.reviewing import review_pass  # review cards for new drafts (issue 7); no-op without Slack review
    from bot.loop.retention import apply_retention

    def retention() -> None:
        report.purged = apply_retention(services).database.messages

    steps = (
        ("intake_maildir", lambda: intake_maildir(services, report)),
        ("intake_imap", lambda: intake_imap(services, report)),
        ("drafting", lambda: draft_pending(services, report, due_only=False)),  # a pass asked for by hand tries waiting messages now; the running loop backs off
        ("review_cards", lambda: review_pass(services)),
        ("sending", lambda: send_approved(services, report)),
        ("retention", retention),
    )
    for name, step in steps:
        try:
            step()
        except Exception as exc:
            if not is_transient(exc):
                raise
            log.warning("%s could not run (%s: %s); what it would do waits for the next pass", name, type(exc).__name__, exc)
            report.errors.append(f"{name}: {type(exc).__name__}: {exc}")
    return report
