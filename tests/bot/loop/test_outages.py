"""Transient failures are not terminal (issue 22): with the Anthropic stand-in overloaded (529), failing (500) or
unreachable, messages wait (state unchanged, attempts and next attempt recorded) and are retried with backoff; when the
model is back every one of them is in the review queue, none quarantined; after a configured delay a message is drafted
offline with a flag; only a deterministic failure quarantines, and `orienta review retry` sends it back to drafting.
The run report, /metrics and the digest count the same states."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from pydantic import SecretStr
from prometheus_client import generate_latest
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.demo import sample
from bot.email.maildir import copy_to_maildir
from bot.loop.worker import run_once
from bot.wiring import metrics
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from bot.slack import blocks
from review import queue, retries, states
from review.db import session_scope
from review.digest import build_digest
from review.models import AuditEvent, InboundMessage
from review.weeks import iso_week
from tests.servers.anthropic_server.replies import error_reply
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

MAILS = ["01_inscripcion_examenes_febrero.eml", "02_creditos_para_recibirme.eml", "04_que_becas_hay.eml"]


def _services(settings, tmp_path, base_url: str, *, fallback_after: float | None) -> Services:
    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.paths.maildir = tmp_path / "inbox"
    settings.gate.enabled = False
    settings.llm.provider, settings.llm.api_key, settings.llm.base_url, settings.llm.method = "anthropic", SecretStr("k"), base_url, "rag"
    settings.llm.max_retries = 0
    settings.drafting.retry_base_delay_s = 0.05
    settings.drafting.retry_max_delay_s = 0.2
    settings.drafting.offline_fallback_after_s = fallback_after
    svc = Services(settings)
    ingest_documents(svc, [docs])
    copy_to_maildir([sample.emails_dir() / name for name in MAILS], settings.paths.maildir)
    return svc


def _messages(svc: Services) -> list[InboundMessage]:
    with Session(svc.engine) as s:
        return list(s.exec(select(InboundMessage).order_by(InboundMessage.id)).all())


def _counter(outcome: str) -> float:
    return sum(v for (ch, out), v in ((tuple(s.labels.values()), s.value) for m in metrics.MESSAGES.collect() for s in m.samples if s.name.endswith("_total")) if out == outcome)


def _due(svc: Services) -> None:
    """Wait until every waiting message's next attempt is due."""
    for m in _messages(svc):
        if m.next_attempt_at is not None:
            at = m.next_attempt_at.timestamp() if m.next_attempt_at.tzinfo else m.next_attempt_at.replace(tzinfo=__import__("datetime").timezone.utc).timestamp()
            time.sleep(max(0.0, at - time.time()) + 0.01)


def test_an_overloaded_then_failing_model_leaves_messages_waiting_and_all_are_drafted_when_it_is_back(settings, tmp_path, anthropic_server):
    svc = _services(settings, tmp_path, anthropic_server.url, fallback_after=None)
    anthropic_server.set_responder(lambda req: error_reply(529, message="Overloaded"))
    waiting_before = _counter("waiting")
    first = run_once(svc)
    assert (first.drafted, first.quarantined, first.waiting) == (0, 0, len(MAILS)), first.as_dict()
    assert _counter("waiting") - waiting_before == len(MAILS)  # /metrics counts what the report says
    for m in _messages(svc):
        assert m.state in (states.RECEIVED, states.CLASSIFIED) and m.draft_attempts == 1 and m.next_attempt_at is not None
        assert m.reason.startswith("waiting: LLMError")
    # Not due yet: a pass right away does not call the model again.
    from datetime import timedelta

    from review.models import utcnow

    def next_attempt(at) -> None:
        with session_scope(svc.engine) as s:
            for m in s.exec(select(InboundMessage)).all():
                m.next_attempt_at = at
                s.add(m)

    from bot.loop.drafting import draft_pending
    from bot.loop.run_report import RunReport

    calls = len(anthropic_server.message_requests)
    next_attempt(utcnow() + timedelta(hours=1))
    report = RunReport()
    draft_pending(svc, report)  # the running loop: not before the next attempt
    assert report.waiting == 0 and len(anthropic_server.message_requests) == calls
    next_attempt(utcnow())
    anthropic_server.set_responder(lambda req: error_reply(500, message="Internal server error"))
    second = run_once(svc)
    assert (second.drafted, second.quarantined, second.waiting) == (0, 0, len(MAILS))
    assert {m.draft_attempts for m in _messages(svc)} == {2}
    with Session(svc.engine) as s:
        week = iso_week(_messages(svc)[0].created_at)
        digest = build_digest(session=s, week=week).as_dict()
    assert digest["waiting"] == len(MAILS) and digest["quarantined"] == 0 and digest["drafted"] == 0

    from tests.servers.anthropic_server.server import _default_responder

    anthropic_server.set_responder(_default_responder)  # the model is back
    _due(svc)
    third = run_once(svc)
    assert (third.drafted, third.quarantined, third.waiting, third.offline) == (len(MAILS), 0, 0, 0), third.as_dict()
    messages = _messages(svc)
    assert [m.state for m in messages] == [states.DRAFTED] * len(MAILS)
    assert all(m.draft_attempts == 0 and m.next_attempt_at is None and m.reason is None for m in messages)
    with Session(svc.engine) as s:
        assert queue.count_pending(session=s) == len(MAILS)
        digest = build_digest(session=s, week=week).as_dict()
    assert (digest["drafted"], digest["quarantined"], digest["waiting"]) == (len(MAILS), 0, 0)
    svc.close()


