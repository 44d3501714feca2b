"""The review queue on SQLite and PostgreSQL: lifecycle, decisions, concurrency, card bookkeeping."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from review import queue, states
from review.db import session_scope
from review.errors import ConcurrentUpdate, InvalidTransition, ReviewError
from review.models import AuditEvent, Decision, InboundMessage, InboundMessageCreate, OutgoingReply, utcnow
from tests.review.factories import make_drafted


def test_a_message_is_stored_once_per_source_key(engine):
    data = InboundMessageCreate(channel="email", source_key="imap:INBOX:1:7", raw=b"Subject: x\r\n\r\nhola")
    with session_scope(engine) as s:
        first, created1 = queue.store_inbound(session=s, data=data)
    with session_scope(engine) as s:
        second, created2 = queue.store_inbound(session=s, data=data)
        count = len(s.exec(select(InboundMessage)).all())
    assert (created1, created2) == (True, False)
    assert first.id == second.id and count == 1


def test_approve_records_decision_outbox_row_and_audit_trail(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s)
    with session_scope(engine) as s:
        decision = queue.approve(session=s, draft_id=draft.id, actor="slack:U1")
    with Session(engine) as s:
        msg = s.get(InboundMessage, message.id)
        reply = s.exec(select(OutgoingReply).where(OutgoingReply.message_id == message.id)).one()
        events = s.exec(select(AuditEvent).where(AuditEvent.message_id == message.id).order_by(AuditEvent.id)).all()
    assert decision.action == "approve" and msg.state == states.APPROVED
    assert reply.body == draft.text and reply.recipient == "ana@example.com" and reply.subject == "Re: Inscripción a exámenes"
    assert [(e.from_state, e.to_state) for e in events if e.event == "transition"][-1] == (states.DRAFTED, states.APPROVED)
    assert events[-1].actor == "slack:U1" and events[-1].at is not None


def test_edit_sends_the_edited_text_and_reject_sends_nothing(engine):
    with session_scope(engine) as s:
        d1, _ = make_drafted(s)
        d2, m2 = make_drafted(s)
    with session_scope(engine) as s:
        queue.edit(session=s, draft_id=d1.id, actor="u", text="  Texto corregido.  ")
        queue.reject(session=s, draft_id=d2.id, actor="u", reason="missing_info", comment="no está en el reglamento")
    with Session(engine) as s:
        bodies = [r.body for r in s.exec(select(OutgoingReply)).all()]
        rejected = queue.decision_for(session=s, message_id=m2.id)
    assert bodies == ["Texto corregido."]
    assert (rejected.reason, rejected.comment) == ("missing_info", "no está en el reglamento")


def test_invalid_input_and_transitions_raise_typed_errors(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s)
    with session_scope(engine) as s:
        with pytest.raises(ReviewError, match="unknown reject reason"):
            queue.reject(session=s, draft_id=draft.id, actor="u", reason="aburrido")
        with pytest.raises(ReviewError, match="empty"):
            queue.edit(session=s, draft_id=draft.id, actor="u", text="   ")
        msg = s.get(InboundMessage, message.id)
        with pytest.raises(InvalidTransition):
            queue.skip(session=s, message=msg, reason="late")


def test_second_reviewer_is_told_who_acted_first(engine):
    with session_scope(engine) as s:
        draft, _ = make_drafted(s)
    with session_scope(engine) as s:
        queue.approve(session=s, draft_id=draft.id, actor="slack:UANA")
    with session_scope(engine) as s, pytest.raises(ConcurrentUpdate) as info:
        queue.reject(session=s, draft_id=draft.id, actor="slack:UBETO", reason="spam")
    assert (info.value.actor, info.value.action) == ("slack:UANA", "approve")


def test_stale_version_loses_even_before_state_changes(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s)
    with session_scope(engine) as s, pytest.raises(ConcurrentUpdate):
        queue.approve(session=s, draft_id=draft.id, actor="u", expected_version=message.version - 1)


def test_simultaneous_decisions_have_exactly_one_winner(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s)
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def decide(i: int) -> None:
        barrier.wait()
        try:
            with session_scope(engine) as s:
                if i % 2:
                    queue.approve(session=s, draft_id=draft.id, actor=f"r{i}")
                else:
                    queue.reject(session=s, draft_id=draft.id, actor=f"r{i}", reason="spam")
            outcomes.append("won")
        except ConcurrentUpdate as exc:
            outcomes.append(f"lost to {exc.actor}")

    threads = [threading.Thread(target=decide, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with Session(engine) as s:
        decisions = s.exec(select(Decision).where(Decision.message_id == message.id)).all()
        replies = s.exec(select(OutgoingReply)).all()
    assert outcomes.count("won") == 1 and len(decisions) == 1
    assert len(replies) == (1 if decisions[0].action == "approve" else 0)
    assert all(o == f"lost to {decisions[0].actor}" for o in outcomes if o != "won")


def test_card_bookkeeping_and_home_figures(engine):
    with session_scope(engine) as s:
        d1, m1 = make_drafted(s)
        d2, _ = make_drafted(s)
        d3, _ = make_drafted(s)
    with session_scope(engine) as s:
        queue.set_card(session=s, draft_id=d1.id, channel="CREVIEW", ts="1.1")
        queue.reject(session=s, draft_id=d3.id, actor="slack:U1", reason="spam")
    with Session(engine) as s:
        without = [d.id for d, _ in queue.drafts_without_card(session=s)]
        oldest = queue.oldest_pending_at(session=s)
        mine = queue.decisions_by(session=s, actor="slack:U1", since=utcnow() - timedelta(hours=1))
        others = queue.decisions_by(session=s, actor="slack:U2", since=utcnow() - timedelta(hours=1))
        pending = queue.count_pending(session=s)
    assert without == [d2.id]
    assert pending == 2 and (mine, others) == (1, 0)
    assert abs((oldest - m1.created_at).total_seconds()) < 1


def test_audit_records_events_without_a_state_change(engine):
    with session_scope(engine) as s:
        _, message = make_drafted(s)
        queue.audit(session=s, actor="slack:UX", event="unauthorised", message_id=message.id, details={"action": "approve"})
    with Session(engine) as s:
        event = s.exec(select(AuditEvent).where(AuditEvent.event == "unauthorised")).one()
        state = s.get(InboundMessage, message.id).state
    assert (event.actor, event.details, state) == ("slack:UX", {"action": "approve"}, states.DRAFTED)


@pytest.mark.postgres
def test_workers_claim_disjoint_messages_on_postgres(engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("row locks (FOR UPDATE SKIP LOCKED) are a PostgreSQL feature")
    with session_scope(engine) as s:
        for i in range(6):
            queue.store_inbound(session=s, data=InboundMessageCreate(channel="email", source_key=f"k{i}"))
    with Session(engine) as a, Session(engine) as b:
        first = {m.id for m in queue.claim_for_drafting(session=a, worker="A", limit=4)}
        second = {m.id for m in queue.claim_for_drafting(session=b, worker="B", limit=4)}
        a.commit(), b.commit()
    assert len(first) == 4 and len(second) == 2 and not first & second
