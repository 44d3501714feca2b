"""Hostile and careless mail (issue 14): every message yields exactly one row, poison is quarantined with a reason, the pass goes on."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, func, select

from bot.email.intake import intake_email, is_own_address
from review import states
from review.models import InboundMessage
from tests.review.databases import temp_engine

OFFICE = "Orientación <consultas@ingenieria.example.edu.gt>"


def mail(body: str = "¿Cuándo es la inscripción de cursos?", *, subject: str = "Consulta", sender: str = "Ana López <ana@example.org>", mid: str = "<m1@example.org>", date: str | None = "Mon, 02 Mar 2026 10:00:00 -0600", extra: list[tuple[str, str]] = ()) -> bytes:
    head = [f"From: {sender}", "To: consultas@ingenieria.example.edu.gt", f"Subject: {subject}", f"Message-ID: {mid}"]
    if date is not None:
        head.append(f"Date: {date}")
    head += [f"{k}: {v}" for k, v in extra]
    head += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
    return ("\r\n".join(head) + "\r\n\r\n" + body + "\r\n").encode("utf-8")


def intake(engine, raw: bytes, key: str = "t:1", **kw) -> InboundMessage:
    with Session(engine, expire_on_commit=False) as session:
        message, _ = intake_email(session, raw, source_key=key, max_bytes=10 * 1024 * 1024, own_address=kw.pop("own", [OFFICE]), **kw)
        session.commit()
        return message


def rows(engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(InboundMessage)).one()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request, tmp_path):
    with temp_engine(request.param, tmp_path) as engine:
        yield engine


def test_a_date_that_overflows_in_utc_is_dropped_not_fatal(any_db):
    m = intake(any_db, mail(date="Fri, 31 Dec 9999 23:59:59 -2359"))
    assert m.state == states.RECEIVED and m.redacted_text and rows(any_db) == 1


@pytest.mark.parametrize("where", ["body", "subject", "from"])
def test_nul_bytes_are_stored_the_same_on_sqlite_and_postgresql(any_db, where):
    raw = mail(body="¿Cuándo\x00 es la inscripción?" if where == "body" else "¿Cuándo es la inscripción?",
               subject="Con\x00sulta" if where == "subject" else "Consulta",
               sender="Ana\x00 López <ana@example.org>" if where == "from" else "Ana López <ana@example.org>")
    m = intake(any_db, raw)
    with Session(any_db) as session:
        stored = session.get(InboundMessage, m.id)
        texts = [stored.subject or "", stored.body_text or "", stored.cleaned_text or "", stored.sender or ""]
    assert stored.state in (states.RECEIVED, states.QUARANTINED) and all("\x00" not in t for t in texts)
    assert stored.raw == raw  # the original bytes are kept as they came


def test_lone_surrogates_do_not_reach_the_database(any_db):
    raw = mail(subject="=?utf-8?b?" + __import__("base64").b64encode("Consulta \udc80".encode("utf-8", "surrogatepass")).decode() + "?=")
    m = intake(any_db, raw)
    assert m.state in (states.RECEIVED, states.QUARANTINED) and rows(any_db) == 1


def test_two_from_headers_are_quarantined_not_answered_to_the_last(tmp_path):
    with temp_engine("sqlite", tmp_path) as engine:
        raw = mail(extra=[("From", "Atacante <evil@attacker.example>")])
        m = intake(engine, raw)
        assert m.state == states.QUARANTINED and "From" in m.reason


def test_an_empty_plain_alternative_falls_back_to_the_html_part(tmp_path):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "ana@example.org", "consultas@ingenieria.example.edu.gt", "Pasantía", "<alt@example.org>"
    msg.set_content("   \n")
    msg.add_alternative("<html><body><p>¿Cómo inscribo la práctica final?</p></body></html>", subtype="html")
    with temp_engine("sqlite", tmp_path) as engine:
        m = intake(engine, msg.as_bytes())
        assert m.state == states.RECEIVED and "práctica final" in m.cleaned_text


@pytest.mark.parametrize("subject, body", [
    ("Respuesta automática: Consulta", "Gracias por su mensaje."),
    ("Fuera de la oficina", "Estaré de vuelta el lunes."),
    ("Ausencia: Re: inscripción", "No estoy disponible."),
    ("Acuse de recibo", "Hemos recibido su mensaje y le responderemos a la brevedad."),
    ("Re: Consulta", "Este es un mensaje automático, por favor no responda."),
    ("Re: Consulta", "Estoy fuera de la oficina hasta el 15 de marzo."),
    ("Automatic reply: Question", "I am out of the office until Monday."),
    ("Out of Office", "Back next week."),
    ("Re: your question", "This is an automatic reply. Thank you for your message."),
])
def test_auto_replies_without_rfc3834_headers_are_skipped(tmp_path, subject, body):
    with temp_engine("sqlite", tmp_path) as engine:
        m = intake(engine, mail(body=body, subject=subject))
        assert m.state == states.SKIPPED and m.reason.startswith("auto_reply"), m.reason


@pytest.mark.parametrize("subject, body", [
    ("Ausencia al laboratorio de Física", "Falté al laboratorio por enfermedad, ¿cómo lo recupero?"),
    ("Consulta sobre oficina de EPS", "¿Dónde queda la oficina de EPS? Estuve fuera del país."),
])
def test_students_writing_about_absence_are_not_auto_replies(tmp_path, subject, body):
    with temp_engine("sqlite", tmp_path) as engine:
        assert intake(engine, mail(body=body, subject=subject)).state == states.RECEIVED


@pytest.mark.parametrize("sender", ["consultas+bounce@ingenieria.example.edu.gt", "CONSULTAS@ingenieria.example.edu.gt", "orientacion@ingenieria.example.edu.gt", "orientacion+x@ingenieria.example.edu.gt"])
def test_the_office_own_addresses_with_plus_tags_and_aliases_are_loops(tmp_path, sender):
    own = [OFFICE, "orientacion@ingenieria.example.edu.gt"]
    assert is_own_address(sender.lower(), own)
    with temp_engine("sqlite", tmp_path) as engine:
        m = intake(engine, mail(sender=sender), own=own)
        assert m.state == states.SKIPPED and m.reason.startswith("loop")


def test_a_student_is_not_the_office():
    assert not is_own_address("consultas@otra.example.edu.gt", [OFFICE]) and not is_own_address("consultas2@ingenieria.example.edu.gt", [OFFICE])


def test_a_different_mail_reusing_a_message_id_is_its_own_message_and_flagged(tmp_path):
    with temp_engine("sqlite", tmp_path) as engine:
        first = intake(engine, mail(mid="<same@x>"), key="t:1")
        copy = intake(engine, mail(mid="<same@x>"), key="t:2")
        other = intake(engine, mail(body="¿Hay cupo en Matemática Básica 1?", mid="<same@x>", sender="eva@example.org"), key="t:3")
        assert first.state == states.RECEIVED
        assert copy.state == states.SKIPPED and "duplicate" in copy.reason
        assert other.state == states.RECEIVED and other.reason.startswith("reused_message_id") and "Matemática" in other.cleaned_text


def test_a_failure_inside_reading_quarantines_that_message_with_the_exception(tmp_path, monkeypatch):
    import bot.email.intake as intake_mod

    def boom(text: str) -> str:
        raise RuntimeError("cleaner exploded")

    with temp_engine("sqlite", tmp_path) as engine:
        monkeypatch.setattr(intake_mod, "clean_text", boom)
        m = intake(engine, mail())
        assert m.state == states.QUARANTINED and "RuntimeError: cleaner exploded" in m.reason and rows(engine) == 1


def test_a_huge_body_is_bounded_before_redaction(tmp_path):
    body = "Texto sin pregunta alguna. " * 40000 + "¿Cuándo abren la inscripción de cursos?"
    with temp_engine("sqlite", tmp_path) as engine:
        m = intake(engine, mail(body=body), question_max_chars=500)
        assert len(m.redacted_text) <= 500 and len(m.cleaned_text) > 100_000


def test_the_sender_name_is_redacted_from_the_body(tmp_path):
    with temp_engine("sqlite", tmp_path) as engine:
        m = intake(engine, mail(body="¿Cuándo es el examen? Saludos,\nAna López", sender="Ana López <ana@example.org>"))
        assert "Ana" not in m.redacted_text and "López" not in m.redacted_text and "[NOMBRE]" in m.redacted_text


# ---------------------------------------------------------------- property-based: any header value, any MIME shape
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60) | st.sampled_from(["", "\x00", "=?utf-8?q?=00?=", "=?bogus?b?////?=", "Fri, 31 Dec 9999 23:59:59 -2359", "<>", "a@b", "\r\n\t", "x" * 2000])
_header_names = st.sampled_from(["From", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Return-Path", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted", "List-Id", "Precedence", "To", "Reply-To"])
_ctype = st.sampled_from(["text/plain", "text/html", "multipart/alternative", "multipart/mixed", "multipart/report", "message/rfc822", "application/pdf", "text/plain; charset=bogus", "multipart/alternative; boundary=\"\""])


@st.composite
def raw_mail(draw) -> bytes:
    headers = draw(st.lists(st.tuples(_header_names, _text), max_size=8))
    if draw(st.booleans()):
        headers.insert(0, ("From", draw(st.sampled_from(["ana@example.org", "Ana <ana@example.org>", "", "<>", "a@b, c@d", "=?utf-8?b?QW5h?= <ana@example.org>"]))))
    ctype = draw(_ctype)
    boundary = "b1"
    body_text = draw(_text)
    if ctype.startswith("multipart/") and "boundary" not in ctype:
        parts = draw(st.lists(st.tuples(_ctype, _text), max_size=3))
        body = "".join(f"--{boundary}\r\nContent-Type: {c}\r\n\r\n{t}\r\n" for c, t in parts) + (f"--{boundary}--\r\n" if draw(st.booleans()) else "")
        ctype = f'{ctype}; boundary="{boundary}"'
    else:
        body = body_text
    lines = [f"{name}: {value}" for name, value in headers] + [f"Content-Type: {ctype}"]
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def fuzz_engine(tmp_path_factory):
    with temp_engine("sqlite", tmp_path_factory.mktemp("fuzz")) as engine:
        yield engine


_counter = iter(range(10**9))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(raw=raw_mail())
def test_any_headers_and_mime_shape_give_exactly_one_row_and_no_exception(fuzz_engine, raw):
    key = f"fuzz:{next(_counter)}"
    with Session(fuzz_engine, expire_on_commit=False) as session:
        message, created = intake_email(session, raw, source_key=key, max_bytes=10**6, own_address=[OFFICE])
        session.commit()
    with Session(fuzz_engine) as session:
        found = session.exec(select(InboundMessage).where(InboundMessage.source_key == key)).all()
    assert created and len(found) == 1
    assert found[0].state in (states.RECEIVED, states.SKIPPED, states.QUARANTINED)
    if found[0].state != states.RECEIVED:
        assert found[0].reason
