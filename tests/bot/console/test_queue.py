"""The review queue on the console: the card's facts, and approve / edit / reject through review.queue's guarantees."""

from __future__ import annotations

import asyncio

import httpx
from sqlmodel import Session, func, select

from review.db import session_scope
from review.models import Decision, OutgoingReply
from tests.bot.console.conftest import PASSWORD, csrf
from tests.review.factories import make_drafted


def test_a_draft_shows_what_the_slack_card_shows(lead, svc):
    context = {"turns": [{"role": "student", "text": "¿Y las becas?"}], "query": "becas de transporte plazo", "parts": ["¿cuándo?", "¿dónde?"]}
    derivation = [{"id": "s1", "rule": "Extract", "premises": [1], "conclusion": "cierra el 10 de febrero", "is_final": True, "flags": ["fecha nueva"]}]
    flags = [{"kind": "foreign_link", "link": "https://evil.example"}, {"kind": "curated_suggestion", "answer_id": 7, "question": "¿plazo de becas?", "approved_at": "2026-11-20T10:00:00+00:00"}]
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session, question="¿Hasta cuándo hay inscripción?", context=context, derivation=derivation, flags=flags)
    page = lead.get(f"/drafts/{draft.id}").text
    for fact in ("¿Hasta cuándo hay inscripción?", "Estudiante", "becas de transporte plazo", "¿dónde?", "en dominio (0.91)", "La inscripción cierra el 10 de febrero.",
                 "Exámenes", "https://evil.example", "[s1] Extract", "fecha nueva", "respuesta aprobada #7", "Confirmo los enlaces"):
        assert fact in page, fact
    assert 'id="edit-text">Hola:\nLa inscripción cierra el 10 de febrero.' in page  # the edit box starts from the draft


def test_approve_edit_and_reject_record_the_decision_with_the_console_user(lead, svc):
    with session_scope(svc.engine) as session:
        a, _ = make_drafted(session)
        b, _ = make_drafted(session)
        c, _ = make_drafted(session)
    token = csrf(lead, "/")
    assert "Aprobado" in lead.post(f"/drafts/{a.id}/approve", data={"csrftoken": token}).text
    page = lead.post(f"/drafts/{b.id}/edit", data={"csrftoken": token, "text": "Hola: cierra el 12 de febrero."}).text
    assert "Texto enviado" in page and "cierra el 12 de febrero" in page and "lucia" in page
    assert "Rechazado" in lead.post(f"/drafts/{c.id}/reject", data={"csrftoken": token, "reason": "spam"}).text
    with Session(svc.engine) as session:
        decisions = {d.draft_id: d for d in session.exec(select(Decision)).all()}
        replies = session.exec(select(OutgoingReply)).all()
    assert {d.actor for d in decisions.values()} == {"console:lucia"}
    assert decisions[b.id].final_text == "Hola: cierra el 12 de febrero." and decisions[c.id].reason == "spam"
    assert sorted(r.draft_id for r in replies) == [a.id, b.id]  # a rejection sends nothing


def test_links_not_in_the_documents_need_a_confirmation(lead, svc):
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session, text="Completá https://evil.example/form", flags=[{"kind": "foreign_link", "link": "https://evil.example/form"}])
    token = csrf(lead, "/")
    refused = lead.post(f"/drafts/{draft.id}/approve", data={"csrftoken": token})
    assert refused.status_code == 409 and "enlaces que no están en los documentos" in refused.text
    assert lead.post(f"/drafts/{draft.id}/approve", data={"csrftoken": token, "confirm_links": "true"}).status_code == 200
    with Session(svc.engine) as session:
        assert session.exec(select(func.count()).select_from(OutgoingReply)).one() == 1


