"""Digest delivery: summary blocks and chart to Slack (local Web API server), HTML e-mail over real SMTP."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from slack_sdk import WebClient
from sqlmodel import Session

from bot.loop.digest_delivery import deliver_digest, summary_blocks
from bot.wiring.services import Services
from review.digest import build_digest, write_report
from tests.review.digest_week import DOCS, WEEK, build_week


@pytest.fixture
def week(settings):
    services = Services(settings)
    from review.db import session_scope

    with session_scope(services.engine) as session:
        build_week(session)
    with Session(services.engine) as session:
        digest = build_digest(session=session, week=WEEK, documents=DOCS, now=datetime(2026, 12, 1, tzinfo=timezone.utc))
    md, html = write_report(digest, settings.paths.reports_dir)
    return services, digest, md, html


def test_summary_blocks_are_plain_data(week):
    _, digest, _, _ = week
    blocks = summary_blocks(digest)
    assert blocks[0]["type"] == "header" and WEEK in blocks[0]["text"]["text"]
    body = blocks[1]["text"]["text"]
    assert "Recibidos 10" in body and "kappa 0.80" in body and "75 %" in body and "p50 45 min" in body
    assert "US$ 0.0350" in blocks[2]["elements"][0]["text"]


def test_slack_and_email(week, slack_server, smtp_server):
    services, digest, md, html = week
    s = services.settings
    s.slack.review_channel = "C0REVIEW"
    s.digest.recipients = ["jefa@ingenieria.example.edu.uy", "equipo@ingenieria.example.edu.uy"]
    s.smtp.host, s.smtp.port, s.smtp.security = smtp_server.host, smtp_server.port, "none"
    client = WebClient(token="xoxb-test", base_url=slack_server.api_url)
    out = deliver_digest(services, digest, md, html, client=client)
    assert out.slack_ts and out.slack_file and out.emailed == s.digest.recipients and not out.skipped
    posted = slack_server.messages["C0REVIEW"]
    assert posted[0]["blocks"][0]["type"] == "header"
    f = slack_server.files[out.slack_file]
    assert f["content"].startswith(b"\x89PNG") and f["name"] == f"orienta-{WEEK}.png"
    assert [c.method for c in slack_server.calls if c.method.startswith("files.")] == ["files.getUploadURLExternal", "files.completeUploadExternal"]
    [mail] = smtp_server.messages
    assert sorted(mail.rcpt_tos) == sorted(s.digest.recipients)
    m = mail.message
    assert m["Subject"] == f"Resumen semanal de orienta — {WEEK}"
    html_part = m.get_body(("html",)).get_content()
    assert "data:image/png;base64," in html_part and "Kappa de Cohen" in html_part
    assert "| Recibidos | 10 |" in m.get_body(("plain",)).get_content()


def test_without_channels_the_email_goes_to_the_outbox(week):
    services, digest, md, html = week
    services.settings.digest.recipients = ["jefa@ingenieria.example.edu.uy"]
    out = deliver_digest(services, digest, md, html)
    assert out.slack_ts is None and out.outbox and any("slack" in r for r in out.skipped)
    import mailbox

    [msg] = list(mailbox.Maildir(services.settings.paths.outbox_dir, create=False))
    assert msg["To"] == "jefa@ingenieria.example.edu.uy"


def test_nothing_configured_sends_nothing(week):
    services, digest, md, html = week
    out = deliver_digest(services, digest, md, html)
    assert out.emailed == [] and out.slack_ts is None and len(out.skipped) == 2
