"""RAG: the LLM answers from the retrieved extracts, each introduced with its title and URL."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pipeline.conversation import Turn, with_history
from pipeline.generation import Answer, Reference, register
from pipeline.generation.citations import cited_references, claims_from, search_results, uncited_flags, with_references
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


def mentioned_references(text: str, hits: list[Hit]) -> list[Reference]:
    """Documents whose title or URL the answer's text mentions, in retrieval order: only for a model without
    citations (an OpenAI-compatible server); Claude's references come from its citations."""
    refs: dict[str, Reference] = {}
    low = text.lower()
    for h in hits:
        c = h.chunk
        if c.doc_id not in refs and (c.doc_title.lower() in low or (c.url and c.url.lower() in low)):
            refs[c.doc_id] = Reference.of(c)
    return list(refs.values())


@register("rag")
class RAGGenerator:
    """Retrieval-augmented answer in one LLM call; the instructions are the fixed, cached prefix.

    On Claude the passages go as search-result blocks with citations enabled: the draft's references are the
    documents of the returned citations, each claim is linked to its passage, and a claim without a citation
    is flagged for the reviewer. A model without citations gets numbered extracts as text.
    """

    name = "rag"

    def __init__(self, *, llm: LLM, prices: dict[str, float] | None = None, lang: str = "es", **_: object) -> None:
        self.llm, self.prices, self.lang = llm, prices, lang
        self.cites = bool(getattr(llm, "search_results", False))
        self.prompt = load_prompt("rag_cited" if self.cites else "rag")

    def user_message(self, question: str, hits: list[Hit], history: Sequence[Turn] = ()) -> str | list[dict]:
        asked = with_history(fence_question(question), history)
        if self.cites:
            return search_results(hits) + [{"type": "text", "text": asked}]
        return f"Extractos de documentos:\n\n{render_extracts(hits)}\n\n{asked}"

    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = ()) -> Answer:
        start = time.perf_counter()
        resp = self.llm.complete(system=self.prompt.text, user=self.user_message(question, hits, history))
        text = "" if resp.refused else resp.text.strip()
        no_info = any(m in text.lower() for m in NO_INFO_MARKERS)
        notes = outcome_notes(resp)
        notes += [f"enlace que no está en los extractos: {e}" for e in unknown_links(text, render_extracts(hits))]
        flags: list[dict] = []
        if self.cites:
            claims = claims_from(resp.blocks, hits) if text else []
            references = cited_references(claims, hits)
            flags = uncited_flags(claims, NO_INFO_MARKERS)
            text = with_references(text, references, self.lang) if text else text
        else:
            references = mentioned_references(text, hits)
        return Answer(
            text=text,
            method="rag",
            model=resp.model,
            references=references,
            no_info=no_info,
            prompt_hash=self.prompt.hash,
            usage=resp.usage,
            cost_usd=resp.usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
            notes=notes,
            outcome=resp.outcome,
            extra_flags=flags,
        )
