"""Loop step 2: gate and draft every stored message that waits for a draft."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy.orm import defer
from sqlmodel import Session

from bot.loop import answering, routing
from bot.learning import conversations
from bot.learning.answer_memory import Reuse, after_draft, find_reuse
from bot.email.intake import needs_processing, process_stored
from bot.ops.logs import message_context
from bot.ops.metrics import count_gate, count_message
from bot.loop.run_report import RunReport
from bot.services import Services
from classifiers.gate import GateDecision
from pipeline.conversation import Turn
from pipeline.errors import PipelineError
from pipeline.generation import Answer
from pipeline.links import foreign_links
from pipeline.question import focus_question
from pipeline.texts import t
from review import queue, states
from review.db import session_scope
from review.models import DraftCreate, InboundMessage
from review.queue import FOREIGN_LINK

log = logging.getLogger(__name__)
WORKER_ID = f"{socket.gethostname()}"
T = TypeVar("T")
BIG_TEXTS_DEFERRED = [defer(InboundMessage.raw), defer(InboundMessage.body_text), defer(InboundMessage.cleaned_text)]  # type: ignore[arg-type]


def draft_for(services: Services, question: str, *, history: Sequence[Turn] = ()) -> tuple[Answer, GateDecision | None]:
    """Gate the question (a follow-up made standalone with its earlier turns), then retrieve and generate (or the canned out-of-domain reply).

    A message the gate judges in domain but without information in the documents is still drafted from them: the
    generator says NoInfo when nothing answers it, and the card shows the gate's doubt and its reasons."""
    query, rewrite_usage = conversations.standalone(services, question, list(history))
    gate = services.gate_or_none() if services.settings.gate.enabled else None
    decision = gate.decide(query, services.embedder) if gate is not None else None
    if decision is not None and not decision.in_domain:
        lang = services.settings.llm.language
        from pipeline.generation import format_reply

        canned = Answer(text=format_reply(t("out_of_domain", lang), [], lang), method="canned", model="canned")
        canned.context = _context(question, query, [query], history)
        return canned, decision
    # A follow-up is not answered from memory: its standalone query echoes the earlier question, whose approved answer
    # the student already has.
    reuse = Reuse() if history else find_reuse(services, query)
    if reuse.answer is not None:
        reuse.answer.context = _context(question, query, [query], history)
        return reuse.answer, decision
    answer, parts = answering.answer(services, query, history=history, asked=question)
    answer.extra_flags += reuse.suggestions
    from pipeline.llm import prices_for

    for usage, model in ((rewrite_usage, services.llm.model if services.llm else None), (reuse.usage, reuse.model)):
        if usage is not None and model:  # the follow-up rewrite and the reuse checks are part of this draft's cost
            answer.usage = answer.usage + usage
            answer.cost_usd += usage.cost(prices_for(services.settings.llm, model))
    answer.context = _context(question, query, parts, history)
    return answer, decision


def _context(question: str, query: str, parts: list[str], history: Sequence[Turn]) -> dict:
    """What the draft was made from, for the reviewer: earlier turns, the standalone query, the question parts."""
    context = {"turns": [t.as_dict() for t in history], "query": query if query != question else None, "parts": parts if len(parts) > 1 else None}
    return {k: v for k, v in context.items() if v}


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


def link_flags(answer: Answer) -> list[dict]:
    """A flag for every URL or e-mail address of the draft that the retrieved documents do not contain."""
    sources = "\n".join(f"{h.chunk.url or ''}\n{h.chunk.text}" for h in answer.hits)
    return [{"kind": FOREIGN_LINK, "link": link, "flag": f"enlace que no está en los documentos: {link}"} for link in foreign_links(answer.text, sources)]


def draft_message(services: Services, session: Session, message: InboundMessage) -> None:
    """Gate and draft one stored message (its bounded question, within the time budget); failures quarantine it with the reason."""
    budget = services.settings.drafting
    conversations.link(session, message)
    if conversations.acknowledge_if_closing(session, message):
        return
    history = conversations.history(session, message)
    question = focus_question(message.redacted_text or "", budget.question_max_chars)
    services = routing.route(services, session, message, question)  # campus mode: the office whose business it is drafts it
    if services is None:  # its office does not exist: quarantined with the reason
        return
    try:
        answer, decision = within_budget(lambda: draft_for(services, question, history=history), budget.time_budget_s, name=f"orienta-draft-{message.id}")
    except OverBudget as exc:
        log.error("message %s: %s; quarantined, the worker moves on", message.id, exc)
        queue.quarantine(session=session, message=message, reason=f"time_budget: {exc}")
        return
    except PipelineError as exc:
        queue.quarantine(session=session, message=message, reason=f"pipeline: {type(exc).__name__}: {exc}")
        return
    in_domain, score = (decision.in_domain, decision.score) if decision is not None else (None, None)
    count_gate(in_domain)
    if message.state == states.RECEIVED:
        queue.record_classification(session=session, message=message, in_domain=in_domain, score=score)
    queue.create_draft(
        session=session,
        message=message,
        data=DraftCreate(
            message_id=message.id,  # type: ignore[arg-type]
            text=answer.text,
            method=answer.method,
            model=answer.model,
            no_info=answer.no_info,
            out_of_domain=in_domain is False,
            fallback=answer.fallback,
            references=[r.as_dict() for r in answer.references],
            derivation=[s.as_dict() for s in answer.derivation],
            flags=answer.flags + link_flags(answer),
            chunks=answer.as_dict()["chunks"],
            prompt_hash=answer.prompt_hash,
            usage=answer.usage.as_dict(),
            cost_usd=answer.cost_usd,
            latency_ms=answer.latency_ms,
            gate_score=score,
            gate_in_domain=in_domain,
            context=answer.context | routing.card_context(session, services, message),
            gate_outcome=decision.outcome if decision is not None else None,
            gate_reasons=decision.reasons if decision is not None else [],
        ),
    )
    after_draft(session, answer)


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
