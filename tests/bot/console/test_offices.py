"""Campus mode on the console: a reviewer sees and acts on their offices only; the campus lead on all of them."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from review import answer_memory as answers, staff
from review.answer_models import CuratedAnswer
from review.db import session_scope
from review.models import Decision, DigestRun, InboundMessage, InboundMessageCreate
from review.office_models import OfficeCreate
from review.offices import add_office
from tests.bot.console.conftest import PASSWORD, csrf, sign_in
from tests.review.factories import make_drafted


@pytest.fixture
def campus(svc):
    """Two offices besides the default one; «becas» reviewed by bea, the campus lead lucia (a lead bound to no office)."""
    with session_scope(svc.engine) as session:
        for name in ("becas", "eps"):
            add_office(session=session, data=OfficeCreate(name=name, slug=""), actor="test")
        staff.add_staff(session=session, name="bea", role=staff.REVIEWER, password=PASSWORD, actor="test", offices=["becas"])
        staff.add_staff(session=session, name="eva", role=staff.LEAD, password=PASSWORD, actor="test", offices=["eps"])
        drafts = {}
        for office, question in ((None, "¿Cuándo son los exámenes?"), ("becas", "¿Cuándo cierra la beca de transporte?"), ("eps", "¿Cómo inscribo mi EPS?"), ("cerrada", "¿Quién atiende?")):
            draft, message = make_drafted(session, question=question, subject=f"Consulta {len(drafts) + 1}")
            message.office = office
            session.add(message)
            drafts[office] = draft.id
    return drafts


def _client(app, name: str) -> TestClient:
    client = TestClient(app)
    assert sign_in(client, name).status_code == 303
    return client


def test_a_reviewer_sees_only_the_queue_of_their_office(app, campus):
    page = _client(app, "bea").get("/").text
    assert "beca de transporte" in page
    assert "exámenes" not in page and "EPS" not in page and "Quién atiende" not in page


def test_the_campus_lead_sees_every_office_and_the_messages_no_office_takes(app, campus, lead):
    page = lead.get("/").text
    for question in ("exámenes", "beca de transporte", "inscribo mi EPS", "Quién atiende"):
        assert question in page, question


def test_a_reviewer_without_offices_works_for_the_default_office(app, campus, reviewer):
    page = reviewer.get("/").text
    assert "exámenes" in page and "beca de transporte" not in page


def test_acting_on_another_offices_message_is_refused_with_403(app, campus, svc):
    bea = _client(app, "bea")
    token = csrf(bea, "/")
    assert bea.get(f"/drafts/{campus['eps']}").status_code == 403
    assert bea.post(f"/drafts/{campus['eps']}/approve", data={"csrftoken": token}).status_code == 403
    assert bea.post(f"/drafts/{campus[None]}/reject", data={"csrftoken": token, "reason": "spam"}).status_code == 403
    assert bea.post(f"/drafts/{campus['becas']}/approve", data={"csrftoken": token}).status_code == 200
    with Session(svc.engine) as session:
        assert [(d.draft_id, d.actor) for d in session.exec(select(Decision)).all()] == [(campus["becas"], "console:bea")]


def test_an_office_lead_is_not_the_campus_lead(app, campus):
    eva = _client(app, "eva")
    assert "inscribo mi EPS" in eva.get("/").text and "beca de transporte" not in eva.get("/").text
    assert eva.get(f"/drafts/{campus['cerrada']}").status_code == 403
    assert eva.get("/documents?office=becas").status_code == 403  # another office's documents
    assert eva.get("/documents").status_code == 200
    assert eva.get("/staff").status_code == 403  # accounts are the campus lead's
    assert eva.post("/staff/lucia/disable", data={"csrftoken": csrf(eva, "/")}).status_code == 403


def test_approved_answers_are_listed_and_edited_only_in_their_office(app, campus, svc):
    with session_scope(svc.engine) as session:
        mine = CuratedAnswer(question="¿Beca de transporte?", text="Se pide en marzo.", approved_by="test", office="becas")
        theirs = CuratedAnswer(question="¿Inscripción EPS?", text="En la Unidad de EPS.", approved_by="test", office="eps")
        session.add(mine)
        session.add(theirs)
        session.flush()
        ids = mine.id, theirs.id
    bea = _client(app, "bea")
    listed = bea.get("/answers").text
    assert "Beca de transporte" in listed and "Inscripción EPS" not in listed
    assert bea.get(f"/answers/{ids[1]}").status_code == 403
    assert bea.post(f"/answers/{ids[1]}/retire", data={"csrftoken": csrf(bea, "/answers")}).status_code == 403
    with session_scope(svc.engine) as session:
        assert answers.get_answer(session=session, answer_id=ids[1]).state == "active"


def test_set_aside_messages_are_filtered_and_needs_reply_refused_across_offices(app, campus, svc):
    from review import queue

    with session_scope(svc.engine) as session:
        message = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="test:eps-q", sender="x@example.com", subject="Consulta EPS apartada", cleaned_text="?", redacted_text="?"))[0]
        message.office = "eps"
        queue.quarantine(session=session, message=message, reason="parse_error: test")
        message_id = message.id
    bea = _client(app, "bea")
    assert "Consulta EPS apartada" not in bea.get("/messages?state=quarantined").text
    assert "Consulta EPS apartada" in _client(app, "lucia").get("/messages?state=quarantined").text
    assert bea.post(f"/messages/{message_id}/needs-reply", data={"csrftoken": csrf(bea, "/"), "state": "quarantined"}).status_code == 403
    with session_scope(svc.engine) as session:
        assert session.get(InboundMessage, message_id).state == "quarantined"
        assert queue.count_pending(session=session, offices=["becas"]) == 1


def test_a_reviewer_passes_a_message_to_another_office_and_a_loop_back_is_refused(app, campus, svc):
    from review.models import AuditEvent

    bea = _client(app, "bea")
    page = bea.get(f"/drafts/{campus['becas']}").text
    assert "Oficina: <strong>becas</strong>" in page and '<option value="eps">' in page
    moved = bea.post(f"/drafts/{campus['becas']}/move", data={"csrftoken": csrf(bea, "/"), "office": "eps"}, follow_redirects=False)
    assert moved.status_code == 303
    with session_scope(svc.engine) as session:
        message = session.exec(select(InboundMessage).where(InboundMessage.subject == "Consulta 2")).one()
        assert (message.office, message.state) == ("eps", "classified")  # drafted again at its new office
        event = session.exec(select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == "routed")).one()
        assert event.actor == "console:bea" and event.details["by"] == "staff"
        message.state = "drafted"  # drafted there (the draft itself does not matter here)
        session.add(message)
    eva = _client(app, "eva")  # the EPS office's lead tries to send it back
    back = eva.post(f"/drafts/{campus['becas']}/move", data={"csrftoken": csrf(eva, "/"), "office": "becas"})
    assert back.status_code == 400 and "haría un bucle" in back.text
    assert bea.post(f"/drafts/{campus['becas']}/move", data={"csrftoken": csrf(bea, "/"), "office": "becas"}).status_code == 403  # no longer hers


def _no_info(svc, campus) -> None:
    """Every campus draft found nothing in the documents: each is a content gap of its office."""
    from review.models import Draft

    with session_scope(svc.engine) as session:
        for draft_id in campus.values():
            draft = session.get(Draft, draft_id)
            draft.no_info = True
            session.add(draft)


def test_the_campus_lead_picks_an_office_on_the_gaps_and_digest_pages(app, campus, svc):
    from datetime import datetime, timezone

    from review.weeks import iso_week

    _no_info(svc, campus)
    lucia = _client(app, "lucia")
    everything = lucia.get("/gaps").text
    assert 'id="office-picker"' in everything and "Todas las oficinas" in everything
    for name in ("principal", "becas", "eps"):
        assert f'<option value="{name}">' in everything, name
    assert "beca de transporte" in everything and "inscribo mi EPS" in everything
    picked = lucia.get("/gaps?office=eps").text
    assert "inscribo mi EPS" in picked and "beca de transporte" not in picked and "exámenes" not in picked
    assert '<option value="eps" selected>' in picked
    default = lucia.get("/gaps?office=principal").text
    assert "exámenes" in default and "inscribo mi EPS" not in default
    week = iso_week(datetime.now(timezone.utc))
    with session_scope(svc.engine) as session:
        session.add(DigestRun(iso_week=week, figures={"received": 4}))
    assert f'href="/digests/{week}?office=becas"' in lucia.get("/digests?office=becas").text  # the picked office's figures, built on opening
    assert f'href="/digests/{week}"' in lucia.get("/digests").text  # nothing picked: the stored campus digest
    received = lambda text: text.split("recibidos</dt><dd>")[1].split("<")[0]  # noqa: E731
    assert received(lucia.get(f"/digests/{week}?office=becas").text) == "1"
    assert received(lucia.get(f"/digests/{week}").text) == "4"  # every office, the unrouted message included
    assert lucia.get("/gaps?office=cerrada").status_code == 403  # no such office


def test_a_reviewer_picks_only_among_their_offices(app, campus, svc):
    from datetime import datetime, timezone

    from review.weeks import iso_week

    _no_info(svc, campus)
    bea = _client(app, "bea")
    page = bea.get("/gaps").text
    assert 'id="office-picker"' in page and "Todas las oficinas" not in page
    assert '<option value="eps"' not in page and '<option value="principal"' not in page
    assert "beca de transporte" in page and "inscribo mi EPS" not in page
    assert bea.get("/gaps?office=becas").status_code == 200
    assert bea.get("/gaps?office=eps").status_code == 403
    assert bea.get("/digests?office=principal").status_code == 403
    week = iso_week(datetime.now(timezone.utc))
    assert bea.get(f"/digests/{week}?office=eps").status_code == 403
    assert "recibidos</dt><dd>1<" in bea.get(f"/digests/{week}?office=becas").text


def test_one_office_has_no_picker(app, lead):
    assert 'id="office-picker"' not in lead.get("/gaps").text
    assert 'id="office-picker"' not in lead.get("/digests").text
