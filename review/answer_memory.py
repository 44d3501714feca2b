"""The approved-answer memory: every approved or edited reply kept as a curated answer, tied to the document versions it cites."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import default as default_policy
from email.utils import parseaddr
from urllib.parse import urlsplit

from sqlmodel import Session, col, func, select

from pipeline.anonymization import anonymize, fill_slots, first_name, names_in
from review.answer_models import ACTIVE, ANSWER_STATES, RETIRED, STALE, CuratedAnswer
from review.errors import NotFound, ReviewError
from review.models import AuditEvent, Decision, Draft, InboundMessage, utcnow

CURATED_METHOD = "curated"  # Draft.method of drafts made from a curated answer
SUGGESTION_FLAG = "curated_suggestion"  # Draft.flags kind: a close approved answer offered to the reviewer {answer_id, question, approved_at, similarity}
CURATED_FLAG = "curated_answer"  # Draft.flags kind carrying {answer_id, approved_at, similarity, lexical}
MAX_ALIASES = 20


def student_address(message: InboundMessage | None) -> str | None:
    """Who the message came from, display name included when the e-mail's From header has one (a reply greets that name)."""
    if message is None:
        return None
    if message.raw:
        try:
            return str(BytesHeaderParser(policy=default_policy).parsebytes(message.raw).get("From") or "") or message.sender
        except Exception:  # noqa: BLE001  (a broken header: fall back to the stored address)
            return message.sender
    return message.sender


def student_names(message: InboundMessage | None) -> list[str]:
    """Every name the student goes by in their message: the From display name, the Slack profile (real and display
    name), and who introduces or signs the text."""
    if message is None:
        return []
    names = [parseaddr(student_address(message) or "")[0]] if message.channel == "email" else []
    if message.channel == "slack" and message.raw:
        try:
            event = json.loads(message.raw.decode("utf-8")).get("event") or {}
        except (ValueError, UnicodeDecodeError, AttributeError):
            event = {}
        profile = event.get("user_profile") or {}
        names += [str(profile.get(k) or "") for k in ("real_name", "display_name", "first_name", "last_name", "name")]
    names += names_in(message.body_text or message.cleaned_text or "")
    return [n for n in names if n and n.strip()]


def student_first_name(message: InboundMessage | None) -> str | None:
    """The first name a reply greets this student by: the Slack profile's, or the e-mail From display name's (None: greet neutrally)."""
    if message is None:
        return None
    if message.channel == "slack" and message.raw:
        try:
            profile = (json.loads(message.raw.decode("utf-8")).get("event") or {}).get("user_profile") or {}
        except (ValueError, UnicodeDecodeError, AttributeError):
            profile = {}
        return first_name(str(profile.get(k) or "") for k in ("first_name", "real_name", "display_name"))
    if message.channel == "email":
        return first_name([parseaddr(student_address(message) or "")[0]])
    return None


def for_student(text: str, message: InboundMessage | None) -> str:
    """A curated answer's text for the student of `message`: its {nombre} slot filled with their first name (or a
    neutral greeting). Only the reply holds the name; the curated text keeps the slot."""
    return fill_slots(text, student_first_name(message))


MIN_WORDS = 4  # an answer that had personal data taken out and is left shorter than this is not kept


def reusable(text: str, *, message: InboundMessage, keep: str = "", question: bool = False, extra_names: list[str] | None = None):
    """The text without anything personal of the student it was written for (pipeline.anonymization); an answer's
    greeting of the student becomes a {nombre} slot, filled for the next student (`for_student`)."""
    return anonymize(text, names=[*student_names(message), *(extra_names or [])], keep=keep, question=question, slot=not question)


def source_answer_id(draft: Draft) -> int | None:
    """The curated answer a draft was made from (None for other drafts)."""
    flag = next((f for f in draft.flags or [] if f.get("kind") == CURATED_FLAG), None)
    return int(flag["answer_id"]) if flag and flag.get("answer_id") is not None else None


def _suggestion_sent(session: Session, draft: Draft, text: str, message: InboundMessage | None = None) -> int | None:
    """The suggested approved answer whose text was sent unchanged (filled for this student), if any."""
    for flag in suggestions_of(draft):
        found = session.get(CuratedAnswer, int(flag["answer_id"]))
        if found is not None and text.strip() in (found.text.strip(), for_student(found.text, message).strip()):
            return found.id
    return None


def _asked(message: InboundMessage, draft: Draft) -> str:
    """The question an answer is kept for: a follow-up's standalone query when it had one ("¿y para Sistemas?" alone
    would match nothing), else the message's redacted text."""
    return str((draft.context or {}).get("query") or message.redacted_text or "").strip()


