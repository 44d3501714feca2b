"""Retention that forgets (issue 14): every kind of row aged past the retention period, then the database file, the outbox and
the reports are grepped for the examples' personal data."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update
from sqlmodel import Session, select

from review.models import Decision, Draft, InboundMessage, OutgoingReply, utcnow
from review.weeks import iso_week
from tests.bot.maildir_office import office, office_engine  # noqa: F401  (fixture)

PII = ["Ana López", "López", "1983 44414 2215", "5555-1234", "ana.lopez@correo.example", "201903456", "5a. avenida 12-34 zona 1", "Beto Ajú", "Ajú", "diabetes", "Carla Soto"]


def eml(n: int, body: str, *, sender: str = "Ana López <ana.lopez@correo.example>", subject: str = "Consulta de Ana López", extra: str = "") -> bytes:
    return (
        f"From: {sender}\r\nTo: consultas@ingenieria.example.edu.gt\r\nSubject: {subject}\r\nMessage-ID: <r{n}@correo.example>\r\n"
        f"Date: Mon, 02 Mar 2026 10:00:00 -0600\r\n{extra}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


BODY = "Me llamo Ana López, DPI 1983 44414 2215, carnet 201903456, cel 5555-1234, vivo en 5a. avenida 12-34 zona 1 y tengo diabetes. ¿Cuándo es la asignación de cursos?"


def _leaks(data_dir: Path) -> dict[str, list[str]]:
    """Personal strings found in any file under the data dir (database, WAL, outbox, reports) — raw bytes, not just live rows."""
    found: dict[str, list[str]] = {}
    for path in data_dir.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        for value in PII:
            if value.encode("utf-8") in data:
                found.setdefault(str(path.relative_to(data_dir)), []).append(value)
    return found


def test_after_retention_nothing_personal_remains_in_database_outbox_or_reports(office):
    run, inbox, data_dir = office
    (inbox / "1_approved.eml").write_bytes(eml(1, BODY))
    (inbox / "2_edited.eml").write_bytes(eml(2, BODY.replace("asignación de cursos", "inscripción de EPS")))
    (inbox / "3_rejected.eml").write_bytes(eml(3, BODY.replace("asignación de cursos", "fecha de graduación")))
    (inbox / "4_pending.eml").write_bytes(eml(4, BODY.replace("asignación de cursos", "equivalencia de cursos")))
    (inbox / "5_quarantined.eml").write_bytes(eml(5, BODY, extra="From: Beto Ajú <beto@correo.example>\r\n"))
    (inbox / "6_skipped.eml").write_bytes(eml(6, "Estoy fuera de la oficina. Carla Soto, 5555-1234.", subject="Respuesta automática: Carla Soto"))
    (inbox / "7_approved_unsent.eml").write_bytes(eml(7, BODY.replace("asignación de cursos", "práctica final")))
    run("run", "--once")
    engine = office_engine(data_dir)
    with Session(engine) as s:
        drafts = {m.source_key.rsplit(":", 1)[1]: d.id for d, m in s.exec(select(Draft, InboundMessage).join(InboundMessage, InboundMessage.id == Draft.message_id)).all()}
    run("review", "approve", str(drafts["1_approved.eml"]))
    run("review", "edit", str(drafts["2_edited.eml"]), "--text", "Hola Ana López (DPI 1983 44414 2215): la inscripción de EPS abre en enero.")
    run("review", "reject", str(drafts["3_rejected.eml"]), "--reason", "personal", "--comment", "Llamar a Ana López al 5555-1234")
    run("run", "--once")  # sends the approved and the edited reply to the outbox
    run("review", "approve", str(drafts["7_approved_unsent.eml"]))  # approved late: the last pass sends it, then forgets it
    old = utcnow() - timedelta(days=400)
    with engine.begin() as conn:
        for table in (InboundMessage, Draft, Decision, OutgoingReply):
            conn.execute(update(table).values(created_at=old))
        conn.execute(update(InboundMessage).values(received_at=old))
    for path in (data_dir / "outbox").rglob("*"):
        os.utime(path, (old.timestamp(), old.timestamp()))
    week = iso_week(old)
    run("digest", "--week", week)  # a report of the aged week, quoting its questions
    reports = data_dir / "reports"
    assert any(reports.glob(f"digest-{week}.*"))
    before = _leaks(data_dir)
    assert any(p.startswith("outbox") for p in before) and any("orienta.db" in p for p in before), before  # the check can fail
    report = json.loads(run("run", "--once", "--json").stdout)
    assert report["purged"] == 7
    engine.dispose()
    assert _leaks(data_dir) == {}
    engine = office_engine(data_dir)
    with Session(engine) as s:
        states = sorted(m.state for m in s.exec(select(InboundMessage)).all())
        decisions = sorted(d.action for d in s.exec(select(Decision)).all())
        replies = sorted(r.state for r in s.exec(select(OutgoingReply)).all())
    engine.dispose()
    assert states == ["drafted", "quarantined", "rejected", "sent", "sent", "sent", "skipped"]  # the counts stay
    assert decisions == ["approve", "approve", "edit", "reject"] and replies == ["sent", "sent", "sent"]
    assert not any(reports.glob(f"digest-{week}.*"))


def test_campus_retention_purges_each_office_at_its_own_age_and_cleans_its_reports(tmp_path):
    from datetime import timedelta

    from sqlalchemy import update

    from bot.loop.retention import apply_retention
    from bot.wiring.campus import campus_of
    from bot.wiring.services import Services
    from pipeline.settings import Settings
    from review import queue
    from review.db import session_scope
    from review.models import InboundMessage, InboundMessageCreate, utcnow
    from review.office_models import OfficeCreate
    from review.offices import add_office

    svc = Services(Settings(data_dir=tmp_path / "data", embedding={"backend": "hashing"}, llm={"provider": "extractive"}))
    try:
        with session_scope(svc.engine) as session:
            add_office(session=session, data=OfficeCreate(name="becas", slug="", retention_days=30), actor="test")
            ids = {}
            for office in ("becas", None):
                message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key=f"t:{office}", sender="ana@correo.example", cleaned_text="Soy Ana, DNI 30123456", redacted_text="Soy [NOMBRE]"))
                message.office = office
                ids[office] = message.id
            session.execute(update(InboundMessage).values(created_at=utcnow() - timedelta(days=60)))
        reports = campus_of(svc).office_services("becas").settings.paths.reports_dir
        reports.mkdir(parents=True)
        (reports / "digest-2020-W01.md").write_text("viejo", encoding="utf-8")
        done = apply_retention(svc)
        assert done.database.messages == 1 and done.report_files == 1
        with session_scope(svc.engine) as session:
            assert session.get(InboundMessage, ids["becas"]).cleaned_text is None
            assert session.get(InboundMessage, ids[None]).cleaned_text is not None  # the default office keeps 180 days
    finally:
        svc.close()
