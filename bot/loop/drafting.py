"""Loop step 2: draft every stored message that waits for a draft, running the steps of `bot.loop.steps` within a time budget."""

from __future__ import annotations

import logging
import socket
import threading
from functools import partial
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy.orm import defer
from sqlmodel import Session

from bot.learning import conversations
from bot.learning.answer_memory import Reuse, after_draft, find_reuse
from bot.loop import answering, steps
from bot.email.intake import needs_processing, process_stored
from bot.wiring.logs import message_context
from bot.wiring.metrics import count_gate, count_message
from bot.loop.run_report import RunReport
from bot.wiring.services import Services
from classifiers.gate import GateDecision
from pipeline.conversation import Turn
from pipeline.errors import PipelineError
from pipeline.generation import Answer
from pipeline.llm import prices_for
from review import queue, states
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


def _answer(services: Services, question: steps.Question, *, memory: bool = True) -> tuple[Answer, GateDecision | None]:
    """Steps 3–5 for a focused question: the gate, the approved-answer memory, then retrieval and generation.

    A message the gate judges in domain but without information in the documents is still drafted from them: the
    generator says NoInfo when nothing answers it, and the card shows the gate's doubt and its reasons."""
    gate = services.gate_or_none() if services.settings.gate.enabled else None
    verdict = steps.gate(question, gate=gate, embedder=services.embedder)
    if verdict.out_of_domain:
        drafted, parts = steps.out_of_domain_reply(services.settings.llm.language), [question.query]
    else:
        reuse = steps.reuse_approved(question, find=partial(find_reuse, services)) if memory else Reuse()
        if reuse.answer is not None:
            drafted, parts = reuse.answer, [question.query]
        else:
            price = lambda usage, model: usage.cost(prices_for(services.settings.llm, model))  # noqa: E731
            drafted, parts = steps.answer(question, reuse, answerer=partial(answering.answer, services), price=price)
    drafted.context = steps.context(question, parts)
    return drafted, verdict.decision


class OverBudget(Exception):
    """Drafting one message took longer than its time budget."""


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
    """Draft one stored message, step by step (`bot.loop.steps`), within its time budget; failures quarantine it with the reason."""
    budget = services.settings.drafting
    thread = steps.link_conversation(session, message)
    if thread.closing:
        return
    llm = services.llm
    rewrite = partial(conversations.standalone, llm)

    def draft() -> tuple[Answer, GateDecision | None]:
        question = steps.focus(message, thread, max_chars=budget.question_max_chars, standalone=rewrite, model=llm.model if llm else None)
        return _answer(services, question)

    try:
        drafted, decision = within_budget(draft, budget.time_budget_s, name=f"orienta-draft-{message.id}")
    except OverBudget as exc:
        log.error("message %s: %s; quarantined, the worker moves on", message.id, exc)
        queue.quarantine(session=session, message=message, reason=f"time_budget: {exc}")
        return
    except PipelineError as exc:
        queue.quarantine(session=session, message=message, reason=f"pipeline: {type(exc).__name__}: {exc}")
        return
    verdict = steps.Verdict(decision)
    count_gate(verdict.in_domain)
    steps.queue_draft(session, message, drafted, verdict, flags=steps.flag_links(drafted))
    after_draft(session, drafted)


def draft_pending(services: Services, report: RunReport, *, limit: int = 1000) -> None:
    """Draft every stored message that is waiting for one."""
    with session_scope(services.engine) as session:
        pending = queue.claim_for_drafting(session=session, worker=WORKER_ID, limit=limit)
        ids = [m.id for m in pending]
    for mid in ids:
        with message_context(mid):
            _draft_one(services, report, mid)


def _draft_one(services: Services, report: RunReport, mid: int) -> None:
    """Draft one claimed message; a failure quarantines it with the reason."""
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
            draft_message(services, session, message)
            report.drafted += message.state != states.ACKNOWLEDGED
            report.acknowledged += message.state == states.ACKNOWLEDGED
            outcome = (message.channel, message.state)
        except Exception as exc:  # the edge: one bad message must not stop the worker
            log.exception("drafting message %s failed", mid)
            session.rollback()
            message = session.get(InboundMessage, mid)
            if message is not None and message.state in (states.RECEIVED, states.CLASSIFIED):
                queue.quarantine(session=session, message=message, reason=f"internal error while drafting: {type(exc).__name__}: {exc}")
                report.quarantined += 1
                outcome = (message.channel, states.QUARANTINED)
            report.errors.append(f"message {mid}: {exc}")
    if outcome is not None:  # counted once the transaction committed
        count_message(outcome[0], outcome[1])
