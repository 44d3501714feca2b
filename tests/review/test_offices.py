"""Offices of a campus: registry, moves through the state machine (audited, loops refused), messages no office takes."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from review import queue, states
from review.errors import InvalidTransition, OfficeError, RoutingLoop, UnknownOffice
from review.models import AuditEvent, InboundMessage, InboundMessageCreate
from review.office_models import OfficeCreate
from review.offices import add_office, count_pending, find_office, list_offices, move, remove_office, route_of, unrouted
from tests.review.factories import make_drafted

DEFAULT = "principal"
KNOWN = [DEFAULT, "Becas y Bienestar", "Deportes"]


def _add(session, name: str):
    return add_office(session=session, data=OfficeCreate(name=name, slug="", documents=[f"/docs/{name}"]), actor="lead", reserved=[DEFAULT])


def test_add_find_remove_and_add_again(engine):
    with Session(engine) as session:
        office = _add(session, "Becas y Bienestar")
        assert office.slug == "becas-y-bienestar" and office.documents == ["/docs/Becas y Bienestar"]
        assert find_office(session=session, name="becas y bienestar").id == office.id
        assert find_office(session=session, name="becas-y-bienestar").id == office.id
        with pytest.raises(OfficeError):
            _add(session, "BECAS Y BIENESTAR")
        with pytest.raises(OfficeError):
            _add(session, "Principal")  # the default office's name is taken
        removed, pending = remove_office(session=session, name="Becas y Bienestar", actor="lead")
        assert removed.removed_at is not None and pending == 0
        assert list_offices(session=session) == []
        again = _add(session, "Becas y Bienestar")
        assert again.id == office.id and again.removed_at is None
        events = [e.event for e in session.exec(select(AuditEvent).where(AuditEvent.message_id.is_(None))).all()]
        assert events == ["office_added", "office_removed", "office_added"]
        session.commit()


def test_a_move_goes_through_the_state_machine_and_is_audited(engine):
    with Session(engine) as session:
        draft, message = make_drafted(session)
        moved = move(session=session, message_id=message.id, to_office="Becas y Bienestar", actor="ana", default=DEFAULT, known=KNOWN)
        assert moved.office == "Becas y Bienestar" and moved.state == states.CLASSIFIED  # drafted again by its new office
        event = session.exec(select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == "routed")).one()
        assert event.actor == "ana" and event.from_state == states.DRAFTED and event.to_state == states.CLASSIFIED
        assert event.details["from_office"] is None and event.details["to_office"] == "Becas y Bienestar" and event.details["by"] == "staff"
        assert route_of(session=session, message=moved, default=DEFAULT) == [DEFAULT, "Becas y Bienestar"]
        assert count_pending(session=session, office="Becas y Bienestar") == 1 and count_pending(session=session, office=None) == 0
        # moving it to the default office stores None (the default office's messages keep office NULL)
        move(session=session, message_id=message.id, to_office="Deportes", actor="ana", default=DEFAULT, known=KNOWN)
        assert route_of(session=session, message=moved, default=DEFAULT) == [DEFAULT, "Becas y Bienestar", "Deportes"]
        session.commit()


def test_a_routing_loop_is_refused_unless_the_campus_lead_forces_it(engine):
    with Session(engine) as session:
        _, message = make_drafted(session)
        move(session=session, message_id=message.id, to_office="Deportes", actor="ana", default=DEFAULT, known=KNOWN)
        with pytest.raises(RoutingLoop) as refused:
            move(session=session, message_id=message.id, to_office=DEFAULT, actor="bruno", default=DEFAULT, known=KNOWN)
        assert refused.value.path == [DEFAULT, "Deportes", DEFAULT]
        assert "already went through office 'principal'" in str(refused.value)
        assert session.get(InboundMessage, message.id).office == "Deportes"  # nothing changed
        back = move(session=session, message_id=message.id, to_office=DEFAULT, actor="lead", default=DEFAULT, known=KNOWN, force=True)
        assert back.office is None


def test_moves_that_cannot_happen(engine):
    with Session(engine) as session:
        draft, message = make_drafted(session)
        with pytest.raises(UnknownOffice):
            move(session=session, message_id=message.id, to_office="Tesorería", actor="ana", default=DEFAULT, known=KNOWN)
        with pytest.raises(OfficeError):
            move(session=session, message_id=message.id, to_office=DEFAULT, actor="ana", default=DEFAULT, known=KNOWN)  # already there
        queue.approve(session=session, draft_id=draft.id, actor="ana")
        with pytest.raises(InvalidTransition):  # decided: it is no longer any office's to take
            move(session=session, message_id=message.id, to_office="Deportes", actor="ana", default=DEFAULT, known=KNOWN)


def test_messages_for_a_missing_or_removed_office_stay_listed_with_the_reason(engine):
    with Session(engine) as session:
        _add(session, "Deportes")
        _, for_removed = make_drafted(session)
        move(session=session, message_id=for_removed.id, to_office="Deportes", actor="ana", default=DEFAULT, known=KNOWN)
        for_nobody, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="t:nobody", cleaned_text="hola", redacted_text="hola"))
        for_nobody.office = "Tesorería"  # addressed to an office that does not exist
        session.add(for_nobody)
        _, at_home = make_drafted(session)
        remove_office(session=session, name="Deportes", actor="lead")
        listed = {u.message_id: u for u in unrouted(session=session, known=[DEFAULT])}
        assert set(listed) == {for_removed.id, for_nobody.id}
        assert listed[for_removed.id].reason.startswith("office_removed") and "Deportes" in listed[for_removed.id].reason
        assert listed[for_nobody.id].reason.startswith("office_unknown") and "Tesorería" in listed[for_nobody.id].reason
        # a quarantined message can be moved to an office that exists, and is drafted there
        queue.quarantine(session=session, message=for_nobody, reason="office_unknown")
        moved = move(session=session, message_id=for_nobody.id, to_office=DEFAULT, actor="lead", default=DEFAULT, known=[DEFAULT])
        assert moved.state == states.CLASSIFIED and moved.office is None and moved.reason is None
        assert [u.message_id for u in unrouted(session=session, known=[DEFAULT])] == [for_removed.id]
