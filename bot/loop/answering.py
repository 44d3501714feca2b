"""Retrieve and generate for one message: each of its questions answered on its own, in order, in one reply."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from bot.wiring.services import Services
from pipeline.conversation import Turn, standalone_query
from pipeline.generation import Answer
from pipeline.generation.parts import compose, said_before
from pipeline.question_split import asked_sentence, split_questions, standalone, with_context


def answer(services: Services, query: str, *, history: Sequence[Turn] = (), asked: str | None = None, today: date | None = None) -> tuple[Answer, list[str]]:
    """The drafted answer and the question parts it answers (one part unless the message asks about several topics).

    `query` is what retrieval searches (a follow-up made standalone); an LLM answers the student's own words
    (`asked`) with the earlier turns in its prompt, the offline generator the standalone query.
    A message is split when it asks about several topics or several kinds of answer (a cost and a deadline), each
    answered in order; offline, only when the message as a whole is not a NoInfo. A part about the same thing as the one
    before it is drafted with that part as context (offline: the first way of asking it that finds an answer no earlier
    part gave).
    `today`: the message's date (its Date header), from which the offline generator tells current periods from past ones."""
    r = services.settings.retrieval
    gen = _dated(services.generator(), today)
    hits = services.retriever.retrieve(query, r.k, support=r.support_chunks)
    with_llm_history = bool(asked and history and services.llm is not None)
    question = asked if with_llm_history else query
    own, parts = _parts(query, history, asked)
    if len(parts) > 1:
        part_hits = [services.retriever.retrieve(p, r.k, support=r.support_chunks) for p in parts]
        whole = None
        if services.llm is None:  # offline, a short part matches words more easily: a message nothing covers stays one NoInfo draft
            whole = gen.generate(query, hits, history=history)
        if whole is None or not whole.no_info:
            answers: list[Answer] = []
            for i, part in enumerate(parts):
                tries = [(part, part_hits[i])]
                if i and _leans(parts, part_hits, i):
                    tries = [(q, services.retriever.retrieve(q, r.k, support=r.support_chunks)) for q in with_context(part, parts[i - 1])]
                if services.llm is not None:  # an LLM answers the student's own words (the thread and passages in its prompt)
                    answers.append(gen.generate(own[i], tries[0][1], history=history))
                    continue
                drafts = [gen.generate(q, h, history=history) for q, h in tries]
                answers.append(next((a for a in drafts if not a.no_info and not said_before(a, answers)), drafts[0]))
            return compose([asked_sentence(p) for p in own], answers, services.settings.llm.language), parts
        return whole, [query]
    return gen.generate(question, hits, history=history), [query]


class _dated:
    """The generator measuring periods from `today` (the offline generator has a `today`; others ignore it)."""

    def __init__(self, gen, today: date | None) -> None:
        self.gen, self.today = gen, today

    def generate(self, question: str, hits, *, history: Sequence[Turn] = ()) -> Answer:
        if self.today is None or not hasattr(self.gen, "today"):
            return self.gen.generate(question, hits, history=history)
        return self.gen.generate(question, hits, history=history, today=self.today)


def _leans(parts: list[str], part_hits: list, i: int) -> bool:
    """Whether question part `i` is about the same thing as the part before it: its best passage is in the same document,
    or it names no topic of its own ('¿Cuánto sale el trámite?'). A part about another topic stands alone."""
    same = bool(part_hits[i]) and bool(part_hits[i - 1]) and part_hits[i][0].chunk.doc_id == part_hits[i - 1][0].chunk.doc_id
    return same or not standalone(parts[i])


def _parts(query: str, history: Sequence[Turn], asked: str | None) -> tuple[list[str], list[str]]:
    """The questions as the student asked them, and the retrieval query of each.

    A follow-up is split on its own words (its standalone query also holds the earlier question), and each of its
    questions is made standalone with the earlier turns."""
    if not history:
        parts = split_questions(query)
        return parts, parts
    own = split_questions(asked or query)
    if len(own) < 2:
        return [query], [query]
    return own, [standalone_query(p, history) for p in own]
