"""Loop step 2: draft every stored message that waits for a draft, running the steps of `bot.loop.steps` within a time budget."""

from __future__ import annotations

import logging
import socket
import threading
from datetime import date
from functools import partial
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy.orm import defer
from sqlmodel import Session

from bot.learning import conversations
from bot.learning.answer_memory import Reuse, after_draft, find_reuse
from bot.learning.gate_training import CachedQueries
from bot.learning.readiness_calibration import rule_in_use
from bot.loop import answering, retrying, routing, steps
from bot.email.intake import needs_processing, process_stored
from bot.wiring.logs import message_context
from bot.wiring.metrics import count_gate, count_message
from bot.loop.run_report import RunReport
from bot.wiring.services import Services
from classifiers.gate import GateDecision
from pipeline.conversation import Turn
from pipeline.errors import PipelineError, is_transient
from pipeline.anonymization import fill_slots
from pipeline.generation import Answer
from pipeline.llm import prices_for
from pipeline.question import focus_question
from review import queue, states
from review.answer_memory import student_first_name
from review.db import session_scope
from review.models import InboundMessage

log = logging.getLogger(__name__)
WORKER_ID = f"{socket.gethostname()}"
T = TypeVar("T")
BIG_TEXTS_DEFERRED = [defer(InboundMessage.raw), defer(InboundMessage.body_text), defer(InboundMessage.cleaned_text)]  # type: ignore[arg-type]


def draft_for(services: Services, question: str, *, history: Sequence[Turn] = (), memory: bool = True) -> tuple[Answer, GateDecision | None]:
    """The draft of one question (a follow-up with its earlier turns): focus → gate → reuse an approved answer → answer.

    `memory=False` leaves the approved answers out (measuring the drafter against what staff sent)."""
    llm = services.llm
    asked = steps.ask(question, history, standalone=partial(conversations.standalone, llm), model=llm.model if llm else None)
    return _answer(services, asked, memory=memory)


def _answer(services: Services, question: steps.Question, *, memory: bool = True, student: str | None = None,
            today: date | None = None) -> tuple[Answer, GateDecision | None]:
    """Steps 3–5 for a focused question: the gate, the approved-answer memory, then retrieval and generation.

    A reused approved answer's {nombre} slot is filled with `student` (the first name of who asked) or greets neutrally.

    A message the gate judges in domain but without information in the documents is still drafted from them: the
    generator says NoInfo when nothing answers it, and the card shows the gate's doubt and its reasons."""
    gate = services.gate_or_none() if services.settings.gate.enabled else None
    verdict = steps.gate(question, gate=gate, embedder=CachedQueries(services, strict=False) if gate is not None else services.embedder)
    if verdict.out_of_domain:
        drafted, parts = steps.out_of_domain_reply(services.settings.llm.language), [question.query]
    else:
        reuse = steps.reuse_approved(question, find=partial(find_reuse, services)) if memory else Reuse()
        if reuse.answer is not None:
            drafted, parts = reuse.answer, [question.query]
            drafted.text = fill_slots(drafted.text, student)
        else:
            price = lambda usage, model: usage.cost(prices_for(services.settings.llm, model))  # noqa: E731
            drafted, parts = steps.answer(question, reuse, answerer=partial(answering.answer, services, today=today), price=price)
            steps.calibrated_readiness(drafted, rule=rule_in_use(services, "readiness"), lang=services.settings.llm.language)
    drafted.context = steps.context(question, parts)
    return drafted, verdict.decision


class OverBudget(Exception):
    """Drafting one message took longer than its time budget."""

    transient = True  # a slow model or service: the message waits and is retried (pipeline.errors.is_transient)


def within_budget(fn: Callable[[], T], seconds: float, *, name: str = "orienta-draft") -> T:
    """`fn()` in a helper thread; OverBudget when it has not finished after `seconds` (the thread is abandoned, not killed)."""
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as exc:  # handed to the caller below
            result["error"] = exc

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise OverBudget(f"drafting took longer than its budget of {seconds:g} s")
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    return result["value"]  # type: ignore[return-value]


