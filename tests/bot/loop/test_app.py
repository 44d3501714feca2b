"""The long-running app: IMAP IDLE + Slack HTTP + drafting + sending threads, pluggable periodic jobs, clean stop."""

from __future__ import annotations

import time
import urllib.request

import pytest
from pydantic import SecretStr
from sqlmodel import Session, select

from bot.loop.app import Job, OrientaApp
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from review import queue, states
from review.db import session_scope
from review.models import InboundMessage
from tests.servers.slack_signing import event_request

SECRET = "app-signing-secret"


def _wait(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _states(svc: Services) -> dict[str, str]:
    with Session(svc.engine) as s:
        return {m.source_key: m.state for m in s.exec(select(InboundMessage)).all()}


@pytest.fixture
def services(settings, imap_account, smtp_server, slack_server):
    s = settings
    s.imap.host, s.imap.port, s.imap.security = imap_account.host, imap_account.port, "none"
    s.imap.user, s.imap.password = imap_account.user, SecretStr(imap_account.password)
    s.smtp.host, s.smtp.port, s.smtp.security = smtp_server.host, smtp_server.port, "none"
    s.slack.bot_token, s.slack.signing_secret, s.slack.base_url = SecretStr("xoxb-test"), SecretStr(SECRET), slack_server.api_url
    s.slack.host, s.slack.port = "127.0.0.1", 0
    s.gate.enabled = False
    svc = Services(s)
    ingest_documents(svc)
    yield svc
    svc.close()


def test_app_runs_mail_and_slack_to_drafts_and_sends_approved_replies(services, imap_account, smtp_server, make_message):
    app = OrientaApp(services).start()
    try:
        imap_account.append(make_message(subject="examen", body="¿Cuándo es la inscripción a exámenes de febrero?", sender="ana@example.org", message_id="<a1@example.org>"))
        port = app.slack_listener.port
        event = {"type": "message", "channel": "D0DM00001", "user": "U0STUDENT1", "text": "¿cuántos créditos necesito para recibirme?", "ts": "1794920580.000100", "channel_type": "im"}
        body, headers = event_request(SECRET, event, event_id="EvApp1")
        request = urllib.request.Request(f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers, method="POST")
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert resp.status == 200
        assert time.monotonic() - started < 3.0
        assert _wait(lambda: sorted(_states(services).values()) == [states.DRAFTED, states.DRAFTED]), _states(services)
        with session_scope(services.engine) as session:
            for draft, _message in queue.list_drafts(session=session):
                queue.approve(session=session, draft_id=draft.id, actor="staff")
        assert _wait(lambda: sorted(_states(services).values()) == [states.SENT, states.SENT], timeout=30), _states(services)
    finally:
        app.stop()
    assert not any(t.is_alive() for t in app.threads)
    assert len(smtp_server.messages) == 1 and smtp_server.messages[0].rcpt_tos == ["ana@example.org"]


def test_extra_jobs_run_and_a_failing_job_does_not_stop_the_others(settings):
    settings.gate.enabled = False
    svc = Services(settings)
    calls: list[str] = []

    def boom(_svc):
        raise RuntimeError("broken job")

    app = OrientaApp(svc, jobs=[Job("boom", 0.05, boom), Job("tick", 0.05, lambda _svc: calls.append("tick"))])
    assert (app.imap, app.slack) == (False, False)
    app.start()
    try:
        assert _wait(lambda: len(calls) >= 3, timeout=5)
        app.add_job(Job("late", 0.05, lambda _svc: calls.append("late")))
        assert _wait(lambda: "late" in calls, timeout=5)
    finally:
        app.stop()
    boom_job = app.jobs[0]
    assert boom_job.errors >= 3 and boom_job.last_error == "RuntimeError: broken job"
    assert not any(t.is_alive() for t in app.threads)
    svc.close()


def test_cli_run_once_reads_the_documented_environment(tmp_path, monkeypatch, imap_account, make_message):
    import json

    from typer.testing import CliRunner

    from bot.cli import app as cli

    for key in [k for k in __import__("os").environ if k.startswith("ORIENTA_")]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    env = {
        "ORIENTA_IMAP__HOST": imap_account.host, "ORIENTA_IMAP__PORT": str(imap_account.port), "ORIENTA_IMAP__USER": imap_account.user,
        "ORIENTA_IMAP__PASSWORD": imap_account.password, "ORIENTA_IMAP__MAILBOX": "INBOX", "ORIENTA_IMAP__SECURITY": "none",
        "ORIENTA_SMTP__FROM": "Oficina <oficina@example.edu.uy>", "ORIENTA_EMBEDDING__BACKEND": "hashing", "ORIENTA_GATE__ENABLED": "false",
    }
    imap_account.append(make_message(subject="x", body="¿Cuándo abre Bedelía?", sender="ana@example.org", message_id="<cli1@example.org>"))
    imap_account.append(make_message(subject="x", body="boletín", sender="news@example.org", message_id="<cli2@example.org>", extra_headers={"List-Id": "<n.example.org>"}))
    runner = CliRunner()
    first = runner.invoke(cli, ["--data-dir", str(tmp_path / "d"), "run", "--once", "--json"], env=env)
    second = runner.invoke(cli, ["--data-dir", str(tmp_path / "d"), "run", "--once", "--json"], env=env)
    assert first.exit_code == 0, first.output
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert (a["stored"], a["skipped"], b["stored"]) == (2, 1, 0)
