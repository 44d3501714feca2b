"""`orienta demo --campus`: two offices in one deployment; mail written to the wrong office is drafted by the right one."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from bot.demo.campus import expected, run_campus_demo
from review.models import AuditEvent

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the sample office is embedded with the real model


@pytest.fixture(scope="module")
def campus_demo(tmp_path_factory):
    from pipeline.settings import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("campus") / "demo-campus", _env_file=None)  # type: ignore[call-arg]
    settings.llm.provider = "extractive"
    return settings, run_campus_demo(settings)


def test_every_message_is_drafted_by_its_office_from_its_documents(campus_demo):
    _, rows = campus_demo
    spec = expected()["messages"]
    assert sorted(r.source for r in rows) == sorted(spec)
    for row in rows:
        assert row.office == spec[row.source]["office"], row.as_dict()
        assert spec[row.source]["doc"] in row.references, row.as_dict()


def test_routes_start_where_the_student_wrote_and_moves_are_audited(campus_demo):
    settings, rows = campus_demo
    routes = {r.source: r.route for r in rows}
    assert routes["01_psicologa_al_correo_general.eml"] == ["principal", "Bienestar Estudiantil"]
    assert routes["02_examenes_al_correo_de_bienestar.eml"] == ["Bienestar Estudiantil", "principal"]  # written to Bienestar's own mailbox
    assert routes["03_gimnasio_al_correo_de_bienestar.eml"] == ["Bienestar Estudiantil"]
    assert routes["04_creditos_al_correo_general.eml"] == ["principal"]
    from review.db import make_engine

    engine = make_engine(settings.database_url)
    with Session(engine) as session:
        events = session.exec(select(AuditEvent).where(AuditEvent.event == "routed")).all()
    engine.dispose()
    assert {(e.details["to_office"], e.details["by"], e.details["reason"]) for e in events} == {
        ("Bienestar Estudiantil", "router", "router"), ("Bienestar Estudiantil", "router", "address"), (None, "router", "router"),
    }
