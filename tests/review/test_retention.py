"""Retention removes every stored text of old messages, in every state, and keeps states and decisions (the counts)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from review import queue, states
from review.db import session_scope
from review.models import AuditEvent, Decision, InboundMessage, OutgoingReply, utcnow
from review.retention import purge_personal_data
from tests.review.factories import make_drafted


def _age(engine, message_id: int, days: int) -> None:
    with session_scope(engine) as s:
        s.execute(update(InboundMessage).where(InboundMessage.id == message_id).values(created_at=utcnow() - timedelta(days=days)))


def test_old_messages_lose_every_text_in_any_state_but_keep_decisions(engine):
    with session_scope(engine) as s:
        old_draft, old = make_drafted(s, sender="ana@example.com")
        pending_draft, pending = make_drafted(s, sender="beto@example.com")
        _, recent = make_drafted(s, sender="caro@example.com")
        old_row = s.get(InboundMessage, old.id)
        old_row.raw, old_row.body_text = b"From: ana@example.com\r\n\r\nMi CI es 1.234.567-8", "Mi CI es 1.234.567-8"
        s.add(old_row)
        queue.approve(session=s, draft_id=old_draft.id, actor="u")
        reply = s.exec(select(OutgoingReply).where(OutgoingReply.message_id == old.id)).one()
        queue.mark_sent(session=s, reply=reply, our_message_id="<r@x>")
    with session_scope(engine) as s:
        queue.reject(session=s, draft_id=s.exec(select(queue.Draft).where(queue.Draft.message_id == recent.id)).one().id, actor="u", reason="spam")
    _age(engine, old.id, 200)
    _age(engine, pending.id, 200)
    with session_scope(engine) as s:
        report = purge_personal_data(session=s, days=180)
    with Session(engine) as s:
        o, p, r = (s.get(InboundMessage, m.id) for m in (old, pending, recent))
        reply = s.exec(select(OutgoingReply).where(OutgoingReply.message_id == old.id)).one()
        decision = s.exec(select(Decision).where(Decision.message_id == old.id)).one()
        purge_events = s.exec(select(AuditEvent).where(AuditEvent.event == "personal_data_deleted")).all()
    assert report.messages == 2 and report.replies == 1
    assert (o.raw, o.body_text, o.cleaned_text, o.redacted_text, o.subject) == (None, None, None, None, None) and "ana" not in (o.sender or "")
    assert o.state == states.SENT and o.redacted_at is not None and decision.action == "approve"
    assert reply.body == "" and reply.recipient is None and reply.state == "sent"
    assert p.sender != "beto@example.com" and p.cleaned_text is None and p.state == states.DRAFTED  # waiting for review, but past retention
    assert r.sender == "caro@example.com"  # finished but recent
    assert sorted(e.message_id for e in purge_events) == sorted([old.id, pending.id])
    with session_scope(engine) as s:
        assert purge_personal_data(session=s, days=180).messages == 0


def test_an_approved_reply_never_sent_expires_with_its_texts(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s, sender="dora@example.com")
        queue.edit(session=s, draft_id=draft.id, actor="u", text="Hola Dora, tu DPI 1983 44414 2215 ya figura.")
    _age(engine, message.id, 400)
    with session_scope(engine) as s:
        report = purge_personal_data(session=s, days=180)
    with Session(engine) as s:
        reply = s.exec(select(OutgoingReply)).one()
        decision = s.exec(select(Decision)).one()
        draft_row = s.get(queue.Draft, draft.id)
    assert report.expired_replies == 1 and reply.state == "expired" and reply.body == "" and reply.recipient is None
    assert decision.final_text is None and decision.action == "edit" and "Dora" not in draft_row.text
    with session_scope(engine) as s:
        assert list(queue.pending_replies(session=s)) == []  # nothing left for the sender to pick up


def test_a_purged_message_leaves_the_context_of_later_follow_ups_in_its_conversation(engine):
    with session_scope(engine) as s:
        first_draft, first = make_drafted(s, question="¿Hasta cuándo me inscribo a exámenes?")
        turns = [{"role": "student", "text": "¿Hasta cuándo me inscribo a exámenes?", "message_id": first.id}]
        later_draft, later = make_drafted(s, question="¿Y si no puedo ir?", context={"turns": turns, "query": "Hasta cuándo me inscribo a exámenes.\n¿Y si no puedo ir?"})
        first.conversation_id = later.conversation_id = first.id
        later.follows_id = first.id
        s.add_all([first, later])
    _age(engine, first.id, 400)
    with session_scope(engine) as s:
        purge_personal_data(session=s, days=180)
    with Session(engine) as s:
        from review.models import Draft

        assert s.get(Draft, first_draft.id).context == {}
        assert s.get(Draft, later_draft.id).context == {}  # the follow-up (still within retention) keeps no copy of the purged question
        assert s.get(InboundMessage, later.id).redacted_text == "¿Y si no puedo ir?"


def test_purged_drafts_keep_their_documents_but_not_the_claims_quoting_them(engine):
    with session_scope(engine) as s:
        draft, message = make_drafted(s, sender="ana@example.com")
        row = s.get(queue.Draft, draft.id)
        row.references = [{"doc_id": "examenes", "title": "Exámenes", "url": None, "claims": [{"claim": "Ana, tu CI 1.234.567-8 vence", "passage": 1, "quote": "q"}]}]
        s.add(row)
    _age(engine, message.id, 200)
    with session_scope(engine) as s:
        purge_personal_data(session=s, days=180)
    with Session(engine) as s:
        assert s.get(queue.Draft, draft.id).references == [{"doc_id": "examenes", "title": "Exámenes", "url": None}]


def test_an_office_with_a_retention_of_its_own_is_purged_at_its_own_age(engine):
    """Campus mode: «becas» keeps 30 days; the rest keeps the deployment's 180 (a pass per office, never another's)."""
    with session_scope(engine) as s:
        ids = {}
        for office in ("becas", None, "eps"):
            _, message = make_drafted(s)
            message.office = office
            s.add(message)
            ids[office] = message.id
    for mid in ids.values():
        _age(engine, mid, 60)
    with session_scope(engine) as s:
        assert purge_personal_data(session=s, days=180, except_offices=["becas"]).messages == 0
        assert purge_personal_data(session=s, days=30, offices=["becas"]).messages == 1
    with Session(engine) as s:
        assert s.get(InboundMessage, ids["becas"]).redacted_text is None
        assert s.get(InboundMessage, ids[None]).redacted_text is not None and s.get(InboundMessage, ids["eps"]).redacted_text is not None