def _office_text(draft: Draft) -> str:
    """What the office wrote from its documents for this draft (addresses and phones there are its own), flagged links left out."""
    text = draft.text or ""
    for flag in draft.flags or []:
        if flag.get("kind") == "foreign_link" and flag.get("link"):
            text = text.replace(str(flag["link"]), " ")
    return text


def office_hosts(draft: Draft) -> set[str]:
    """The hosts of the documents a draft cites: addresses there are the office's own, kept in curated answers."""
    return {urlsplit(r["url"]).hostname or "" for r in draft.references or [] if r.get("url")} - {""}


def suggestions_of(draft: Draft) -> list[dict]:
    """The close approved answers offered to the reviewer with a draft (its suggestion flags)."""
    return [f for f in draft.flags or [] if f.get("kind") == SUGGESTION_FLAG and f.get("answer_id") is not None]


def _references(draft: Draft) -> list[dict]:
    return [{k: r.get(k) for k in ("doc_id", "title", "url", "content_hash")} for r in draft.references or [] if r.get("doc_id")]


def remember_decision(*, session: Session, decision: Decision, draft: Draft, message: InboundMessage) -> CuratedAnswer | None:
    """Keep an approved or edited reply as a curated answer (None when there is nothing to learn from it).

    Not kept: canned out-of-domain replies, NoInfo drafts approved unchanged, and a reused answer approved unchanged
    (that one counts as a confirmation of its source instead).
    """
    if decision.action not in ("approve", "edit") or draft.out_of_domain:
        return None
    greeted = names_in(decision.final_text or draft.text or "")  # whom staff greeted: the student, whatever the channel told us
    question = reusable(_asked(message, draft), message=message, question=True, extra_names=greeted).text  # matched for other students: nothing personal
    if not question:
        return None
    edited = decision.action == "edit" and bool(decision.final_text)
    if not edited and draft.no_info:
        return None
    source = source_answer_id(draft)
    if edited and source is None:  # sent as it was suggested ("Editar desde la respuesta #N", unchanged): that answer again
        source = _suggestion_sent(session, draft, decision.final_text or "", message)
        edited = source is None
    if source is not None and not edited:
        confirmed = session.get(CuratedAnswer, source)
        if confirmed is not None and question not in (confirmed.question, *(confirmed.aliases or [])):
            confirmed.aliases = [*(confirmed.aliases or []), question][-MAX_ALIASES:]  # staff confirmed it answers this wording too
            session.add(confirmed)
        session.add(AuditEvent(message_id=message.id, actor=decision.actor, event="curated_answer_confirmed", details={"answer_id": source, "draft_id": draft.id}))
        return None
    clean = reusable(decision.final_text if edited else draft.text, message=message, keep=_office_text(draft))  # type: ignore[arg-type]  (kept for other students)
    removed = sorted(clean.removed)
    if not clean.text or (clean.removed and len(clean.text.split()) < MIN_WORDS):  # nothing general left to reuse
        session.add(AuditEvent(message_id=message.id, actor=decision.actor, event="curated_answer_not_kept", details={"draft_id": draft.id, "removed": removed}))
        return None
    answer = CuratedAnswer(
        question=question,
        text=clean.text,
        references=_references(draft),
        message_id=message.id,
        draft_id=draft.id,
        approved_by=decision.actor,
        approved_at=decision.created_at or utcnow(),
        office=message.office,
    )
    session.add(answer)
    session.flush()
    session.add(AuditEvent(message_id=message.id, actor=decision.actor, event="curated_answer_saved", details={"answer_id": answer.id, "edited": edited, "replaces": source, "removed": removed}))
    return answer


def get_answer(*, session: Session, answer_id: int) -> CuratedAnswer:
    answer = session.get(CuratedAnswer, answer_id)
    if answer is None:
        raise NotFound(f"no curated answer #{answer_id}")
    return answer


def _of_offices(stmt, offices: Sequence[str | None] | None):
    """Campus mode: only the answers of `offices` (None in it: the default office's; `offices` None: every office)."""
    if offices is None:
        return stmt
    named = [o for o in offices if o is not None]
    where = col(CuratedAnswer.office).in_(named)
    return stmt.where(where | col(CuratedAnswer.office).is_(None) if None in offices else where)


def list_answers(*, session: Session, state: str | None = None, limit: int = 200, offices: Sequence[str | None] | None = None) -> list[CuratedAnswer]:
    """Curated answers, standard ones first, then newest first."""
    if state is not None and state not in ANSWER_STATES:
        raise ReviewError(f"unknown answer state {state!r}; choose from {', '.join(ANSWER_STATES)}")
    stmt = _of_offices(select(CuratedAnswer), offices)
    if state is not None:
        stmt = stmt.where(CuratedAnswer.state == state)
    return list(session.exec(stmt.order_by(col(CuratedAnswer.standard).desc(), col(CuratedAnswer.id).desc()).limit(limit)).all())


