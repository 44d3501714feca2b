"""Conversations in the pipeline: earlier turns as prompt context, and a follow-up made into a standalone query."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from pipeline.errors import PipelineError
from pipeline.generation.lexical import query_keys
from pipeline.question import fence_question
from pipeline.question_split import asking_sentences
from pipeline.redaction import strip_placeholders

log = logging.getLogger(__name__)
MIN_OWN_KEYS = 3  # a follow-up with fewer key terms of its own leans on the earlier question
TURN_MAX_CHARS = 1200  # each earlier turn, as context
# A clause that opens like a continuation of what was said before ("¿Y si…?", "Hola de nuevo, ¿y para Sistemas?").
_CONTINUES = re.compile(r"(?:^|[.,;:!?¡¿\n])\s*[¿¡]?\s*(?:y|e|o|pero|entonces|tambi[eé]n|eso|esto|lo mismo|en ese caso|ahora)\b", re.IGNORECASE)
ROLE_LABELS = {"student": "Estudiante", "office": "Oficina"}


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier turn of a conversation (already redacted): the student's message or the office's reply."""

    role: str  # student | office
    text: str
    message_id: int | None = None
    acknowledged: bool = False  # a closing recorded without a reply: shown to reviewers, not given to the model

    def as_dict(self) -> dict:
        return {"role": self.role, "text": self.text, "message_id": self.message_id} | ({"acknowledged": True} if self.acknowledged else {})

    @classmethod
    def from_dict(cls, d: dict) -> Turn:
        return cls(role=d.get("role", "student"), text=d.get("text", ""), message_id=d.get("message_id"), acknowledged=bool(d.get("acknowledged")))


def spoken(history: Sequence[Turn]) -> list[Turn]:
    """The turns that carry the exchange (closings recorded without a reply left out): what a prompt or query is built from."""
    return [t for t in history if not t.acknowledged]


def _neutralise(text: str) -> str:
    return re.sub(r"<\s*/?\s*(?:conversacion_previa|consulta)\b[^>]*>", "", unicodedata.normalize("NFKC", text), flags=re.IGNORECASE)


def render_history(history: Sequence[Turn]) -> str:
    """Earlier turns fenced as data (tags inside them neutralised), oldest first; empty when there are none."""
    history = spoken(history)
    if not history:
        return ""
    lines = [f"{ROLE_LABELS.get(t.role, t.role)}: {_neutralise(t.text[:TURN_MAX_CHARS]).strip()}" for t in history]
    return "<conversacion_previa>\n" + "\n\n".join(lines) + "\n</conversacion_previa>"


def with_history(fenced_question: str, history: Sequence[Turn]) -> str:
    """The fenced question preceded by the previous exchange, when there is one."""
    block = render_history(history)
    return f"{block}\n\n{fenced_question}" if block else fenced_question


def leans_on_context(question: str) -> bool:
    """Whether a follow-up lacks its own key terms ("¿y para Sistemas?", "¿y si ya pasó la fecha?")."""
    text = strip_placeholders(question)
    return bool(_CONTINUES.search(text)) or len(set(query_keys(text))) < MIN_OWN_KEYS


def as_context(question: str) -> str:
    """An earlier question turned into a statement of its topic (its asking sentences, without question marks), so the new question stays the one asked."""
    text = " ".join(asking_sentences(question)) or question
    text = re.sub(r"\?+", ".", text.replace("¿", ""))
    text = re.sub(r"\s+", " ", text).strip()
    return text if not text or text.endswith((".", "!")) else text + "."


def standalone_query(question: str, history: Sequence[Turn]) -> str:
    """Offline: the follow-up combined with the earlier student question when it lacks its own key terms."""
    earlier = [t.text for t in spoken(history) if t.role == "student" and t.text.strip()]
    if not earlier or not leans_on_context(question):
        return question
    return f"{as_context(earlier[-1])}\n{question}"


class StandaloneQuery(BaseModel):
    """La consulta reescrita para que se entienda sin la conversación."""

    query: str = Field(description="la consulta independiente, en el idioma del estudiante")


def rewrite_query(llm, question: str, history: Sequence[Turn]) -> tuple[str, object | None]:
    """With an LLM: one short structured call that makes the follow-up standalone; the offline combination when it fails.

    Returns (query, usage or None)."""
    from pipeline.prompts import load_prompt

    history = spoken(history)
    if not history:
        return question, None
    prompt = load_prompt("followup_rewrite")
    try:
        resp = llm.complete(system=prompt.text, user=with_history(fence_question(question), history), schema=StandaloneQuery, max_tokens=400)
    except PipelineError as exc:
        log.warning("follow-up rewrite failed (%s); combining with the earlier question instead", exc)
        return standalone_query(question, history), None
    from pipeline.llm.base import parse_json_object

    data = resp.data if resp.data is not None else parse_json_object(resp.text or "")
    query = str((data or {}).get("query") or "").strip() if resp.outcome == "ok" else ""
    if not query:
        return standalone_query(question, history), resp.usage
    return query[:2000], resp.usage
