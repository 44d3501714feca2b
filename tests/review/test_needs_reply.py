"""«Necesita respuesta»: whatever an automatic decision set aside stays listed and goes back to drafting through the one state machine."""

from __future__ import annotations

import pytest
from sqlmodel import select

from review import queue, states
from review.db import session_scope
from review.errors import InvalidTransition, ReviewError
from review.models import AuditEvent, InboundMessage, InboundMessageCreate
from tests.review.factories import make_drafted


def _stored(session, n: int, *, text: str | None = "Gracias, ya me anoté.", body: str | None = None, raw: bytes | None = None) -> InboundMessage:
    message, _ = queue.store_inbound(
        session=session,
        data=InboundMessageCreate(channel="email", source_key=f"nr:{n}", external_id=f"<nr{n}@example.com>", sender="lucia@example.com", subject="Trámite", cleaned_text=text, redacted_text=text, body_text=body or text, raw=raw),
    )
    return message


def _set_aside(engine) -> dict[str, int]:
    with session_scope(engine) as s:
        ack = _stored(s, 1)
        states.transition(s, ack, states.ACKNOWLEDGED, actor=queue.SYSTEM, details={"reason": "closing"})
        ack.reason = "acknowledgement: closing"
        skipped = _stored(s, 2, text=None, body="Estoy de vacaciones hasta el lunes, pero necesito el certificado de notas.")
        queue.skip(session=s, message=skipped, reason="auto_reply: the body says it is an automatic reply")
        quarantined = _stored(s, 3, text=None, body=None, raw=b"From: x\n\nMe cobraron dos veces la inscripcion al curso de ingles")
        queue.quarantine(session=s, message=quarantined, reason="malformed: no From header")
        return {"acknowledged": ack.id, "skipped": skipped.id, "quarantined": quarantined.id}


def test_set_aside_messages_are_listed_by_state(engine):
    ids = _set_aside(engine)
    with session_scope(engine) as s:
        make_drafted(s)
        assert {m.id for m in queue.not_drafted(session=s)} == set(ids.values())
        for state, mid in ids.items():
            assert [m.id for m in queue.not_drafted(session=s, state=state)] == [mid]
        with pytest.raises(ReviewError, match="not a state set aside"):
            queue.not_drafted(session=s, state=states.DRAFTED)


@pytest.mark.parametrize("state", ["acknowledged", "skipped", "quarantined"])
def test_needs_reply_sends_the_message_to_drafting_with_an_audit_event(engine, state):
    ids = _set_aside(engine)
    mid = ids[state]
    with session_scope(engine) as s:
        message = queue.needs_reply(session=s, message_id=mid, actor="slack:UREV")
        assert message.state == states.RECEIVED and message.reason.startswith(f"needs_reply: {state}")
        assert message.redacted_text.strip()  # something to draft from, even for a mail set aside before intake finished
    with session_scope(engine) as s:
        events = s.exec(select(AuditEvent).where(AuditEvent.message_id == mid).order_by(AuditEvent.id)).all()
        last = events[-1]
        assert (last.event, last.from_state, last.to_state, last.actor) == ("transition", state, states.RECEIVED, "slack:UREV")
        assert last.details["action"] == "needs_reply"
        assert queue.staff_wants_reply(session=s, message_id=mid)
        assert mid in [m.id for m in queue.claim_for_drafting(session=s, worker="w")]  # the worker picks it up


def test_the_text_of_a_skipped_mail_is_cleaned_and_redacted_before_drafting(engine):
    ids = _set_aside(engine)
    with session_scope(engine) as s:
        message = queue.needs_reply(session=s, message_id=ids["skipped"], actor="u")
        assert "certificado de notas" in message.redacted_text


def test_needs_reply_refuses_drafted_messages_and_unknown_ids(engine):
    with session_scope(engine) as s:
        _, message = make_drafted(s)
        with pytest.raises(InvalidTransition):
            queue.needs_reply(session=s, message_id=message.id, actor="u")
        with pytest.raises(ReviewError, match="no message"):
            queue.needs_reply(session=s, message_id=99999, actor="u")
        assert not queue.staff_wants_reply(session=s, message_id=message.id)
