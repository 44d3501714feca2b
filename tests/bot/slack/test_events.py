"""Slack events into the Bolt app: signed requests stored exactly once, retries collapsed, forged or stale ones rejected."""

from __future__ import annotations

import time

import pytest
from pydantic import SecretStr
from slack_sdk import WebClient
from sqlmodel import Session, select

from bot.wiring.services import Services
from bot.slack.app import build_app
from review.models import InboundMessage
from tests.servers.slack_signing import event_request, to_bolt_request

SECRET = "s3cret-signing-key"


@pytest.fixture
def services(settings):
    settings.slack.bot_token, settings.slack.signing_secret = SecretStr("xoxb-test"), SecretStr(SECRET)
    settings.slack.channels = ["C0CONSULT1"]
    svc = Services(settings)
    yield svc
    svc.close()


@pytest.fixture
def app(services, slack_server):
    return build_app(services, client=WebClient(token="xoxb-test", base_url=slack_server.api_url))


def _rows(services) -> list[InboundMessage]:
    with Session(services.engine) as s:
        return list(s.exec(select(InboundMessage).order_by(InboundMessage.id)).all())


def _wait_rows(services, n: int, timeout: float = 10.0) -> list[InboundMessage]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = _rows(services)
        if len(rows) >= n:
            time.sleep(0.3)  # let any late duplicate show up
            return _rows(services)
        time.sleep(0.05)
    return _rows(services)


def _dm(text: str = "hola, ¿cuándo abre Bedelía? mi cel es 099 123 456", ts: str = "1794920580.000100") -> dict:
    return {"type": "message", "channel": "D0DM00001", "user": "U0STUDENT1", "text": text, "ts": ts, "channel_type": "im"}


def test_direct_message_is_stored_cleaned_and_redacted(app, services):
    body, headers = event_request(SECRET, _dm(), event_id="Ev0001")
    started = time.monotonic()
    response = app.dispatch(to_bolt_request(body, headers))
    assert response.status == 200 and time.monotonic() - started < 3.0
    [row] = _wait_rows(services, 1)
    assert (row.channel, row.source_key, row.sender) == ("slack", "slack:D0DM00001:1794920580.000100", "U0STUDENT1")
    assert row.cleaned_text == "¿cuándo abre Bedelía? mi cel es 099 123 456"
    assert row.redacted_text == "¿cuándo abre Bedelía? mi cel es [TELEFONO]"
    assert row.thread_ref == "D0DM00001:1794920580.000100"


def test_same_event_delivered_three_times_is_stored_once(app, services):
    for retry in (None, 1, 2):
        body, headers = event_request(SECRET, _dm(), event_id="Ev0002", retry_num=retry)
        assert app.dispatch(to_bolt_request(body, headers)).status == 200
    assert len(_wait_rows(services, 1)) == 1


def test_mention_and_message_twins_are_one_message(app, services):
    text = "<@U0BOT0001> ¿la maestría es gratis?"
    base = {"channel": "C0CONSULT1", "user": "U0STUDENT2", "text": text, "ts": "1794926400.000137", "channel_type": "channel"}
    for event_id, kind in (("Ev0003", "app_mention"), ("Ev0004", "message")):
        body, headers = event_request(SECRET, dict(base, type=kind), event_id=event_id)
        assert app.dispatch(to_bolt_request(body, headers)).status == 200
    [row] = _wait_rows(services, 1)
    assert row.cleaned_text == "¿la maestría es gratis?"


def test_mention_in_any_channel_but_plain_messages_only_in_configured_ones(app, services):
    other = {"type": "message", "channel": "C0RANDOM01", "user": "U0STUDENT3", "text": "¿alguien va al parcial?", "ts": "1.1", "channel_type": "channel"}
    mention = {"type": "app_mention", "channel": "C0RANDOM01", "user": "U0STUDENT3", "text": "<@U0BOT0001> ¿cuándo es el parcial?", "ts": "1.2"}
    for i, ev in enumerate((other, mention)):
        body, headers = event_request(SECRET, ev, event_id=f"Ev01{i}")
        app.dispatch(to_bolt_request(body, headers))
    rows = _wait_rows(services, 1)
    assert [r.source_key for r in rows] == ["slack:C0RANDOM01:1.2"]


def test_bot_messages_and_edits_are_ignored(app, services):
    events = [
        dict(_dm(ts="2.1"), bot_id="B0BOT0001"),
        dict(_dm(ts="2.2"), subtype="message_changed"),
        dict(_dm(ts="2.3"), user="U0BOT0001"),
    ]
    for i, ev in enumerate(events):
        body, headers = event_request(SECRET, ev, event_id=f"Ev02{i}")
        assert app.dispatch(to_bolt_request(body, headers)).status == 200
    body, headers = event_request(SECRET, _dm(ts="2.9"), event_id="Ev029")
    app.dispatch(to_bolt_request(body, headers))
    assert [r.source_key for r in _wait_rows(services, 1)] == ["slack:D0DM00001:2.9"]


@pytest.mark.parametrize("forgery", ["bad_signature", "stale_timestamp"])
def test_forged_or_stale_requests_are_rejected(app, services, forgery):
    if forgery == "bad_signature":
        body, headers = event_request("not-the-secret", _dm(), event_id="Ev0005")
    else:
        body, headers = event_request(SECRET, _dm(), event_id="Ev0006", ts=int(time.time()) - 6 * 60)
    response = app.dispatch(to_bolt_request(body, headers))
    assert response.status == 401
    time.sleep(0.5)
    assert _rows(services) == []


def test_a_rejected_request_body_is_not_logged_even_at_info(services, slack_server, caplog):
    import logging

    root = logging.getLogger()
    old = root.level
    root.setLevel(logging.INFO)  # what `orienta -v` does before the Bolt app is built
    try:
        with caplog.at_level(logging.INFO):
            app = build_app(services, client=WebClient(token="xoxb-test", base_url=slack_server.api_url))
            event = dict(_dm(), text="Mi DPI es 1983 44414 2215, texto privado")
            body, headers = event_request("not-the-secret", event, event_id="Ev0007")
            assert app.dispatch(to_bolt_request(body, headers)).status == 401
    finally:
        root.setLevel(old)
    assert "texto privado" not in caplog.text and "1983" not in caplog.text


def test_a_failure_while_reading_a_slack_message_quarantines_it(services, monkeypatch):
    import bot.slack.intake as slack_intake
    from review.db import session_scope

    def boom(text: str) -> str:
        raise ValueError("cleaner exploded")

    monkeypatch.setattr(slack_intake, "clean_text", boom)
    with session_scope(services.engine) as session:
        message, created = slack_intake.intake_slack_event(session, dict(_dm(ts="9.1"), text="Mi carnet es 201903456"), event_id="Ev0091")
    [row] = _rows(services)
    assert created and row.state == "quarantined" and "ValueError: cleaner exploded" in row.reason