def active_answers(*, session: Session, offices: Sequence[str | None] | None = None) -> list[CuratedAnswer]:
    return list(session.exec(_of_offices(select(CuratedAnswer).where(CuratedAnswer.state == ACTIVE), offices).order_by(col(CuratedAnswer.id))).all())


def _set_state(session: Session, answer: CuratedAnswer, state: str, *, actor: str, reason: str | None) -> CuratedAnswer:
    previous = answer.state
    answer.state, answer.state_reason, answer.state_changed_at, answer.state_changed_by = state, reason, utcnow(), actor
    session.add(answer)
    session.add(AuditEvent(message_id=answer.message_id, actor=actor, event=f"curated_answer_{state}", from_state=previous, to_state=state, details={"answer_id": answer.id, "reason": reason}))
    session.flush()
    return answer


def retire(*, session: Session, answer_id: int, actor: str, reason: str | None = None) -> CuratedAnswer:
    """Stop reusing an answer (it stays listed, retired, with who and why)."""
    answer = get_answer(session=session, answer_id=answer_id)
    if answer.state == RETIRED:
        return answer
    return _set_state(session, answer, RETIRED, actor=actor, reason=reason or "retired by staff")


def edit_text(*, session: Session, answer_id: int, text: str, actor: str, current: Mapping[str, str | None] | None = None) -> CuratedAnswer:
    """Staff rewrite an answer's text: a new version (the old text is kept in the audit); tied to today's documents and active again when `current` is given."""
    answer = get_answer(session=session, answer_id=answer_id)
    text = text.strip()
    if not text:
        raise ReviewError("the answer text is empty")
    if text == answer.text.strip():
        return answer
    previous, version = answer.text, answer.version
    answer.text, answer.version = text, version + 1
    if current is not None:  # staff vouch for the new text as of now
        answer.references = [r | {"content_hash": current.get(r["doc_id"])} for r in answer.references or [] if r.get("doc_id") in current]
    session.add(answer)
    session.add(AuditEvent(message_id=answer.message_id, actor=actor, event="curated_answer_edited", details={"answer_id": answer.id, "version": version + 1, "previous_version": version, "previous_text": previous}))
    session.flush()
    if current is not None and answer.state == STALE:
        _set_state(session, answer, ACTIVE, actor=actor, reason="text reviewed after the documents changed")
    return answer


def set_standard(*, session: Session, answer_id: int, actor: str, standard: bool = True) -> CuratedAnswer:
    """Mark (or unmark) an answer as one of the office's standard answers; audited."""
    answer = get_answer(session=session, answer_id=answer_id)
    if answer.standard != standard:
        answer.standard = standard
        session.add(answer)
        session.add(AuditEvent(message_id=answer.message_id, actor=actor, event="curated_answer_standard" if standard else "curated_answer_unstandard", details={"answer_id": answer.id}))
        session.flush()
    return answer


def answer_history(*, session: Session, answer_id: int) -> list[AuditEvent]:
    """The audit events of one answer (edits with their earlier texts, state changes), oldest first."""
    events = session.exec(select(AuditEvent).where(col(AuditEvent.event).like("curated_answer_%")).order_by(col(AuditEvent.id))).all()
    return [e for e in events if (e.details or {}).get("answer_id") == answer_id]


def search_answers(*, session: Session, query: str = "", state: str | None = None, limit: int = 50, offset: int = 0, offices: Sequence[str | None] | None = None) -> list[CuratedAnswer]:
    """Answers whose question or text contains `query` (case-insensitive), standard first then newest."""
    if state is not None and state not in ANSWER_STATES:
        raise ReviewError(f"unknown answer state {state!r}; choose from {', '.join(ANSWER_STATES)}")
    stmt = _of_offices(select(CuratedAnswer), offices)
    if state is not None:
        stmt = stmt.where(CuratedAnswer.state == state)
    if query.strip():
        like = f"%{query.strip().lower()}%"
        stmt = stmt.where(func.lower(CuratedAnswer.question).like(like) | func.lower(CuratedAnswer.text).like(like))
    return list(session.exec(stmt.order_by(col(CuratedAnswer.standard).desc(), col(CuratedAnswer.id).desc()).offset(offset).limit(limit)).all())


def mark_stale(*, session: Session, answer: CuratedAnswer, changed: Sequence[str], actor: str = "orienta") -> CuratedAnswer:
    """A cited document changed or disappeared since the approval: the answer is no longer reused."""
    return _set_state(session, answer, STALE, actor=actor, reason="documents changed: " + ", ".join(changed))


