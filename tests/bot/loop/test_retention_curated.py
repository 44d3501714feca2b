"""Retention forgets the answer memory too (issue 22): after the retention period no table and no file under the data
dir holds the student's personal data; the curated answer loses its question, is untied from the purged messages, and
is deleted when its text cannot be cleaned."""

from __future__ import annotations

import shutil
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import inspect, text, update
from sqlmodel import Session, select

from bot.demo import sample
from bot.email.maildir import copy_to_maildir
from bot.loop.retention import apply_retention
from bot.loop.worker import run_once
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from review import answer_memory as answers, queue
from review.answer_models import CuratedAnswer, RETIRED
from review.db import session_scope
from review.digest import build_digest
from review.models import InboundMessage, utcnow
from review.weeks import iso_week

QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"
PERSONAL = ["Valdemar", "VALDEMAR", "Quiej", "2018 07731", "201807731", "07731", "Herminia", "14 calle 3-22", "5523 9918", "55239918", "valdemar.quiej"]
EDITED = (
    "Hola Valdemar:\nLa inscripción a los exámenes de febrero va del 11 al 22 de enero de 2027, por el SIGE.\n"
    "VALDEMAR, tu carné 2018 07731 ya está habilitado. Tu mamá, Herminia Quiej, puede retirar la constancia en Bedelía.\n"
    "Te la mandamos a tu casa en 14 calle 3-22 zona 1 o te llamamos al 5523 9918.\nSaludos"
)


@pytest.fixture
def services(settings, tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(sample.docs_dir(), docs)
    settings.paths.documents = [docs]
    settings.paths.maildir = tmp_path / "inbox"
    settings.gate.enabled = False
    settings.database.retention_days = 30
    svc = Services(settings)
    ingest_documents(svc, [docs])
    yield svc
    svc.close()


def _mail(path: Path, sender: str, body: str, mid: str) -> Path:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"], msg["Date"] = sender, "consultas@ingenieria.example.edu.uy", "inscripción febrero", mid, "Mon, 23 Nov 2026 10:00:00 -0300"
    msg.set_content(body)
    path.write_bytes(bytes(msg))
    return path


def _places_holding(svc: Services, needles: list[str]) -> list[str]:
    """Every table text (any column, JSON included) and every file under the data dir that holds one of `needles`."""
    found = []
    with svc.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')).mappings():
                for column, value in row.items():
                    raw = value.decode("utf-8", "ignore") if isinstance(value, (bytes, memoryview)) else str(value)
                    found += [f"{table}.{column}: {n}" for n in needles if n.lower() in raw.lower()]
    for path in Path(svc.settings.data_dir).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for n in needles:
                if n.encode("utf-8") in data or n.lower().encode("utf-8") in data.lower():
                    found.append(f"{path.relative_to(svc.settings.data_dir)}: {n}")
    return found


def test_after_retention_no_table_and_no_file_holds_the_students_personal_data(services, tmp_path):
    a = _mail(tmp_path / "a.eml", "Valdemar Quiej <valdemar.quiej@ingenieria.example.edu.uy>", QUESTION + "\nMi carné es 2018 07731, vivo en 14 calle 3-22 zona 1.\n\nValdemar Quiej", "<va1@ingenieria.example.edu.uy>")
    copy_to_maildir([a], services.settings.paths.maildir)
    run_once(services)
    with session_scope(services.engine) as s:
        message_a = s.exec(select(InboundMessage)).one()
        queue.edit(session=s, draft_id=queue.latest_draft(session=s, message_id=message_a.id).id, actor="cli:staff", text=EDITED, confirm_links=True)
    run_once(services)  # sent
    with session_scope(services.engine) as s:  # an old-style answer still holding data (kept before anonymization existed)
        s.add(CuratedAnswer(question=f"soy Valdemar Quiej, {QUESTION}", text="Hola Valdemar: tu mamá Herminia puede retirarla; llamá al 5523 9918.", approved_by="cli:staff", message_id=message_a.id))
    b = _mail(tmp_path / "b.eml", "Otra Persona <otra@correo.example>", "hola, ¿hasta cuándo me puedo inscribir a los exámenes de febrero?", "<b1@correo.example>")
    copy_to_maildir([b], services.settings.paths.maildir)
    run_once(services)
    with session_scope(services.engine) as s:
        build_digest(session=s, week=iso_week(utcnow()))
    # The message of A ages past the retention period; B's is recent.
    with session_scope(services.engine) as s:
        s.execute(update(InboundMessage).where(InboundMessage.id == message_a.id).values(created_at=utcnow() - timedelta(days=40)))
    with Session(services.engine) as s:
        kept = [a for a in s.exec(select(CuratedAnswer).where(CuratedAnswer.message_id == message_a.id)).all() if a.draft_id is not None]
        assert len(kept) == 1 and QUESTION in kept[0].question and "vivo en" not in kept[0].question
    before = _places_holding(services, PERSONAL)
    assert any(p.startswith("curated_answer.") for p in before) and any(p.startswith("inbound_message.") for p in before)
    assert any(p.startswith("outbox/") for p in before) and any(p.startswith("orienta.db") for p in before), before  # the files held it too
    done = apply_retention(services)
    assert done.database.curated_cleaned >= 1 and done.database.curated_deleted == 1
    with Session(services.engine) as s:
        left = s.exec(select(CuratedAnswer)).all()
        assert len(left) == 1 and left[0].message_id is None and left[0].draft_id is None and left[0].state == RETIRED
        assert QUESTION not in left[0].question and not left[0].aliases
        assert "del 11 al 22 de enero de 2027" in left[0].text
        message_b = s.exec(select(InboundMessage).where(InboundMessage.sender == "otra@correo.example")).one()
        for flag in queue.latest_draft(session=s, message_id=message_b.id).flags:
            assert "question" not in flag or flag.get("kind") not in (answers.SUGGESTION_FLAG, answers.CURATED_FLAG)
    assert _places_holding(services, PERSONAL) == []
