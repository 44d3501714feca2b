"""Derivation prompting: one LLM call builds the whole derivation tree, validated, verified, or RAG as fallback."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from pipeline.conversation import Turn, with_history
from pipeline.derivation import Step, parse_text, steps_from_data, validate
from pipeline.errors import DerivationError
from pipeline.generation import Answer, format_reply, register
from pipeline.generation.citations import cited_references, leaf_claims
from pipeline.generation.rag import render_extracts
from pipeline.index import Hit
from pipeline.llm import LLM, LLMResponse, Usage
from pipeline.prompts import load_prompt
from pipeline.question import fence_question
from pipeline.texts import t
from pipeline.verifier import StepVerifier, VerifierConfig

log = logging.getLogger(__name__)

class DerivationStep(BaseModel):
    """Un paso de la derivación."""

    id: str = Field(description="s1, s2, ...")
    rule: Literal["Extract", "Concat", "Instantiate", "Compose", "Refine", "NoInfo"]
    premises: list[str] = Field(description='números de extracto ("1".."n") o ids de pasos anteriores')
    conclusion: str
    is_final: bool


class DerivationReply(BaseModel):
    """La derivación completa: una lista plana de pasos, en orden, con exactamente un paso final."""

    steps: list[DerivationStep] = Field(min_length=1)


def parse_response(resp: LLMResponse) -> list[Step]:
    """Steps from the structured reply, else from the plain-text format (servers without structured outputs)."""
    if resp.outcome in ("truncated", "paused"):
        raise DerivationError(f"the reply ended early ({resp.stop_reason}) before the derivation was complete")
    if resp.data is not None:
        return steps_from_data(resp.data)
    return parse_text(resp.text)


def chunk_texts(hits: list[Hit]) -> list[str]:
    """What each hypothesis says, with its title and section (premise text for the verifier)."""
    return [h.chunk.embed_text for h in hits]


@register("derivation")
class DerivationGenerator:
    """The derivation method: rules applied to the retrieved chunks in one structured call."""

    name = "derivation"

    def __init__(
        self,
        *,
        llm: LLM,
        prices: dict[str, float] | None = None,
        lang: str = "es",
        embedder=None,
        fallback=None,
        retries: int = 1,
        verifier: StepVerifier | None = None,
        verifier_min_similarity: float | None = None,
        **_: object,
    ) -> None:
        self.llm, self.prices, self.lang, self.fallback, self.retries = llm, prices, lang, fallback, retries
        config = VerifierConfig(min_similarity=verifier_min_similarity) if verifier_min_similarity is not None else None
        self.verifier = verifier or StepVerifier(embedder=embedder, config=config)
        self.prompt = load_prompt("derivation")

    def user_message(self, question: str, hits: list[Hit], error: str | None = None, history: Sequence[Turn] = ()) -> str:
        body = f"{render_extracts(hits)}\n\n{with_history(fence_question(question), history)}"
        if error:
            body += f"\n\nTu respuesta anterior no era una derivación válida ({error}). Volvé a derivar desde cero respetando las reglas y el formato."
        return body

    def derive(self, question: str, hits: list[Hit], history: Sequence[Turn] = ()) -> tuple[list[Step], Step, Usage, str, list[str]]:
        """Call the LLM (retrying an invalid derivation) and return steps, final step, usage, model, errors."""
        usage, errors, model = Usage(), [], self.llm.model
        for _attempt in range(self.retries + 1):
            resp = self.llm.complete(system=self.prompt.text, user=self.user_message(question, hits, errors[-1] if errors else None, history), schema=DerivationReply)
            usage, model = usage + resp.usage, resp.model
            if resp.refused:
                raise _Declined(usage, model, errors)
            try:
                steps = parse_response(resp)
                return steps, validate(steps, len(hits)), usage, model, errors
            except DerivationError as exc:
                log.info("invalid derivation: %s", exc)
                errors.append(str(exc))
        raise _Invalid(usage, model, errors)

    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = ()) -> Answer:
        start = time.perf_counter()
        try:
            steps, final, usage, model, errors = self.derive(question, hits, history)
        except _Declined as declined:
            return self._declined(declined, hits, start)
        except _Invalid as bad:
            return self._fall_back(question, hits, bad, start, history)
        self.verifier.verify(steps, chunk_texts(hits), question)
        refs = cited_references(leaf_claims(steps, final, hits), hits)  # its leaves cite passages as RAG's citations do
        no_info = final.rule == "NoInfo"
        body = t("no_info", self.lang) if no_info else final.conclusion
        notes = [f"derivación inválida en el intento {i + 1}: {e}" for i, e in enumerate(errors)]
        return Answer(
            text=format_reply(body, refs, self.lang),
            method="derivation",
            model=model,
            references=refs,
            no_info=no_info,
            derivation=steps,
            prompt_hash=self.prompt.hash,
            usage=usage,
            cost_usd=usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
            notes=notes,
        )

    def _declined(self, declined: "_Declined", hits: list[Hit], start: float) -> Answer:
        """The model refused: an empty draft flagged for the reviewer, never a fallback answer in its place."""
        return Answer(
            text="",
            method="derivation",
            model=declined.model,
            prompt_hash=self.prompt.hash,
            usage=declined.usage,
            cost_usd=declined.usage.cost(self.prices),
            latency_ms=(time.perf_counter() - start) * 1000,
            hits=hits,
            notes=["el modelo se negó a responder"],
            outcome="refusal",
        )

    def _fall_back(self, question: str, hits: list[Hit], bad: "_Invalid", start: float, history: Sequence[Turn] = ()) -> Answer:
        if self.fallback is None:
            raise DerivationError(f"invalid derivation after {len(bad.errors)} attempts: {bad.errors[-1]}")
        answer = self.fallback.generate(question, hits, history=history) if history else self.fallback.generate(question, hits)
        answer.fallback = True
        answer.usage = bad.usage + answer.usage
        answer.cost_usd = answer.usage.cost(self.prices)
        answer.latency_ms = (time.perf_counter() - start) * 1000
        answer.notes = [f"derivación inválida tras {len(bad.errors)} intentos ({bad.errors[-1]}); borrador generado con {answer.method}"] + answer.notes
        return answer


class _Invalid(Exception):
    """Every attempt produced an invalid derivation."""

    def __init__(self, usage: Usage, model: str, errors: list[str]) -> None:
        super().__init__(errors[-1] if errors else "invalid derivation")
        self.usage, self.model, self.errors = usage, model, errors


class _Declined(_Invalid):
    """The model refused to answer (stop_reason refusal)."""