def changed_documents(answer: CuratedAnswer, current: Mapping[str, str | None]) -> list[str]:
    """Cited documents whose content hash differs from the indexed one (`current`: doc_id -> hash of active documents)."""
    return [r["doc_id"] for r in answer.references or [] if r.get("doc_id") not in current or (r.get("content_hash") and r["content_hash"] != current[r["doc_id"]])]


def save_standard(*, session: Session, draft_id: int, actor: str, current: Mapping[str, str | None] | None = None) -> CuratedAnswer:
    """Save the reply sent for `draft_id` as a standard answer (active again, and tied to today's documents when `current` is given)."""
    draft = session.get(Draft, draft_id)
    if draft is None:
        raise NotFound(f"no draft #{draft_id}")
    decision = session.exec(select(Decision).where(Decision.draft_id == draft_id)).first()
    if decision is None or decision.action not in ("approve", "edit"):
        raise ReviewError(f"draft #{draft_id} was not approved: only a reply that was sent can become a standard answer")
    answer = session.exec(select(CuratedAnswer).where(CuratedAnswer.draft_id == draft_id).order_by(col(CuratedAnswer.id).desc())).first()
    source = source_answer_id(draft)
    if answer is None and source is not None and decision.action == "approve":
        answer = session.get(CuratedAnswer, source)
    if answer is None:
        message = session.get(InboundMessage, draft.message_id)
        assert message is not None
        clean = reusable(decision.final_text if decision.action == "edit" and decision.final_text else draft.text, message=message, keep=_office_text(draft))  # type: ignore[arg-type]
        if not clean.text or (clean.removed and len(clean.text.split()) < MIN_WORDS):
            raise ReviewError(f"draft #{draft_id}: once the student's personal data is taken out, too little is left to reuse")
        answer = CuratedAnswer(
            question=reusable(message.redacted_text or message.subject or "", message=message, question=True).text or "—",
            text=clean.text,
            references=_references(draft),
            message_id=message.id,
            draft_id=draft.id,
            approved_by=decision.actor,
            approved_at=decision.created_at,
            office=message.office,
        )
    answer.standard = True
    if current is not None:  # staff vouch for the text as of now: tie it to the documents as they are today
        answer.references = [r | {"content_hash": current.get(r["doc_id"])} for r in answer.references or [] if r.get("doc_id") in current]
    session.add(answer)
    session.flush()
    if answer.state != ACTIVE:
        _set_state(session, answer, ACTIVE, actor=actor, reason="saved as a standard answer")
    session.add(AuditEvent(message_id=answer.message_id, actor=actor, event="curated_answer_standard", details={"answer_id": answer.id, "draft_id": draft_id}))
    session.flush()
    return answer


def mark_stale_where_changed(*, session: Session, current: Mapping[str, str | None], actor: str = "orienta", offices: Sequence[str | None] | None = None) -> list[int]:
    """Flag stale every active answer (of `offices`) whose cited documents changed (`current`: doc_id -> hash of active documents)."""
    stale = []
    for answer in active_answers(session=session, offices=offices):
        changed = changed_documents(answer, current)
        if changed:
            mark_stale(session=session, answer=answer, changed=changed, actor=actor)
            stale.append(answer.id)
    return stale  # type: ignore[return-value]


def record_use(*, session: Session, answer_id: int) -> None:
    answer = session.get(CuratedAnswer, answer_id)
    if answer is not None:
        answer.uses += 1
        session.add(answer)


def questions_for_gate(*, session: Session, offices: Sequence[str | None] | None = None) -> list[str]:
    """Questions of active curated answers: staff-approved, so in domain."""
    return [q for a in active_answers(session=session, offices=offices) for q in (a.question, *(a.aliases or [])) if q.strip()]


def as_public(answer: CuratedAnswer) -> dict:
    """What `orienta answers list|show --json` prints."""
    return {
        "id": answer.id,
        "state": answer.state,
        "standard": answer.standard,
        "question": answer.question,
        "text": answer.text,
        "references": answer.references,
        "approved_by": answer.approved_by,
        "approved_at": _iso(answer.approved_at),
        "message_id": answer.message_id,
        "draft_id": answer.draft_id,
        "uses": answer.uses,
        "aliases": answer.aliases or [],
        "version": answer.version,
        "state_reason": answer.state_reason,
        "state_changed_at": _iso(answer.state_changed_at),
        "state_changed_by": answer.state_changed_by,
    }


def _iso(at: datetime | None) -> str | None:
    return at.isoformat(timespec="seconds") if at else None
