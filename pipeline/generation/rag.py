"""RAG: the LLM answers from the retrieved extracts, each introduced with its title and URL."""

from __future__ import annotations

import re
import time

from pipeline.generation import Answer, Reference, register
from pipeline.index import Hit
from pipeline.llm import LLM
from pipeline.prompts import load_prompt

NO_INFO_MARKERS = ("no tengo información", "no tengo informacion", "no hay información", "no encontré información", "no information")


def render_extracts(hits: list[Hit]) -> str:
    """Numbered extracts, each introduced by its document title and URL."""
    blocks = []
    for n, h in enumerate(hits, start=1):
        c = h.chunk
        head = f"[{n}] {c.doc_title}" + (f" — {c.section}" if c.section and c.section != c.doc_title else "") + (f" ({c.url})" if c.url else "")
        blocks.append(f"{head}\n{c.text}")
    return "\n\n".join(blocks)


def fence_question(question: str) -> str:
    """Student text as data: closing tags inside it are neutralised."""
    cleaned = re.sub(r"</?\s*consulta\s*>", "", question, flags=re.IGNORECASE)
    return f"<consulta>\n{cleaned}\n</consulta>"


@register("rag")
class RAGGenerator:
    """Retrieval-augmented answer in one LLM call."""

    name = "rag"

    def __init__(self, *, llm: LLM, prices: dict[str, float] | None = None, **_: object) -> None:
        self.llm, self.prices = llm, prices
        self.prompt = load_prompt("rag")

    def generate(self, question: str, hits: list[Hit]) -> Answer:
        start = time.perf_counter()
        user = f"Extractos de documentos:\n\n{render_extracts(hits)}\n\n{fence_question(question)}"
        resp = self.llm.complete(system=self.prompt.text, user=user)
        text = resp.text.strip()
        used = {h.chunk.doc_id: h.chunk for h in hits}
        refs = [Reference(c.doc_id, c.doc_title, c.url) for c in used.values() if c.doc_title in text or (c.url and c.url in text)]
        return Answer(
            text=text,
            method="rag",
            model=resp.model,
            references=refs,
            no_info=any(m in text.lower() for m in NO_INFO_MARKERS),
            prompt_hash=self.prompt.hash,
            usage=resp.usage,
            cost_usd=resp.usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
        )
