"""Answer generation: Generators turn a question and retrieved chunks into an Answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pipeline.derivation import Step, leaves, render
from pipeline.index import Hit
from pipeline.llm import Usage
from pipeline.texts import t

if TYPE_CHECKING:
    from pipeline.conversation import Turn


@dataclass(slots=True)
class Reference:
    """A document an answer relies on."""

    doc_id: str
    title: str
    url: str | None = None
    content_hash: str | None = None  # the version of the document the answer was drafted from
    claims: list[dict] = field(default_factory=list)  # {claim, passage, quote}: what of the answer this document supports, and where

    def as_dict(self) -> dict:
        out = {"doc_id": self.doc_id, "title": self.title, "url": self.url}
        out |= {"content_hash": self.content_hash} if self.content_hash else {}
        return out | {"claims": self.claims} if self.claims else out

    @classmethod
    def of(cls, chunk) -> "Reference":
        """The reference to the document (and version) a chunk comes from."""
        return cls(chunk.doc_id, chunk.doc_title, chunk.url, chunk.meta.get("content_hash"))


@dataclass
class Answer:
    """A drafted answer with everything a reviewer needs to trust it."""

    text: str
    method: str
    model: str
    references: list[Reference] = field(default_factory=list)
    no_info: bool = False
    derivation: list[Step] = field(default_factory=list)
    prompt_hash: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    hits: list[Hit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fallback: bool = False  # the requested method failed (e.g. invalid derivation) and another produced this answer
    outcome: str = "ok"  # ok | refusal | truncated | paused: how the model's reply ended (see LLMResponse.outcome)
    extra_flags: list[dict] = field(default_factory=list)  # draft-level flags set by whoever made the answer (e.g. the curated answer it came from)
    context: dict = field(default_factory=dict)  # earlier turns, standalone query, question parts (set by the caller that drafted it)

    @property
    def flags(self) -> list[dict]:
        """Verifier flags per step, and a draft-level flag when the model declined or was cut off."""
        steps = [{"step": s.id, "rule": s.rule, "flag": f} for s in self.derivation for f in s.flags]
        return ([outcome_flag(self.outcome)] if self.outcome != "ok" else []) + steps + self.extra_flags

    def as_dict(self) -> dict:
        return {
            "answer": self.text,
            "method": self.method,
            "model": self.model,
            "references": [r.as_dict() for r in self.references],
            "no_info": self.no_info,
            "derivation": [s.as_dict() for s in self.derivation],
            "flags": self.flags,
            "prompt_hash": self.prompt_hash,
            "usage": self.usage.as_dict(),
            "cost_usd": self.cost_usd,
            "latency_ms": round(self.latency_ms, 1),
            "notes": self.notes,
            "fallback": self.fallback,
            "outcome": self.outcome,
            "derivation_text": render(self.derivation, [h.chunk.doc_title for h in self.hits]) if self.derivation else None,
            "chunks": [{"doc_id": h.chunk.doc_id, "chunk_id": h.chunk.id, "score": round(h.score, 4)} for h in self.hits],
        }


@runtime_checkable
class Generator(Protocol):
    """Drafts an answer to `question` from `hits` (already retrieved)."""

    name: str

    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = ()) -> Answer: ...


GENERATORS: dict[str, Callable[..., Generator]] = {}


def register(name: str) -> Callable[[Callable[..., Generator]], Callable[..., Generator]]:
    def deco(factory: Callable[..., Generator]) -> Callable[..., Generator]:
        GENERATORS[name] = factory
        return factory

    return deco


def outcome_flag(outcome: str) -> dict:
    """The draft-level flag stored with a draft whose reply did not end normally (kind "outcome", no step)."""
    return {"kind": "outcome", "step": None, "rule": None, "flag": outcome}


def outcome_of(flags: list[dict] | None) -> str:
    """The outcome recorded in a draft's flags ("ok" when none)."""
    return next((f.get("flag", "ok") for f in flags or [] if f.get("kind") == "outcome"), "ok")


def references_for(steps: list[Step], final: Step, hits: list[Hit]) -> list[Reference]:
    """Documents of the leaves that the final step's subtree actually uses, in chunk order."""
    refs: dict[str, Reference] = {}
    for n in sorted(leaves(steps, final)):
        if 1 <= n <= len(hits):
            c = hits[n - 1].chunk
            refs.setdefault(c.doc_id, Reference.of(c))
    return list(refs.values())


def references_section(references: list[Reference], lang: str = "es") -> list[str]:
    """The reply's list of documents ("Referencias:" and one line per document; [] without references)."""
    if not references:
        return []
    return ["", t("references", lang)] + [f"- {r.title}" + (f": {r.url}" if r.url else "") for r in references]


def format_reply(body: str, references: list[Reference], lang: str = "es") -> str:
    """The student-facing reply: greeting, body, references, closing."""
    parts = [t("greeting", lang), "", body.strip(), *references_section(references, lang), "", t("closing", lang)]
    return "\n".join(parts)
