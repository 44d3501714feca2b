"""Drafting retries in the database: backoff, the next attempt respected by the claim, offline fallback time, requeue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from review import queue, retries, states
from review.errors import ReviewError
from review.models import AuditEvent, InboundMessage, InboundMessageCreate, utcnow


def _received(session: Session, key: str) -> InboundMessage:
    message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key=key, sender="x@x.example", cleaned_text="¿cuándo?", redacted_text="¿cuándo?"))
    return message


def test_backoff_doubles_up_to_the_cap():
    assert [retries.backoff(n, base_s=30, max_s=200) for n in (1, 2, 3, 4, 5)] == [30, 60, 120, 200, 200]


def test_a_waiting_message_is_claimed_only_once_its_next_attempt_is_due(engine):
    with Session(engine, expire_on_commit=False) as s:
        waiting, fresh = _received(s, "r:1"), _received(s, "r:2")
        now = utcnow()
        at = retries.defer(session=s, message=waiting, error=TimeoutError("slow"), base_s=30, max_s=600, fallback_after_s=None, now=now)
        s.commit()
        assert at == now + timedelta(seconds=30) and waiting.state == states.RECEIVED and waiting.draft_attempts == 1
        assert waiting.reason == "waiting: TimeoutError: slow"
        assert [m.id for m in queue.claim_for_drafting(session=s, worker="w")] == [fresh.id]
        assert {m.id for m in queue.claim_for_drafting(session=s, worker="w", due_only=False)} == {waiting.id, fresh.id}
        again = retries.defer(session=s, message=waiting, error=TimeoutError("slow"), base_s=30, max_s=600, fallback_after_s=45, now=now + timedelta(seconds=31))
        assert again == waiting.waiting_since + timedelta(seconds=45)  # not later than the offline fallback
        assert not retries.offline_due(waiting, fallback_after_s=45, now=now + timedelta(seconds=40))
        assert retries.offline_due(waiting, fallback_after_s=45, now=now + timedelta(seconds=46))
        assert [e.details["attempts"] for e in s.exec(select(AuditEvent).where(AuditEvent.event == retries.DEFERRED_EVENT)).all()] == [1, 2]
        retries.settled(waiting)
        assert (waiting.draft_attempts, waiting.next_attempt_at, waiting.waiting_since, waiting.reason) == (0, None, None, None)


def test_requeue_sends_a_quarantined_message_back_and_refuses_others(engine):
    with Session(engine, expire_on_commit=False) as s:
        bad, good, empty = _received(s, "q:1"), _received(s, "q:2"), _received(s, "q:3")
        for m in (bad, empty):
            queue.quarantine(session=s, message=m, reason="pipeline: LLMError: boom")
        empty.redacted_text = None
        s.add(empty)
        s.commit()
        done, refused = retries.requeue_quarantined(session=s, actor="cli:ana")
        assert done == [bad.id] and list(refused) == [empty.id]
        s.refresh(bad)
        assert bad.state == states.RECEIVED and bad.reason is None
        with pytest.raises(ReviewError):
            retries.requeue(session=s, message=good, actor="cli:ana")
