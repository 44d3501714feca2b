"""A synthetic week of messages and staff decisions whose digest figures are worked out by hand in test_digest.py."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlmodel import Session

from review import queue
from review.evaluation_models import CORRECTNESS, NOT_SCORED, SCORED, JudgeScore
from review.models import Decision, Draft, DraftCreate, InboundMessage, InboundMessageCreate

WEEK = "2026-W47"  # Monday 2026-11-16 .. Sunday 2026-11-22
MON = datetime(2026, 11, 16, tzinfo=timezone.utc)
DOCS = {"inscripciones": "Inscripciones", "becas": "Becas", "titulos": "Títulos"}
REF = {"inscripciones": {"doc_id": "inscripciones", "title": "Inscripciones", "url": None}, "becas": {"doc_id": "becas", "title": "Becas", "url": None}}
GAP_A = "¿Hay becas de posgrado para estudiar en el exterior?"
GAP_B = "¿Existen becas de posgrado en el exterior para egresados?"


def _message(session: Session, n: int, *, channel: str = "email", question: str = "¿Cuándo cierran las inscripciones?", at: datetime) -> InboundMessage:
    msg, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel=channel, source_key=f"test:{n}", sender="estudiante@example.edu"))
    msg.cleaned_text = msg.redacted_text = question
    msg.created_at = at
    session.add(msg)
    session.flush()
    return msg


def _draft(session: Session, msg: InboundMessage, text: str, *, at: datetime, in_domain: bool = True, refs=(), no_info: bool = False, cost: float = 0.0, latency: float = 100.0, usage: dict | None = None) -> Draft:
    queue.record_classification(session=session, message=msg, in_domain=in_domain, score=0.9 if in_domain else 0.1)
    draft = queue.create_draft(
        session=session,
        message=msg,
        data=DraftCreate(message_id=msg.id, text=text, method="rag", model="claude-test", no_info=no_info, out_of_domain=not in_domain, references=list(refs), cost_usd=cost, latency_ms=latency, usage=usage or {}),
    )
    draft.created_at = at
    session.add(draft)
    return draft


def _decided(session: Session, decision: Decision, at: datetime) -> None:
    decision.created_at = at
    session.add(decision)


def _send(session: Session, msg: InboundMessage) -> None:
    reply = next(r for r in queue.pending_replies(session=session) if r.message_id == msg.id)
    queue.mark_sent(session=session, reply=reply, our_message_id=f"<sent-{msg.id}@test>")


def build_week(session: Session) -> dict[str, Draft]:
    """Ten messages in WEEK (plus one the week before); returns the drafts by name."""
    t = MON + timedelta(hours=10)
    d: dict[str, Draft] = {}
    # 1. approved unchanged and sent: 30 min to review
    m = _message(session, 1, at=t)
    d["approved"] = _draft(session, m, "Las inscripciones cierran el 10 de marzo.", at=t, refs=[REF["inscripciones"]], cost=0.01, latency=100,
                          usage={"input_tokens": 100, "output_tokens": 50, "cache_write_tokens": 900, "cache_read_tokens": 0, "calls": 1})
    _decided(session, queue.approve(session=session, draft_id=d["approved"].id, actor="ana"), t + timedelta(minutes=30))
    _send(session, m)
    # 2. small edit (1 character of 35) and sent: 60 min
    m = _message(session, 2, at=t)
    d["small"] = _draft(session, m, "Inscripciones hasta el 10 de marzo.", at=t, refs=[REF["inscripciones"]], cost=0.02, latency=200,
                       usage={"input_tokens": 100, "output_tokens": 50, "cache_write_tokens": 0, "cache_read_tokens": 900, "calls": 1})
    _decided(session, queue.edit(session=session, draft_id=d["small"].id, actor="ana", text="Inscripciones hasta el 12 de marzo."), t + timedelta(minutes=60))
    _send(session, m)
    # 3. large edit (no character in common) and sent, over Slack: 90 min
    m = _message(session, 3, channel="slack", at=t)
    d["large"] = _draft(session, m, "ZZZ", at=t, refs=[REF["becas"]], latency=300)
    _decided(session, queue.edit(session=session, draft_id=d["large"].id, actor="bruno", text="Debe presentar el formulario en ventanilla."), t + timedelta(minutes=90))
    _send(session, m)
    # 4. rejected as incorrect (with a comment): 120 min
    m = _message(session, 4, at=t)
    d["incorrect"] = _draft(session, m, "El título se retira en el rectorado.", at=t, latency=400)
    _decided(session, queue.reject(session=session, draft_id=d["incorrect"].id, actor="bruno", reason="incorrect", comment="Se retira en bedelía."), t + timedelta(minutes=120))
    # 5. no information, rejected as missing information: 10 min
    m = _message(session, 5, question=GAP_A, at=t)
    d["missing"] = _draft(session, m, "No tengo información.", at=t, no_info=True, latency=500)
    _decided(session, queue.reject(session=session, draft_id=d["missing"].id, actor="ana", reason="missing_info"), t + timedelta(minutes=10))
    # 6. the gate let it through; staff rejected it as out of domain: 20 min
    m = _message(session, 6, channel="slack", question="¿Dónde queda la pizzería?", at=t)
    d["gate_missed"] = _draft(session, m, "Según la documentación...", at=t, latency=600)
    _decided(session, queue.reject(session=session, draft_id=d["gate_missed"].id, actor="ana", reason="out_of_domain"), t + timedelta(minutes=20))
    # 7. skipped, 8. quarantined
    m = _message(session, 7, at=t)
    queue.skip(session=session, message=m, reason="auto-reply")
    m = _message(session, 8, at=t)
    queue.quarantine(session=session, message=m, reason="malformed: no body")
    # 9. out of domain (canned draft) and 10. no information, both still pending at the end of the week
    m = _message(session, 9, question="¿Quién ganó el partido?", at=MON + timedelta(days=1, hours=9))
    d["ood_pending"] = _draft(session, m, "Este canal atiende consultas de la Facultad.", at=MON + timedelta(days=1, hours=9), in_domain=False, latency=700)
    d["ood_pending"].method = "canned"
    m = _message(session, 10, channel="slack", question=GAP_B, at=MON + timedelta(days=2, hours=9))
    d["gap_pending"] = _draft(session, m, "No tengo información.", at=MON + timedelta(days=2, hours=9), no_info=True, latency=800)
    # a message of the week before, which must not count
    m = _message(session, 11, at=MON - timedelta(hours=1))
    _draft(session, m, "fuera de la semana", at=MON - timedelta(hours=1))
    # judge scores: 5, 3, 4, 2 for unchanged, small edit, large edit, incorrect; one output never parsed
    for key, score in (("approved", 5), ("small", 3), ("large", 4), ("incorrect", 2)):
        session.add(JudgeScore(draft_id=d[key].id, kind=CORRECTNESS, status=SCORED, score=score, runs=[score], spread=0, model="claude-judge", cost_usd=0.001))
    session.add(JudgeScore(draft_id=d["gate_missed"].id, kind=CORRECTNESS, status=NOT_SCORED, error="unparseable", model="claude-judge", cost_usd=0.001))
    session.flush()
    return d