def test_a_decision_on_an_old_version_says_who_decided_first(lead, reviewer, svc):
    with session_scope(svc.engine) as session:
        draft, message = make_drafted(session)
        version = message.version
    assert reviewer.post(f"/drafts/{draft.id}/approve", data={"csrftoken": csrf(reviewer, "/"), "version": version}).status_code == 200
    late = lead.post(f"/drafts/{draft.id}/reject", data={"csrftoken": csrf(lead, "/"), "reason": "spam", "version": version})
    assert late.status_code == 409 and "ya fue atendido por rafa" in late.text


def test_twenty_concurrent_approvals_send_one_reply(app, svc):
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session)

    async def race() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://console") as client:
            page = await client.get("/login")
            token = page.text.split('name="csrftoken" value="')[1].split('"')[0]
            await client.post("/login", data={"csrftoken": token, "name": "lucia", "password": PASSWORD, "next": "/"})
            responses = await asyncio.gather(*(client.post(f"/drafts/{draft.id}/approve", data={"csrftoken": token}) for _ in range(20)))
            return [r.status_code for r in responses]

    codes = asyncio.run(race())
    assert codes.count(303) == 1 and all(c in (303, 409) for c in codes), codes
    with Session(svc.engine) as session:
        assert session.exec(select(func.count()).select_from(OutgoingReply)).one() == 1
        assert session.exec(select(func.count()).select_from(Decision)).one() == 1


def test_set_aside_messages_are_listed_with_their_reason(lead, svc):
    from review import queue
    from review.models import InboundMessageCreate

    with session_scope(svc.engine) as session:
        message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="t:q1", sender="x@example.com", subject="Adjunto roto", cleaned_text="<b>hola</b>"))
        queue.quarantine(session=session, message=message, reason="malformed: no body")
    page = lead.get("/messages?state=quarantined").text
    assert "Adjunto roto" in page and "malformed: no body" in page and "&lt;b&gt;hola" in page



def test_needs_reply_sends_a_set_aside_message_back_to_drafting_with_the_console_user(lead, svc):
    from review import queue, states
    from review.models import AuditEvent, InboundMessage, InboundMessageCreate
    from sqlmodel import select

    with session_scope(svc.engine) as session:
        message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="t:q2", sender="y@example.com", subject="Constancia", cleaned_text="Gracias. Necesito la constancia de estudios.", redacted_text="Gracias. Necesito la constancia de estudios."))
        queue.quarantine(session=session, message=message, reason="empty")
        mid = message.id
    assert "/messages/%d/needs-reply" % mid in lead.get("/messages?state=quarantined").text
    assert lead.post(f"/messages/{mid}/needs-reply", data={"state": "quarantined"}).status_code == 403  # no CSRF token: refused
    done = lead.post(f"/messages/{mid}/needs-reply", data={"csrftoken": csrf(lead, "/messages"), "state": "quarantined"})
    assert done.status_code == 200 and "Constancia" not in done.text.split("<main")[-1]
    with session_scope(svc.engine) as session:
        assert session.get(InboundMessage, mid).state == states.RECEIVED
        events = session.exec(select(AuditEvent).where(AuditEvent.message_id == mid, AuditEvent.event == "needs_reply")).all()
        assert [e.actor for e in events] == ["console:lucia"]



def test_a_draft_page_says_what_the_offline_draft_is_missing_and_offers_the_closest_passages(lead, svc):
    flag = {"kind": "readiness", "flag": "necesita revisión", "label": "necesita revisión", "missing": "no encontré el costo: «el examen <b>final</b>»",
            "passages": [{"doc_id": "aranceles", "title": "Aranceles", "text": "El examen final cuesta Q.250.00."}]}
    with session_scope(svc.engine) as session:
        draft, _ = make_drafted(session, flags=[flag])
    page = lead.get(f"/drafts/{draft.id}").text
    assert "necesita revisión" in page and "no encontré el costo: «el examen &lt;b&gt;final&lt;/b&gt;»" in page
    assert "Aranceles</strong>: El examen final cuesta Q.250.00." in page
