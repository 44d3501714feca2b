"""Long context: every active document in the (cached) prompt, no retrieval."""

from __future__ import annotations

import time
from collections.abc import Sequence

from pipeline.conversation import Turn, with_history
from pipeline.errors import GenerationError
from pipeline.generation import Answer, Reference, register
from pipeline.generation.rag import NO_INFO_MARKERS, outcome_notes
from pipeline.index import Hit
from pipeline.llm import LLM
from pipeline.prompts import load_prompt
from pipeline.question import fence_question


@register("long-context")
class LongContextGenerator:
    """All documents (up to a character budget) follow the instructions in the fixed prefix; the question comes last."""

    name = "long-context"

    def __init__(self, *, llm: LLM, index=None, prices: dict[str, float] | None = None, max_chars: int = 400_000, **_: object) -> None:
        if index is None:
            raise GenerationError("the long-context method needs the document index")
        self.llm, self.index, self.prices, self.max_chars = llm, index, prices, max_chars
        self.prompt = load_prompt("long_context")
        self._docs: list[Reference] | None = None
        self._corpus: str | None = None

    def corpus(self) -> tuple[str, list[Reference]]:
        """The documents as one block (stable order, so the prefix is byte-identical across calls)."""
        if self._corpus is None:
            docs: dict[str, list] = {}
            for chunk, _ in self.index.all_chunks():
                docs.setdefault(chunk.doc_id, []).append(chunk)
            blocks, refs, size = [], [], 0
            for doc_id in sorted(docs):
                chunks = sorted(docs[doc_id], key=lambda c: c.position)
                head = chunks[0]
                text = "\n\n".join(c.text for c in chunks)
                block = f'<documento titulo="{head.doc_title}" url="{head.url or ""}">\n{text}\n</documento>'
                if size + len(block) > self.max_chars:
                    break
                blocks.append(block)
                refs.append(Reference.of(head))
                size += len(block)
            self._corpus, self._docs = "\n\n".join(blocks), refs
        return self._corpus, self._docs or []

    def check_size(self, system: str) -> None:
        """Refuse, before sending, documents that leave no room for the reply in the model's context window
        (exact count where the LLM has one: the same count that decides the cache breakpoint, so no extra call)."""
        prefix_tokens = getattr(self.llm, "prefix_tokens", None)
        info = getattr(self.llm, "info", None)
        if prefix_tokens is None or info is None:
            return
        have, room = prefix_tokens(system), info.context_window - min(self.llm.max_tokens, info.max_output)
        if have > room:
            raise GenerationError(f"the documents take {have} tokens, more than the {room} that {self.llm.model}'s context window leaves for them; lower ORIENTA_LLM__LONG_CONTEXT_MAX_CHARS or use rag")

    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = ()) -> Answer:
        start = time.perf_counter()
        corpus, docs = self.corpus()
        system = f"{self.prompt.text}\n\n# Documentos\n\n{corpus}"
        self.check_size(system)
        resp = self.llm.complete(system=system, user=with_history(fence_question(question), history))
        text = "" if resp.refused else resp.text.strip()
        low = text.lower()
        refs = [r for r in docs if r.title.lower() in low or (r.url and r.url.lower() in low)]
        return Answer(
            text=text,
            method="long-context",
            model=resp.model,
            references=refs,
            no_info=any(m in low for m in NO_INFO_MARKERS),
            prompt_hash=self.prompt.hash,
            usage=resp.usage,
            cost_usd=resp.usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
            notes=outcome_notes(resp),
            outcome=resp.outcome,
        )
