"""RAG: the LLM answers from the retrieved extracts, each introduced with its title and URL."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pipeline.conversation import Turn, with_history
from pipeline.generation import Answer, Reference, register
from pipeline.index import Hit
from pipeline.llm import LLM
from pipeline.prompts import load_prompt
from pipeline.question import fence_question

NO_INFO_MARKERS = ("no tengo información", "no tengo informacion", "no hay información", "no encontré información", "no information")


def render_extracts(hits: list[Hit]) -> str:
    """Numbered extracts, each introduced by its document title (and section) and URL."""
    blocks = []
    for n, h in enumerate(hits, start=1):
        c = h.chunk
        head = f"[{n}] {c.doc_title}" + (f" — {c.section}" if c.section and c.section != c.doc_title else "") + (f" ({c.url})" if c.url else "")
        blocks.append(f"{head}\n{c.text}")
    return "\n\n".join(blocks)


def unknown_links(text: str, sources: str) -> list[str]:
    """URLs and e-mail addresses in the answer that no source mentions (drafts must not invent links)."""
    from pipeline.verifier import new_entities

    return [e for e in new_entities(text, sources) if e.startswith(("url", "email"))]


def outcome_notes(resp) -> list[str]:
    """Reviewer notes for a reply that did not end normally."""
    return {
        "refusal": ["el modelo se negó a responder"],
        "truncated": [f"la respuesta del modelo quedó truncada ({resp.stop_reason})"],
        "paused": ["la respuesta del modelo quedó incompleta (pause_turn)"],
    }.get(resp.outcome, [])


def cited_references(text: str, hits: list[Hit]) -> list[Reference]:
    """Documents whose title or URL the answer's text mentions, in retrieval order."""
    refs: dict[str, Reference] = {}
    low = text.lower()
    for h in hits:
        c = h.chunk
        if c.doc_id not in refs and (c.doc_title.lower() in low or (c.url and c.url.lower() in low)):
            refs[c.doc_id] = Reference.of(c)
    return list(refs.values())


@register("rag")
class RAGGenerator:
    """Retrieval-augmented answer in one LLM call; the instructions are the fixed, cached prefix."""

    name = "rag"

    def __init__(self, *, llm: LLM, prices: dict[str, float] | None = None, **_: object) -> None:
        self.llm, self.prices = llm, prices
        self.prompt = load_prompt("rag")

    def user_message(self, question: str, hits: list[Hit], history: Sequence[Turn] = ()) -> str:
        return f"Extractos de documentos:\n\n{render_extracts(hits)}\n\n{with_history(fence_question(question), history)}"

    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = ()) -> Answer:
        start = time.perf_counter()
        resp = self.llm.complete(system=self.prompt.text, user=self.user_message(question, hits, history))
        text = "" if resp.refused else resp.text.strip()
        notes = outcome_notes(resp)
        notes += [f"enlace que no está en los extractos: {e}" for e in unknown_links(text, render_extracts(hits))]
        return Answer(
            text=text,
            method="rag",
            model=resp.model,
            references=cited_references(text, hits),
            no_info=any(m in text.lower() for m in NO_INFO_MARKERS),
            prompt_hash=self.prompt.hash,
            usage=resp.usage,
            cost_usd=resp.usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
            notes=notes,
            outcome=resp.outcome,
        )
