"""Done-when of issue 12: with ANTHROPIC_BASE_URL at the stand-in and ORIENTA_LLM__MODEL unset, `orienta digest`
(with the judge) and `orienta gate train --llm` work end to end, and every request they send is one the real API
accepts for its model (tests/pipeline/claude_rules.py)."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.cli import app
from bot.wiring.services import Services
from pipeline.settings import load_settings
from review.db import session_scope
from review.evaluation_models import JudgeScore
from tests.pipeline.claude_rules import assert_valid
from tests.review.digest_week import WEEK, build_week
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)


def structured(req: dict):
    """Answer like a model with structured outputs: JSON fitting the request's schema."""
    fmt = (req.get("output_config") or {}).get("format")
    if not fmt:
        return "Respuesta de prueba."
    props = fmt["schema"]["properties"]
    if "puntaje" in props:
        return json.dumps({"justificacion": "Coincide con la referencia.", "puntaje": 4})
    if "afirmaciones" in props:
        return json.dumps({"justificacion": "ok", "afirmaciones": [{"texto": "x", "respaldada": True}]})
    if "question" in props:
        system = req["system"][0]["text"]
        q = "¿Cómo hago para pedir la beca de apoyo económico?" if "fragmentos" in req["messages"][0]["content"] else "¿Qué película me recomendás para el finde?"
        return json.dumps({"question": q + f" ({len(system) % 97})", "chunks_used": [1]}, ensure_ascii=False)
    raise AssertionError(f"unexpected schema {list(props)}")


@pytest.fixture
def claude_env(cli_env, monkeypatch, anthropic_server):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    anthropic_server.set_responder(structured)
    return anthropic_server


def digest_of_an_unjudged_week() -> dict:
    """`orienta digest --json` over the sample week with every judge score removed (so the judge runs)."""
    services = Services(load_settings())
    with session_scope(services.engine) as session:
        build_week(session)
        for s in session.exec(select(JudgeScore)).all():
            session.delete(s)
    services.close()
    result = CliRunner().invoke(app, ["digest", "--week", WEEK, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_digest_with_the_judge_end_to_end(claude_env):
    f = digest_of_an_unjudged_week()
    assert f["judge"]["scored"] >= 4 and f["llm"]["judge_cost_usd"] > 0
    bodies = [r.json for r in claude_env.message_requests]
    assert bodies and {b["model"] for b in bodies} == {"claude-haiku-5-5"}  # the judge's default model
    assert all(b["output_config"]["effort"] == "low" and "format" in b["output_config"] for b in bodies)
    assert_valid(claude_env)
    with Session(Services(load_settings()).engine) as session:
        assert {s.model for s in session.exec(select(JudgeScore)).all()} == {"claude-haiku-5-5"}


def test_gate_train_with_the_llm_generator_end_to_end(claude_env, monkeypatch):
    monkeypatch.setenv("ORIENTA_GATE__LLM_IN_DOMAIN", "6")
    monkeypatch.setenv("ORIENTA_GATE__LLM_OUT_OF_DOMAIN", "4")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
    result = runner.invoke(app, ["gate", "train", "--llm", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    bodies = [r.json for r in claude_env.message_requests]
    assert len(bodies) == 10 and {b["model"] for b in bodies} == {"claude-haiku-5-5"}
    assert all(b["output_config"]["format"]["schema"]["additionalProperties"] is False for b in bodies)
    assert_valid(claude_env)


def test_role_models_are_configurable(claude_env, monkeypatch):
    monkeypatch.setenv("ORIENTA_LLM__JUDGE_MODEL", "claude-haiku-4-5")
    monkeypatch.setenv("ORIENTA_LLM__SYNTHETIC_MODEL", "claude-sonnet-5-5")
    services = Services(load_settings())
    assert (services.llm.model, services.judge_llm.model, services.synthetic_llm.model) == ("claude-sonnet-5-5", "claude-haiku-4-5", "claude-sonnet-5-5")
    services.close()


def test_a_refusal_is_stored_as_a_flagged_draft_not_as_an_answer(settings, anthropic_server):
    from pydantic import SecretStr

    from bot.email.intake import intake_email
    from bot.ops.documents import ingest_documents
    from bot.loop.worker import draft_message
    from pipeline.generation import outcome_of
    from review import queue

    settings.gate.enabled = False
    settings.llm.provider, settings.llm.api_key, settings.llm.base_url, settings.llm.method = "anthropic", SecretStr("k"), anthropic_server.url, "rag"
    svc = Services(settings)
    ingest_documents(svc)
    anthropic_server.enqueue_text("", stop_reason="refusal")
    raw = b"From: Ana <ana@example.org>\r\nSubject: x\r\nMessage-ID: <r1@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHola, cuando cierra la inscripcion?\r\n"
    with session_scope(svc.engine) as session:
        message, _ = intake_email(session, raw, source_key="t:1", max_bytes=10**6)
        draft_message(svc, session, message)
        draft = queue.latest_draft(session=session, message_id=message.id)
        assert message.state == "drafted" and draft.text == "" and outcome_of(draft.flags) == "refusal"
    svc.close()


def test_digest_judges_through_the_message_batches_api(claude_env, monkeypatch):
    """More judgements than ORIENTA_LLM__BATCH_MIN_ITEMS go through the real BatchRunner against the stand-in's batches endpoints."""
    monkeypatch.setenv("ORIENTA_LLM__BATCH_MIN_ITEMS", "2")
    monkeypatch.setenv("ORIENTA_LLM__BATCH_POLL_S", "0.01")
    f = digest_of_an_unjudged_week()
    assert f["judge"]["scored"] >= 4
    created = [r for r in claude_env.requests if r.method == "POST" and r.path == "/v1/messages/batches"]
    assert len(created) == 1 and len(created[0].json["requests"]) >= 4
    assert all(item["params"]["model"] == "claude-haiku-5-5" and "format" in item["params"]["output_config"] for item in created[0].json["requests"])
    assert not [r for r in claude_env.message_requests if r.method == "POST"]  # no synchronous judge call was needed
    assert not list((Services(load_settings()).settings.paths.batches_dir).glob("*.json"))  # finished jobs leave no state to resume
    assert_valid(claude_env)
