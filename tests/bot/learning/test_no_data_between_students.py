"""End to end: student A's reply, edited by staff with A's data and approved, becomes a curated answer; student B asks
the same; nothing of A reaches B's draft, card or sent reply (issue 22)."""

from __future__ import annotations

import json
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, select

from bot.demo import sample
from bot.email.maildir import copy_to_maildir, iter_maildir
from bot.loop.worker import run_once
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from bot.slack import blocks
from bot.slack.intake import intake_slack_event
from review import answer_memory as answers, queue, states
from review.answer_models import CuratedAnswer
from review.db import session_scope
from review.models import InboundMessage, OutgoingReply

QUESTION_A = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"
QUESTION_B = "¿hasta cuándo me puedo inscribir a los exámenes de febrero?"
# What staff wrote to A: A's name (as greeted, in capitals, a diminutive), a spaced carné, A's address on the office's own
# domain, a pregnancy, a relative, a titled third party and A's phone, around the general answer.
EDITED_FOR_A = (
    "Hola Ana Lucía:\n"
    "La inscripción a los exámenes de febrero va del 11 al 22 de enero de 2027, por el SIGE.\n"
    "ANA LUCÍA, tu carné es el 2019 04567 y te escribimos a analucia.gomez@ingenieria.example.edu.uy. "
    "Como estás embarazada, podés pedir fecha especial. Tu mamá, Rosario Gómez, puede hacer el trámite si estás internada.\n"
    "Anita, cualquier cosa llamá a la Lic. Marta Sandoval o te llamamos al 099 876 543.\n"
    "Saludos"
)
PERSONAL_OF_A = ["Ana", "ANA", "Lucía", "LUCÍA", "Anita", "2019 04567", "04567", "analucia", "embarazada", "internada", "Rosario", "Gómez", "Marta", "Sandoval", "099 876 543", "[", "SALUD"]


