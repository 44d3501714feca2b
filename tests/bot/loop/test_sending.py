"""Sending (issue 14): one pass sends every approved reply, not a page of them."""

from __future__ import annotations

from bot.loop.run_report import RunReport
from bot.loop.sending import send_approved
from bot.wiring.services import Services
from review import queue
from review.db import session_scope
from tests.review.factories import make_drafted


def test_one_pass_sends_all_approved_replies_even_past_a_hundred(settings):
    settings.gate.enabled = False
    svc = Services(settings)
    try:
        with session_scope(svc.engine) as s:
            for i in range(130):
                draft, _ = make_drafted(s, sender=f"est{i}@example.org", subject=f"consulta {i}")
                queue.approve(session=s, draft_id=draft.id, actor="staff")
        report = RunReport()
        send_approved(svc, report)
        assert report.sent == 130 and report.failed == 0
        with session_scope(svc.engine) as s:
            assert list(queue.pending_replies(session=s)) == []
    finally:
        svc.close()