def test_a_pass_by_hand_right_after_the_outage_ends_drafts_every_waiting_message(settings, tmp_path, anthropic_server):
    """`orienta run --once` does not wait for the backoff (the default first retry is 30 s away): the operator asked now."""
    svc = _services(settings, tmp_path, anthropic_server.url, fallback_after=None)
    svc.settings.drafting.retry_base_delay_s = 30.0
    anthropic_server.set_responder(lambda req: error_reply(503, message="unavailable"))
    assert run_once(svc).waiting == len(MAILS)
    from tests.servers.anthropic_server.server import _default_responder

    anthropic_server.set_responder(_default_responder)
    report = run_once(svc)
    assert (report.drafted, report.waiting, report.quarantined) == (len(MAILS), 0, 0)
    with Session(svc.engine) as s:
        assert queue.count_pending(session=s) == len(MAILS)
    svc.close()


def test_an_unreachable_model_is_drafted_offline_after_the_configured_delay_with_a_flag(settings, tmp_path):
    svc = _services(settings, tmp_path, "http://127.0.0.1:9", fallback_after=0.1)  # nothing listens on port 9
    first = run_once(svc)
    assert (first.drafted, first.quarantined, first.waiting) == (0, 0, len(MAILS))
    time.sleep(0.15)
    _due(svc)
    second = run_once(svc)
    assert (second.drafted, second.offline, second.quarantined, second.waiting) == (len(MAILS), len(MAILS), 0, 0), second.as_dict()
    with Session(svc.engine) as s:
        for m in _messages(svc):
            draft = queue.latest_draft(session=s, message_id=m.id)
            assert m.state == states.DRAFTED and draft.method == "extractive"
            assert any(f.get("kind") == retries.OFFLINE_FLAG for f in draft.flags)
            card = json.dumps(blocks.review_card(draft, m), ensure_ascii=False)
            assert "Borrador sin modelo" in card
        assert len(s.exec(select(AuditEvent).where(AuditEvent.event == retries.OFFLINE_EVENT)).all()) == len(MAILS)
        digest = build_digest(session=s, week=iso_week(_messages(svc)[0].created_at)).as_dict()
    assert digest["drafted_offline"] == len(MAILS)
    svc.close()


def test_only_a_deterministic_failure_quarantines_and_review_retry_requeues_it(settings, tmp_path, anthropic_server, monkeypatch):
    from bot.cli import app

    svc = _services(settings, tmp_path, anthropic_server.url, fallback_after=None)
    anthropic_server.refusals_expected = True
    anthropic_server.set_responder(lambda req: error_reply(400, "invalid_request_error", "prompt is too long"))
    first = run_once(svc)
    assert (first.drafted, first.quarantined, first.waiting) == (0, len(MAILS), 0), first.as_dict()
    assert all(m.state == states.QUARANTINED for m in _messages(svc))

    from tests.servers.anthropic_server.server import _default_responder

    anthropic_server.set_responder(_default_responder)
    for key, value in {"ORIENTA_DATA_DIR": str(settings.data_dir), "ORIENTA_EMBEDDING__BACKEND": "hashing"}.items():
        monkeypatch.setenv(key, value)
    one = _messages(svc)[0].id
    result = CliRunner().invoke(app, ["review", "retry", str(one), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["requeued"] == [one]
    result = CliRunner().invoke(app, ["review", "retry", "--all", "--json"])
    assert result.exit_code == 0 and len(json.loads(result.output)["requeued"]) == len(MAILS) - 1
    assert CliRunner().invoke(app, ["review", "retry", str(one)]).exit_code != 0  # not quarantined any more
    again = run_once(svc)
    assert (again.drafted, again.quarantined) == (len(MAILS), 0)
    with Session(svc.engine) as s:
        assert queue.count_pending(session=s) == len(MAILS)
        digest = build_digest(session=s, week=iso_week(_messages(svc)[0].created_at)).as_dict()
    assert digest["quarantined"] == 0 and digest["requeued"] == len(MAILS) and digest["drafted"] == len(MAILS)
    svc.close()


def test_the_report_counts_a_quarantine_as_a_quarantine(settings, tmp_path, anthropic_server):
    """Before issue 22 a message quarantined by the pipeline was reported as drafted."""
    svc = _services(settings, tmp_path, anthropic_server.url, fallback_after=None)
    anthropic_server.refusals_expected = True
    anthropic_server.set_responder(lambda req: error_reply(400, "invalid_request_error", "bad"))
    report = run_once(svc)
    assert report.drafted == 0 and report.quarantined == len(MAILS)
    svc.close()


def test_transient_and_deterministic_failures_are_told_apart():
    import anthropic
    import httpx
    from sqlalchemy.exc import OperationalError

    from bot.loop.drafting import OverBudget
    from pipeline.errors import LLMError, RetrievalError, is_transient

    req = httpx.Request("POST", "http://x")

    def wrapped(exc: Exception) -> LLMError:
        try:
            raise LLMError("failed") from exc
        except LLMError as out:
            return out

    for status in (408, 429, 500, 502, 503, 504, 529):
        assert is_transient(wrapped(anthropic.APIStatusError("x", response=httpx.Response(status, request=req), body=None))), status
    for status in (400, 401, 403, 404, 413, 422):
        assert not is_transient(wrapped(anthropic.APIStatusError("x", response=httpx.Response(status, request=req), body=None))), status
    assert is_transient(wrapped(anthropic.APIConnectionError(request=req))) and is_transient(wrapped(anthropic.APITimeoutError(request=req)))
    assert is_transient(RetrievalError("qdrant")) is False
    assert is_transient(httpx.ConnectError("refused")) and is_transient(OverBudget("slow"))
    assert is_transient(OperationalError("SELECT 1", {}, Exception("database is locked")))
    assert not is_transient(OperationalError("SELECT 1", {}, Exception("no such table: draft")))
    assert not is_transient(LLMError("the model returned invalid JSON")) and not is_transient(ValueError("bad"))
