"""The demo's reviewer: a simulated staff member who decides every pending draft the way the sample office expects."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from sqlmodel import Session, col, select

from bot.demo import sample
from pipeline.text import fold
from review import queue
from review.answer_models import CuratedAnswer
from review.answer_memory import for_student, source_answer_id, suggestions_of
from review.db import session_scope
from review.models import Decision, Draft, InboundMessage

if TYPE_CHECKING:
    from bot.wiring.services import Services

REVIEWER = "demo:ana"
SIGN_OFF = "\n\nSaludos cordiales,\nOrientación Estudiantil — Facultad de Ingeniería"
REFER_TO = "Hola:\n\nLo que preguntás está explicado en {docs}. Si después de leerlo te queda alguna duda, respondé este mensaje y lo vemos."
NOT_FOR_US = "No es una consulta para la oficina."
MISSING = "Falta este tema en los documentos."
CLOSING = "Es un cierre de la conversación: no hace falta responder."


@dataclass(frozen=True)
class Verdict:
    """What the reviewer does with one draft."""

    action: str  # approve | edit | reject
    text: str | None = None
    reason: str | None = None
    comment: str | None = None


class SampleReviewer:
    """Reviews like staff who know the answers: a right draft is approved unchanged, a wrong one rewritten, the rest rejected.

    A draft is right only when it states every fact the expected answer must say (`must_say`: each fact a text or a list
    of accepted wordings) and nothing from a past period (`past_period`, e.g. last year's dates when this year's exist),
    and it cites the documents the sample expects and no other (a passage from elsewhere is struck). A draft made from an
    approved answer is judged the same way, by what it says: an answer approved for a close question that needs another
    answer lacks this one's facts and gets the reviewer's own text (`staff_answer`, else a pointer to the document). A
    repeated question (`repeat_of`) owes the facts of the first one. An expectation with no facts is never approved.
    """

    def __init__(self, key_of: Callable[[InboundMessage], str], documents: dict[str, dict], expected: dict[str, dict] | None = None):
        self.expected = sample.expectations() if expected is None else expected
        self.key_of = key_of
        self.documents = documents

    def review_pending(self, services: "Services") -> int:
        """Decide every pending draft of a sample message; returns how many were decided."""
        with session_scope(services.engine) as session:
            verdicts = [(d.id, self.verdict(session, d, m)) for d, m in queue.list_drafts(session=session, limit=10_000)]
        decided = 0
        for draft_id, verdict in verdicts:
            if verdict is not None:
                with session_scope(services.engine) as session:
                    _apply(session, draft_id, verdict)  # type: ignore[arg-type]
                decided += 1
        return decided

    def verdict(self, session: Session, draft: Draft, message: InboundMessage) -> Verdict | None:
        key = self.key_of(message)
        want = self.expected.get(key)
        if want is None:
            return None  # not a sample message: left in the queue for a person
        outcome = want.get("outcome")
        if outcome == "out_of_domain":
            return Verdict("reject", reason="out_of_domain", comment=NOT_FOR_US)
        if outcome == "acknowledged":
            return Verdict("reject", reason="incorrect", comment=CLOSING)
        if self._right(session, draft, key, want):
            return Verdict("approve")
        suggested = self._suggested_for_same_question(session, draft, key)
        if suggested is not None:  # "Editar desde la respuesta #N": the approved text, read and sent
            return Verdict("edit", text=suggested)
        answer = want.get("staff_answer") or self.expected.get(sample.intent(key, self.expected), {}).get("staff_answer")
        if answer:
            return Verdict("edit", text=answer)
        if outcome == "answerable":
            return Verdict("edit", text=self._refer_to(want))
        return Verdict("reject", reason="missing_info", comment=MISSING)

    def _right(self, session: Session, draft: Draft, key: str, want: dict) -> bool:
        """Right: it says what it must and nothing from a past period; a fresh draft cites the expected documents only."""
        if draft.out_of_domain or queue.flagged_links(draft):
            return False
        if want.get("outcome") != "answerable":
            return False  # a draft for a question the documents do not answer is not the answer
        if source_answer_id(draft) is None:  # a reused approved answer is judged by what it says, whatever it was approved for
            cited = {r.get("doc_id") for r in draft.references or []}
            docs, accepted = set(_expected_docs(want)), set(want.get("accept", []))
            if not (docs <= cited or cited & accepted):
                return False
            if cited - docs - accepted:  # a passage from another document: the reviewer strikes it before sending
                return False
        first = self.expected.get(sample.intent(key, self.expected), {})
        must = want.get("must_say") or first.get("must_say", [])
        past = want.get("past_period") or first.get("past_period", [])
        body = answer_text(draft.text)  # the facts must be in the answer, not in a document's title
        return bool(must) and all(says(body, fact) for fact in must) and not any(says(body, fact) for fact in past)

    def _suggested_for_same_question(self, session: Session, draft: Draft, key: str) -> str | None:
        """The text of a suggested approved answer that was approved for the same question, if the card offers one."""
        for flag in suggestions_of(draft):
            if self._intent_of_answer(session, int(flag["answer_id"])) == sample.intent(key, self.expected):
                answer = session.get(CuratedAnswer, int(flag["answer_id"]))
                return for_student(answer.text, session.get(InboundMessage, draft.message_id)) if answer is not None else None
        return None

    def _intent_of_answer(self, session: Session, answer_id: int) -> str | None:
        answer = session.get(CuratedAnswer, answer_id)
        origin = session.get(InboundMessage, answer.message_id) if answer and answer.message_id else None
        return sample.intent(self.key_of(origin), self.expected) if origin else None

    def _refer_to(self, want: dict) -> str:
        """The reviewer's short answer when there is no better one: where the answer is."""
        docs = [self.documents.get(d, {}) | {"id": d} for d in _expected_docs(want)]
        named = " y ".join(f"«{d.get('title') or d['id']}»" + (f" ({d['url']})" if d.get("url") else "") for d in docs)
        return REFER_TO.format(docs=named) + SIGN_OFF


