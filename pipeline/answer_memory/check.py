"""Checking a reuse with an LLM: does the approved answer, as it is, answer the new question?

Embedding similarity finds the approved question closest to a new one, but cannot tell a paraphrase from a question
on the same topic that needs another answer (benchmarks/answer_memory.py: near-misses reach 0.97). With a model
configured, the closest candidates are put to it in one short structured call each; offline, the strict rule of
`pipeline.answer_memory.match.best_match` decides alone.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass

from pydantic import BaseModel, Field

from pipeline.errors import PipelineError
from pipeline.llm.base import Usage, parse_json_object
from pipeline.question import fence_question

log = logging.getLogger(__name__)


class ReuseVerdict(BaseModel):
    """Si la respuesta aprobada responde la consulta nueva tal como está."""

    responde: bool = Field(description="true solo si la respuesta aprobada responde la consulta nueva completa y correctamente, sin cambios")
    motivo: str = Field(description="una frase que explica la decisión")


@dataclass(frozen=True)
class Verdict:
    """What the model said (`answers` is None when it could not say: the offline rule decides then)."""

    answers: bool | None
    reason: str
    usage: Usage | None = None


_TAGS = re.compile(r"<\s*/?\s*(consulta|consulta_aprobada|respuesta_aprobada)\b[^>]*>", re.IGNORECASE)


def _fence(tag: str, text: str) -> str:
    """Text as data: every fence tag inside it is removed (also spaced and fullwidth variants, folded by NFKC)."""
    return f"<{tag}>\n{_TAGS.sub('', unicodedata.normalize('NFKC', text)).strip()}\n</{tag}>"


def verify_reuse(llm, question: str, approved_question: str, approved_text: str) -> Verdict:
    """One short structured call; a failure, a refusal or an unreadable reply gives `answers=None`."""
    from pipeline.prompts import load_prompt

    user = "\n\n".join([_fence("consulta_aprobada", approved_question), _fence("respuesta_aprobada", approved_text), fence_question(question)])
    try:
        resp = llm.complete(system=load_prompt("answer_reuse").text, user=user, schema=ReuseVerdict, max_tokens=300)
    except PipelineError as exc:
        log.warning("reuse check failed (%s); the offline rule decides", exc)
        return Verdict(None, f"error: {exc}")
    data = resp.data if resp.data is not None else parse_json_object(resp.text or "")
    if resp.outcome != "ok" or not isinstance(data, dict) or not isinstance(data.get("responde"), bool):
        return Verdict(None, f"unreadable reply ({resp.outcome})", resp.usage)
    return Verdict(data["responde"], str(data.get("motivo") or "")[:300], resp.usage)
