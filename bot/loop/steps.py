"""The drafting steps, in the order a message goes through them.

link the conversation → (campus mode: route to the office whose business it is, `bot.loop.routing`) → focus the
question → gate → reuse an approved answer → answer → queue → flag links

Each step takes a small typed value and returns one, and is handed only what it needs (a session, the gate and the
embedder, a function that finds an approved answer, a function that answers); `bot.loop.drafting` runs them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlmodel import Session

from bot.learning import conversations
from bot.learning.answer_memory import Reuse
from classifiers.gate import GateDecision
from pipeline.conversation import Turn
from pipeline.embeddings import Embedder
from pipeline.generation import Answer, format_reply
from pipeline.generation.readiness import apply_rule
from pipeline.links import foreign_links
from pipeline.llm.base import Usage
from pipeline.question import focus_question
from pipeline.texts import t
from review import queue, states
from review.models import Draft, DraftCreate, InboundMessage
from review.queue import FOREIGN_LINK


@dataclass(frozen=True)
class Thread:
    """A message placed in its conversation: the earlier turns it follows up, or a closing that needs no draft."""

    history: list[Turn] = field(default_factory=list)
    closing: bool = False


@dataclass(frozen=True)
class Question:
    """What drafting answers: the student's own (redacted, bounded) words and the standalone query retrieval searches."""

    asked: str
    query: str
    history: Sequence[Turn] = ()
    rewrite_usage: Usage | None = None  # the follow-up rewrite's LLM call, part of the draft's cost
    rewrite_model: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The gate's decision (None when there is no fresh gate or the gate is switched off)."""

    decision: GateDecision | None = None

    @property
    def out_of_domain(self) -> bool:
        return self.decision is not None and not self.decision.in_domain

    @property
    def in_domain(self) -> bool | None:
        return None if self.decision is None else self.decision.in_domain

    @property
    def score(self) -> float | None:
        return None if self.decision is None else self.decision.score


# 1 ------------------------------------------------------------------ link the conversation
def link_conversation(session: Session, message: InboundMessage) -> Thread:
    """Tie the message to the conversation it follows up; a closing is recorded as acknowledged, with no draft."""
    conversations.link(session, message)
    if conversations.acknowledge_if_closing(session, message):
        return Thread(closing=True)
    return Thread(history=conversations.history(session, message))


# 2 ------------------------------------------------------------------ focus the question
Rewriter = Callable[[str, list[Turn]], tuple[str, Usage | None]]


def focus(message: InboundMessage, thread: Thread, *, max_chars: int, standalone: Rewriter, model: str | None) -> Question:
    """The question the message asks (bounded), and for a follow-up the standalone query made with its earlier turns
    (by `standalone`: the `model`'s rewrite, or the offline combination)."""
    return ask(focus_question(message.redacted_text or "", max_chars), thread.history, standalone=standalone, model=model)


def ask(asked: str, history: Sequence[Turn] = (), *, standalone: Rewriter, model: str | None) -> Question:
    """A question as drafting takes it: the student's words and the query retrieval searches."""
    query, usage = standalone(asked, list(history))
    return Question(asked=asked, query=query, history=tuple(history), rewrite_usage=usage, rewrite_model=model)


# 3 ------------------------------------------------------------------ gate
def gate(question: Question, *, gate, embedder: Embedder) -> Verdict:
    """Is the question the office's business? (`gate` is None when there is no fresh gate or it is switched off.)"""
    return Verdict(gate.decide(question.query, embedder) if gate is not None else None)


def out_of_domain_reply(lang: str) -> Answer:
    """The polite canned reply an out-of-domain message gets as its draft (still reviewed by staff)."""
    return Answer(text=format_reply(t("out_of_domain", lang), [], lang), method="canned", model="canned")


# 4 ------------------------------------------------------------------ reuse an approved answer
def reuse_approved(question: Question, *, find: Callable[[str], Reuse]) -> Reuse:
    """A close repeat of an approved question gets the approved answer; a follow-up never does (its standalone query
    echoes the earlier question, whose approved answer the student already has)."""
    return Reuse() if question.history else find(question.query)


# 5 ------------------------------------------------------------------ answer
Answerer = Callable[..., tuple[Answer, list[str]]]


def answer(question: Question, reuse: Reuse, *, answerer: Answerer, price: Callable[[Usage, str], float]) -> tuple[Answer, list[str]]:
    """Retrieve and generate (each question of the message on its own), with the approved answers offered as suggestions;
    the follow-up rewrite and the reuse checks are added to the draft's cost."""
    drafted, parts = answerer(question.query, history=question.history, asked=question.asked)
    drafted.extra_flags += reuse.suggestions
    for usage, model in ((question.rewrite_usage, question.rewrite_model), (reuse.usage, reuse.model)):
        if usage is not None and model:
            drafted.usage = drafted.usage + usage
            drafted.cost_usd += price(usage, model)
    return drafted, parts


def calibrated_readiness(drafted: Answer, *, rule, lang: str) -> None:
    """An offline draft's «listo» checked against the rule learnt from what staff sent unchanged (adopted only when
    better on held-out decisions: `orienta answers calibrate`); below it, the draft is «necesita revisión» and says why."""
    if rule is not None:
        apply_rule(drafted.extra_flags, rule.as_dict(), lang)


def context(question: Question, parts: list[str]) -> dict:
    """What the draft was made from, for the reviewer: earlier turns, the standalone query, the question parts."""
    ctx = {"turns": [turn.as_dict() for turn in question.history], "query": question.query if question.query != question.asked else None,
           "parts": parts if len(parts) > 1 else None}
    return {k: v for k, v in ctx.items() if v}


# 6 ------------------------------------------------------------------ queue
def queue_draft(session: Session, message: InboundMessage, drafted: Answer, verdict: Verdict, *, flags: list[dict]) -> Draft:
    """Record the gate's verdict and put the draft in the review queue (one state machine, audited)."""
    if message.state == states.RECEIVED:
        queue.record_classification(session=session, message=message, in_domain=verdict.in_domain, score=verdict.score)
    decision = verdict.decision
    return queue.create_draft(
        session=session,
        message=message,
        data=DraftCreate(
            message_id=message.id,  # type: ignore[arg-type]
            text=drafted.text,
            method=drafted.method,
            model=drafted.model,
            no_info=drafted.no_info,
            out_of_domain=verdict.in_domain is False,
            fallback=drafted.fallback,
            references=[r.as_dict() for r in drafted.references],
            derivation=[s.as_dict() for s in drafted.derivation],
            flags=drafted.flags + flags,
            chunks=drafted.as_dict()["chunks"],
            prompt_hash=drafted.prompt_hash,
            usage=drafted.usage.as_dict(),
            cost_usd=drafted.cost_usd,
            latency_ms=drafted.latency_ms,
            gate_score=verdict.score,
            gate_in_domain=verdict.in_domain,
            context=drafted.context,
            gate_outcome=decision.outcome if decision is not None else None,
            gate_reasons=decision.reasons if decision is not None else [],
        ),
    )


# 7 ------------------------------------------------------------------ flag links
def flag_links(drafted: Answer) -> list[dict]:
    """A flag for every URL or e-mail address of the draft that the retrieved documents do not contain."""
    sources = "\n".join(f"{h.chunk.url or ''}\n{h.chunk.text}" for h in drafted.hits)
    return [{"kind": FOREIGN_LINK, "link": link, "flag": f"enlace que no está en los documentos: {link}"} for link in foreign_links(drafted.text, sources)]
