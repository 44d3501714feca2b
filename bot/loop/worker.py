"""One pass of the loop: intake, drafting, review cards, sending (each step lives in its own module)."""

from __future__ import annotations

from bot.loop.drafting import draft_for, draft_message, draft_pending
from bot.loop.intake import intake_imap, intake_maildir
from bot.loop.run_report import RunReport
from bot.loop.sending import _begin_sending, _email_reply, send_approved
from bot.wiring.services import Services

__all__ = ["RunReport", "intake_maildir", "intake_imap", "draft_for", "draft_message", "draft_pending", "send_approved", "run_once", "_begin_sending", "_email_reply"]


def run_once(services: Services) -> RunReport:
    """One pass: intake (Maildir and IMAP), drafting, review cards, sending, retention."""
    report = RunReport()
    intake_maildir(services, report)
    intake_imap(services, report)
    draft_pending(services, report, due_only=False)  # a pass asked for by hand tries waiting messages now; the running loop backs off
    from bot.slack.reviewing import review_pass  # review cards for new drafts (issue 7); no-op without Slack review

    review_pass(services)
    send_approved(services, report)
    from bot.loop.retention import apply_retention

    report.purged = apply_retention(services).database.messages
    return report
