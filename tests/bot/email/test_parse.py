"""Parsing and intake of many shapes of e-mail: odd charsets, HTML-only, attachments, broken MIME, automated mail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session

from bot.email.intake import header_message_id, intake_email
from bot.email.parse import parse_email, skip_reason
from bot.errors import MalformedMessage
from review import states

DATA = Path(__file__).parent / "data"
SAMPLES = Path(__file__).resolve().parents[3] / "bot" / "demo" / "sample_office"


def _raw(name: str) -> bytes:
    return (DATA / name).read_bytes()


def _intake(engine, raw: bytes, key: str = "t:1"):
    with Session(engine, expire_on_commit=False) as session:
        message, created = intake_email(session, raw, source_key=key, max_bytes=10**6)
        session.commit()
        return message, created


def test_html_only_with_encoded_headers():
    p = parse_email(_raw("html_only.eml"))
    assert p.subject == "¿Cuándo es el examen?" and p.sender_name == "María Gómez" and p.sender == "maria@example.org"
    assert "¿Cuándo es el examen de Cálculo 1?" in p.body_text and "<p>" not in p.body_text and "color:red" not in p.body_text


@pytest.mark.parametrize("name, expected", [
    ("windows1252.eml", "¿Dónde pido la constancia? “urgente” – gracias"),
    ("declared_utf8_is_latin1.eml", "¿Cómo revalido Física?"),
])
def test_charsets_including_wrong_declarations(name, expected):
    assert parse_email(_raw(name)).body_text.strip() == expected


def test_attachments_are_listed_not_processed():
    p = parse_email(_raw("attachments.eml"))
    assert p.body_text.strip() == "¿Con este programa me revalidan Física 1?"
    assert [(a["name"], a["type"]) for a in p.attachments] == [("programa.pdf", "application/pdf"), ("captura pantalla.png", "image/png")]
    assert all(a["size"] > 0 for a in p.attachments)


@pytest.mark.parametrize("name, reason", [
    ("broken_boundary.eml", "broken MIME"),
    ("no_from.eml", "no From"),
    ("garbage.eml", "From"),
])
def test_malformed_mail_raises_with_a_reason(name, reason):
    with pytest.raises(MalformedMessage, match=reason):
        parse_email(_raw(name))


def test_size_limit():
    with pytest.raises(MalformedMessage, match="too large"):
        parse_email(_raw("html_only.eml"), max_bytes=100)


@pytest.mark.parametrize("name, category", [
    ("precedence_bulk.eml", "mailing_list"),
    ("noreply_sender.eml", "automated_sender"),
    ("auto_response_suppress.eml", "auto_reply"),
])
def test_automated_mail_is_recognised(name, category):
    assert skip_reason(parse_email(_raw(name))).split(":")[0] == category


def test_sample_office_skips_have_the_expected_categories():
    expected = json.loads((SAMPLES / "expected.json").read_text(encoding="utf-8"))["emails"]
    for name, row in expected.items():
        if row["outcome"] != "skipped":
            continue
        reason = skip_reason(parse_email((SAMPLES / "emails" / name).read_bytes()))
        assert reason is not None and reason.split(":")[0] == row["skip_reason"], name


def test_sample_office_cleaned_questions_match(engine):
    expected = json.loads((SAMPLES / "expected.json").read_text(encoding="utf-8"))["emails"]
    for i, (name, row) in enumerate(expected.items()):
        message, created = _intake(engine, (SAMPLES / "emails" / name).read_bytes(), key=f"s:{i}")
        assert created
        if row["outcome"] == "skipped":
            assert message.state == states.SKIPPED, name
        elif row["outcome"] == "quarantined":
            assert message.state == states.QUARANTINED and message.reason.startswith("malformed"), name
        else:
            assert (message.state, message.cleaned_text) == (states.RECEIVED, row["question"]), name


def test_quarantine_keeps_raw_and_reason_and_the_worker_goes_on(engine):
    bad, _ = _intake(engine, _raw("broken_boundary.eml"), key="t:bad")
    good, _ = _intake(engine, _raw("outlook_reply_qp.eml"), key="t:good")
    assert bad.state == states.QUARANTINED and bad.raw == _raw("broken_boundary.eml") and "broken MIME" in bad.reason
    assert good.state == states.RECEIVED and good.cleaned_text == "¿Puedo inscribirme fuera de fecha?"


def test_forwarded_mail_without_own_text_uses_the_forwarded_text(engine):
    message, _ = _intake(engine, _raw("forwarded_without_text.eml"))
    assert message.cleaned_text == "El horario de atención es de 9 a 17."


def test_redacted_text_is_stored_next_to_the_cleaned_one(engine):
    raw = (SAMPLES / "emails" / "29_datos_personales_inscripcion_tardia.eml").read_bytes()
    message, _ = _intake(engine, raw)
    assert "4.567.890-5" in message.cleaned_text and "123456" in message.cleaned_text
    for secret in ("4.567.890-5", "123456", "099 123 456", "lucia.fernandez.uy@hotmail.example", "+598 2 123 4567"):
        assert secret not in message.redacted_text
    assert "[CEDULA]" in message.redacted_text and "[NUM_ESTUDIANTE]" in message.redacted_text


def test_same_message_id_twice_is_one_question(engine):
    first, _ = _intake(engine, _raw("windows1252.eml"), key="t:a")
    second, created = _intake(engine, _raw("windows1252.eml"), key="t:b")
    assert created and second.state == states.SKIPPED and "duplicate" in second.reason and first.state == states.RECEIVED


def test_header_message_id():
    assert header_message_id(_raw("html_only.eml")) == "<html1@example.org>"
    assert header_message_id(_raw("no_from.eml")) is None