_REFERENCES = re.compile(r"^Referencias:\n(?:[-•] .*(?:\n|$))*", re.MULTILINE)


def answer_text(text: str) -> str:
    """A draft without its reference lists (a reply to several questions has one after each answer)."""
    return _REFERENCES.sub("", text)


def _plain(text: str) -> str:
    """Lower case, no accents, one space between words, '80%' written '80 %': how facts are compared."""
    text = re.sub(r"(\d)\s*%", r"\1 %", fold(text).replace("\u00a0", " "))
    return re.sub(r"\s+", " ", text)


def says(text: str, fact: str | list[str]) -> bool:
    """True when `text` states `fact` (a wording, or a list of accepted wordings), as whole words."""
    wordings = [fact] if isinstance(fact, str) else fact
    plain = _plain(text)
    return any(re.search(rf"(?<!\w){re.escape(_plain(w))}", plain) for w in wordings)


def _expected_docs(want: dict) -> list[str]:
    return list(want.get("docs") or ([want["doc"]] if want.get("doc") else []))


def _apply(session: Session, draft_id: int, verdict: Verdict) -> None:
    if verdict.action == "approve":
        queue.approve(session=session, draft_id=draft_id, actor=REVIEWER)
    elif verdict.action == "edit":
        queue.edit(session=session, draft_id=draft_id, actor=REVIEWER, text=verdict.text or "")
    else:
        queue.reject(session=session, draft_id=draft_id, actor=REVIEWER, reason=verdict.reason or "incorrect", comment=verdict.comment)


@dataclass
class WeekWork:
    """The reviewer's work on the messages of one demo week."""

    week: int
    messages: int = 0
    drafts: int = 0
    reused: int = 0  # drafts made from approved answers
    approved: int = 0  # approved unchanged
    reused_approved: int = 0  # of them, drafts made from approved answers
    edited: int = 0
    from_suggestion: int = 0  # of them, started from a suggested approved answer and sent as it was
    written: int = 0  # of them, the reviewer wrote the reply
    rejected: int = 0
    pending: int = 0

    @property
    def edits_per_draft(self) -> float:
        return self.edited / self.drafts if self.drafts else 0.0

    @property
    def edits_per_message(self) -> float:
        return self.edited / self.messages if self.messages else 0.0

    def as_dict(self) -> dict:
        return asdict(self) | {"edits_per_draft": round(self.edits_per_draft, 3), "edits_per_message": round(self.edits_per_message, 3)}


def count_week(session: Session, *, week: int, first_id: int, last_id: int) -> WeekWork:
    """What happened to the drafts of the messages stored with ids first_id..last_id."""
    in_week = (col(InboundMessage.id) >= first_id, col(InboundMessage.id) <= last_id)
    work = WeekWork(week=week, messages=len(session.exec(select(InboundMessage.id).where(*in_week)).all()))
    drafts: dict[int, Draft] = {}
    for d in session.exec(select(Draft).join(InboundMessage, col(InboundMessage.id) == Draft.message_id).where(*in_week).order_by(col(Draft.id))).all():
        drafts[d.message_id] = d  # the latest draft of each message
    decisions = {d.message_id: d for d in session.exec(select(Decision).join(InboundMessage, col(InboundMessage.id) == Decision.message_id).where(*in_week)).all()}
    actions = {mid: d.action for mid, d in decisions.items()}
    for message_id, draft in drafts.items():
        reused = source_answer_id(draft) is not None
        action = actions.get(message_id)
        work.drafts += 1
        work.reused += reused
        work.approved += action == "approve"
        work.reused_approved += reused and action == "approve"
        work.edited += action == "edit"
        if action == "edit":
            suggested = {for_student(a.text, session.get(InboundMessage, message_id)).strip() for f in suggestions_of(draft) if (a := session.get(CuratedAnswer, int(f["answer_id"]))) is not None}
            used = (decisions[message_id].final_text or "").strip() in suggested
            work.from_suggestion += used
            work.written += not used
        work.rejected += action == "reject"
        work.pending += action is None
    return work