def draft_message(services: Services, session: Session, message: InboundMessage) -> None:
    """Draft one stored message, step by step (`bot.loop.steps`), within its time budget; a deterministic failure
    quarantines it with the reason, a transient one (pipeline.errors.is_transient) is raised for the caller to retry."""
    budget = services.settings.drafting
    thread = steps.link_conversation(session, message)
    if thread.closing:
        return
    services = routing.route(services, session, message, focus_question(message.redacted_text or "", budget.question_max_chars))
    if services is None:  # campus mode: its office does not exist (quarantined with the reason); else the office whose business it is drafts it
        return
    llm = services.llm
    rewrite = partial(conversations.standalone, llm)
    student = student_first_name(message)  # read here, in the session's thread, not in the drafting thread

    def draft() -> tuple[Answer, GateDecision | None]:
        question = steps.focus(message, thread, max_chars=budget.question_max_chars, standalone=rewrite, model=llm.model if llm else None)
        return _answer(services, question, student=student,
                       today=message.received_at.date() if message.received_at else None)  # dates measured from the message's Date header

    try:
        drafted, decision = within_budget(draft, budget.time_budget_s, name=f"orienta-draft-{message.id}")
    except OverBudget as exc:
        if services.llm is not None:  # a slow model: the message waits and is retried (bot/loop/retrying.py)
            raise
        log.error("message %s: %s; quarantined, the worker moves on", message.id, exc)
        queue.quarantine(session=session, message=message, reason=f"time_budget: {exc}")
        return
    except PipelineError as exc:
        if is_transient(exc):  # a service down: the message waits and is retried (bot/loop/retrying.py)
            raise
        queue.quarantine(session=session, message=message, reason=f"pipeline: {type(exc).__name__}: {exc}")
        return
    verdict = steps.Verdict(decision)
    drafted.context = (drafted.context or {}) | routing.card_context(session, services, message)
    count_gate(verdict.in_domain)
    steps.queue_draft(session, message, drafted, verdict, flags=steps.flag_links(drafted))
    after_draft(session, drafted)


def draft_pending(services: Services, report: RunReport, *, limit: int = 1000, due_only: bool = True) -> None:
    """Draft every stored message that is waiting for one (`due_only=False`: also those whose next retry is not due yet)."""
    with session_scope(services.engine) as session:
        pending = queue.claim_for_drafting(session=session, worker=WORKER_ID, limit=limit, due_only=due_only)
        ids = [m.id for m in pending]
    for mid in ids:
        with message_context(mid):
            try:
                _draft_one(services, report, mid)
            except Exception as exc:  # the database failed while recording: the message stays waiting, the others go on
                if not is_transient(exc):
                    raise
                log.error("message %s: %s; left waiting", mid, exc)
                report.errors.append(f"message {mid}: {type(exc).__name__}: {exc}")


def _draft_one(services: Services, report: RunReport, mid: int) -> None:
    """Draft one claimed message; a transient failure leaves it waiting, a deterministic one quarantines it with the reason."""
    outcome: tuple[str, str] | None = None
    with session_scope(services.engine) as session:
        message = session.get(InboundMessage, mid, options=BIG_TEXTS_DEFERRED)  # a 10 MB mail is not read again to draft it
        if message is None or message.state not in (states.RECEIVED, states.CLASSIFIED):
            return
        try:
            if needs_processing(message):  # intake was interrupted after the raw commit: finish it first
                from bot.loop.intake import email_options

                process_stored(session, message, **email_options(services.settings))
                if message.state != states.RECEIVED:
                    report.skipped += message.state == states.SKIPPED
                    report.quarantined += message.state == states.QUARANTINED
                    return
            drafter, offline = retrying.drafter_for(services, message)  # the offline fallback once it waited long enough
            draft_message(drafter, session, message)
            retrying.after_draft(session, message, offline=offline, report=report, lang=services.settings.llm.language)  # counts the state it reached
            outcome = (message.channel, message.state)
        except Exception as exc:  # the edge: transient -> waits and is retried; deterministic -> quarantined
            log.exception("drafting message %s failed", mid)
            outcome = retrying.after_failure(services, session, mid, exc, report)
    if outcome is not None:  # counted once the transaction committed
        count_message(outcome[0], outcome[1])
