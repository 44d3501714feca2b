"""`orienta demo --campus`: the sample office and a second, small office (Bienestar Estudiantil) in one deployment;
messages written to the wrong office are routed to the right one, drafted from its documents."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import select

from bot.wiring.campus import campus_of
from bot.demo import sample
from bot.demo.run import Progress, fresh_data_dir
from bot.email.maildir import copy_to_maildir
from bot.learning.gate_training import TrainOptions, train
from bot.learning.routing import other_office_negatives, train_router
from bot.loop.worker import run_once
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from pipeline.settings import Settings
from review import queue
from review.db import session_scope
from review.models import InboundMessage
from review.office_models import OfficeCreate
from review.offices import add_office, route_of

CAMPUS_DIR = sample.SAMPLE_DIR / "campus"


@dataclass
class CampusRow:
    """Where one sample message arrived, where it was drafted, and from which documents."""

    source: str
    arrives_at: str
    route: list[str]
    references: list[str]
    expected: dict

    @property
    def office(self) -> str:
        return self.route[-1]

    @property
    def matches(self) -> bool:
        return self.office == self.expected["office"] and self.expected["doc"] in self.references

    def as_dict(self) -> dict:
        return {"source": self.source, "arrives_at": self.arrives_at, "route": self.route, "office": self.office, "references": self.references, "expected_office": self.expected["office"], "expected_doc": self.expected["doc"], "matches": self.matches}


def expected() -> dict:
    return json.loads((CAMPUS_DIR / "expected.json").read_text(encoding="utf-8"))


def run_campus_demo(settings: Settings, *, progress: Progress = lambda msg: None) -> list[CampusRow]:
    """Two offices, their documents and gates, the router, then the cross-office sample mail through one pass of the loop."""
    data_dir = fresh_data_dir(settings.paths.data_dir)
    spec = expected()
    emails = sorted((CAMPUS_DIR / "emails").glob("*.eml"))
    settings.paths.maildir = copy_to_maildir(emails, data_dir / "inbox")
    settings.paths.documents = [sample.docs_dir()]
    services = Services(settings)
    try:
        progress("Oficina principal: indexando sus documentos y entrenando su gate")
        ingest_documents(services, [sample.docs_dir()])
        name = spec["office"]["name"]
        with session_scope(services.engine) as session:
            add_office(session=session, data=OfficeCreate(name=name, slug="", documents=[str(CAMPUS_DIR / "bienestar")], mailbox=spec["office"]["mailbox"]), actor="demo", reserved=[settings.offices.default])
        campus = campus_of(services)
        office = campus.office_services(name)
        progress(f"{name}: indexando sus documentos y entrenando su gate (con los de la otra oficina como casi-aciertos)")
        ingest_documents(office)
        train(office, TrainOptions(generator="offline", near_misses=other_office_negatives(office, name)))
        train(services, TrainOptions(generator="offline", near_misses=other_office_negatives(services, None)))
        progress("Entrenando el ruteador entre oficinas")
        train_router(services)
        progress("Llegan 4 correos, dos de ellos a la oficina equivocada")
        run_once(services)
        rows = []
        with session_scope(services.engine) as session:
            for message in session.exec(select(InboundMessage).order_by(InboundMessage.id)).all():
                source = _source(message, emails)
                draft = queue.latest_draft(session=session, message_id=message.id)
                rows.append(CampusRow(
                    source=source, arrives_at=spec["messages"][source]["arrives_at"], route=route_of(session=session, message=message, default=campus.default),
                    references=[r["doc_id"] for r in (draft.references if draft else [])], expected=spec["messages"][source],
                ))
        return rows
    finally:
        services.close()


def _source(message: InboundMessage, emails: list[Path]) -> str:
    for path in emails:
        if message.external_id and message.external_id in path.read_text(encoding="utf-8"):
            return path.name
    return message.source_key