@pytest.fixture
def services(settings, tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.paths.maildir = tmp_path / "inbox"
    settings.gate.enabled = False
    svc = Services(settings)
    ingest_documents(svc, [docs])
    yield svc
    svc.close()


def _mail(path: Path, *, sender: str, subject: str, body: str, message_id: str) -> Path:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "consultas@ingenieria.example.edu.uy", subject, message_id
    msg["Date"] = "Mon, 23 Nov 2026 10:00:00 -0300"
    msg.set_content(body)
    path.write_bytes(bytes(msg))
    return path


def test_nothing_of_student_a_reaches_student_b(services, tmp_path):
    a = _mail(tmp_path / "a.eml", sender="Ana Lucía Gómez <analucia.gomez@ingenieria.example.edu.uy>", subject="inscripción febrero",
              body=QUESTION_A + "\n\nAna Lucía Gómez\nCarné 2019 04567", message_id="<a1@ingenieria.example.edu.uy>")
    copy_to_maildir([a], services.settings.paths.maildir)
    run_once(services)
    with session_scope(services.engine) as s:
        message_a = s.exec(select(InboundMessage)).one()
        draft_a = queue.latest_draft(session=s, message_id=message_a.id)
        queue.edit(session=s, draft_id=draft_a.id, actor="cli:staff", text=EDITED_FOR_A, confirm_links=True)
    run_once(services)  # A's reply is sent
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        assert "del 11 al 22 de enero de 2027" in kept.text and kept.text.startswith("Hola {nombre}:")  # a slot, filled per student
        for value in PERSONAL_OF_A:
            assert value not in kept.text and value not in kept.question, (value, kept.text, kept.question)

    event = {"type": "message", "channel": "D0BRUNO001", "user": "U0BRUNO01", "text": QUESTION_B, "ts": "1795000000.000100",
             "channel_type": "im", "user_profile": {"real_name": "Bruno Cabrera", "display_name": "bruno.c"}}
    with session_scope(services.engine) as s:
        intake_slack_event(s, event, event_id="EvBruno")
    run_once(services)
    with session_scope(services.engine) as s:
        message_b = s.exec(select(InboundMessage).where(InboundMessage.channel == "slack")).one()
        draft_b = queue.latest_draft(session=s, message_id=message_b.id)
        assert draft_b.method == answers.CURATED_METHOD  # drafted from A's approved answer, which is fit for anyone now
        card = json.dumps(blocks.review_card(draft_b, message_b), ensure_ascii=False)
        for value in PERSONAL_OF_A:
            if value != "[":
                assert value not in draft_b.text and value not in card, value
        assert "[" not in draft_b.text and "{" not in draft_b.text
        assert draft_b.text.startswith("Hola Bruno:")  # greeted by the Slack profile's first name, in the reply only
        queue.approve(session=s, draft_id=draft_b.id, actor="cli:staff", confirm_links=True)
    run_once(services)
    with Session(services.engine) as s:
        reply = s.exec(select(OutgoingReply).where(OutgoingReply.message_id == message_b.id)).one()
        assert s.get(InboundMessage, message_b.id).state == states.SENT
    sent = (services.settings.paths.outbox_dir / "slack.jsonl").read_text(encoding="utf-8")
    assert "del 11 al 22 de enero de 2027" in reply.body
    for value in PERSONAL_OF_A:
        assert value not in reply.body, value
    for line in sent.splitlines():
        record = json.loads(line)
        if "D0BRUNO001" in line:
            for value in PERSONAL_OF_A:
                assert value not in json.dumps(record, ensure_ascii=False), value


def test_an_old_answer_still_holding_data_is_never_reused_and_its_suggestion_says_so(services):
    """An answer kept before anonymization (a name and a literal placeholder) is offered only as a suggestion that says what it holds."""
    from bot.loop.drafting import draft_message
    from review.models import InboundMessageCreate

    def ask(key: str):
        with session_scope(services.engine) as s:
            m, _ = queue.store_inbound(session=s, data=InboundMessageCreate(channel="email", source_key=key, sender=f"{key}@x.example", subject="c", cleaned_text=QUESTION_B, redacted_text=QUESTION_B))
            draft_message(services, s, m)
            return queue.latest_draft(session=s, message_id=m.id), m

    first, _ = ask("old1")
    with session_scope(services.engine) as s:
        queue.approve(session=s, draft_id=first.id, actor="cli:staff", confirm_links=True)
    with session_scope(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        kept.text = "Hola Florencia: como estás [SALUD], la inscripción a febrero va del 11 al 22 de enero de 2027."
        s.add(kept)
    again, m2 = ask("old2")
    assert again.method != answers.CURATED_METHOD and "Florencia" not in again.text
    (suggested,) = answers.suggestions_of(again)
    assert suggested["answer_id"] == kept.id and set(suggested["personal"]) >= {"nombre en el saludo", "salud"}
    card = json.dumps(blocks.review_card(again, m2), ensure_ascii=False)
    assert "Contiene datos personales de otro estudiante" in card and "nombre en el saludo" in card


def _ask(services, key: str, *, sender: str, raw: bytes | None = None):
    from bot.loop.drafting import draft_message
    from review.models import InboundMessageCreate

    with session_scope(services.engine) as s:
        m, _ = queue.store_inbound(session=s, data=InboundMessageCreate(channel="email", source_key=key, sender=sender, subject="c", cleaned_text=QUESTION_B, redacted_text=QUESTION_B, raw=raw))
        draft_message(services, s, m)
        return queue.latest_draft(session=s, message_id=m.id), m


def _raw_from(display: str, address: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"{display} <{address}>" if display else address, "consultas@ingenieria.example.edu.uy", "c"
    msg.set_content(QUESTION_B)
    return bytes(msg)


def test_the_greeting_slot_is_filled_for_each_new_student_and_never_stored_filled(services):
    """Staff greet Itzel by name; the kept answer holds a {nombre} slot; Octavio's draft greets Octavio, a sender without
    a display name gets a neutral «Hola:», and neither name is ever written into the curated text."""
    first, _ = _ask(services, "itz", sender="itzel.c@correo.example", raw=_raw_from("Itzel Coyoy", "itzel.c@correo.example"))
    with session_scope(services.engine) as s:
        queue.edit(session=s, draft_id=first.id, actor="cli:staff", confirm_links=True,
                   text="Buenos días, Itzel.\nLa inscripción a los exámenes de febrero va del 11 al 22 de enero de 2027, por el SIGE.\nSaludos")
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        assert kept.text.startswith("Buenos días {nombre}") and "Itzel" not in kept.text
    octavio, _ = _ask(services, "oct", sender="octavio@correo.example", raw=_raw_from("OCTAVIO TZOC", "octavio@correo.example"))
    assert octavio.method == answers.CURATED_METHOD and octavio.text.startswith("Buenos días Octavio") and "{" not in octavio.text
    anonymous, _ = _ask(services, "anon", sender="x9@correo.example", raw=_raw_from("", "x9@correo.example"))
    assert anonymous.method == answers.CURATED_METHOD and anonymous.text.startswith("Buenos días:\nLa inscripción") and "{" not in anonymous.text
    with Session(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        assert "Octavio" not in kept.text and "OCTAVIO" not in kept.text and "{nombre}" in kept.text


def test_an_answer_with_a_slot_nobody_fills_is_never_offered_as_ready_and_the_card_says_so(services):
    first, _ = _ask(services, "s1", sender="s1@correo.example")
    with session_scope(services.engine) as s:
        queue.approve(session=s, draft_id=first.id, actor="cli:staff", confirm_links=True)
    with session_scope(services.engine) as s:
        (kept,) = s.exec(select(CuratedAnswer)).all()
        answers.edit_text(session=s, answer_id=kept.id, actor="cli:staff",
                          text="Hola {nombre}: en {carrera} la inscripción a febrero va del 11 al 22 de enero de 2027, por el SIGE.")
    again, m2 = _ask(services, "s2", sender="s2@correo.example", raw=_raw_from("Rebeca Sic", "s2@correo.example"))
    assert again.method != answers.CURATED_METHOD and "{carrera}" not in again.text
    (suggested,) = answers.suggestions_of(again)
    assert "marcador sin completar" in suggested["personal"]
    card = json.dumps(blocks.review_card(again, m2), ensure_ascii=False)
    assert "marcador sin completar" in card
