"""The LLM judge: correctness against the reply staff sent, faithfulness and relevance without one."""

from __future__ import annotations

import hashlib
import logging
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.errors import LLMError
from pipeline.llm import LLM, Usage
from review.evaluation_models import CORRECTNESS, FAITHFULNESS, NOT_SCORED, RELEVANCE, SCORED
from review.prompts import load_judge_prompt

log = logging.getLogger(__name__)

SCORE_TOOL = {
    "name": "calificar",
    "description": "Registra la justificación y el puntaje de 1 a 5.",
    "input_schema": {
        "type": "object",
        "properties": {
            "justificacion": {"type": "string", "description": "Justificación breve, escrita antes del puntaje."},
            "puntaje": {"type": "integer", "minimum": 1, "maximum": 5},
        },
        "required": ["justificacion", "puntaje"],
    },
}
CLAIMS_TOOL = {
    "name": "verificar",
    "description": "Registra las afirmaciones de la respuesta y si los extractos las respaldan.",
    "input_schema": {
        "type": "object",
        "properties": {
            "justificacion": {"type": "string"},
            "afirmaciones": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"texto": {"type": "string"}, "respaldada": {"type": "boolean"}},
                    "required": ["texto", "respaldada"],
                },
            },
        },
        "required": ["justificacion", "afirmaciones"],
    },
}


class Unparseable(ValueError):
    """The judge's output does not fit the schema."""


@dataclass
class Verdict:
    """One dimension of one answer: a score, or 'not scored' with the reason — never NaN."""

    kind: str
    status: str
    score: float | None = None
    justification: str | None = None
    runs: list[float] = field(default_factory=list)
    spread: float | None = None
    claims: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    error: str | None = None
    model: str | None = None
    prompt_hash: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0

    @property
    def scored(self) -> bool:
        return self.status == SCORED

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "status": self.status,
            "score": self.score,
            "justification": self.justification,
            "runs": self.runs,
            "spread": self.spread,
            "claims": self.claims,
            "attempts": self.attempts,
            "error": self.error,
            "model": self.model,
            "cost_usd": self.cost_usd,
        }


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _score_input(data: dict[str, Any] | None) -> tuple[float, str, list[dict]]:
    if not isinstance(data, dict):
        raise Unparseable("no tool call in the reply")
    score, why = data.get("puntaje"), data.get("justificacion")
    if isinstance(score, str) and score.strip().isdigit():
        score = int(score.strip())
    if isinstance(score, bool) or not isinstance(score, (int, float)) or score != int(score) or not 1 <= score <= 5:
        raise Unparseable(f"puntaje must be an integer 1-5, got {score!r}")
    if not isinstance(why, str) or not why.strip():
        raise Unparseable("missing justificacion")
    return float(int(score)), why.strip(), []


def _claims_input(data: dict[str, Any] | None) -> tuple[float, str, list[dict]]:
    if not isinstance(data, dict):
        raise Unparseable("no tool call in the reply")
    claims = data.get("afirmaciones")
    if not isinstance(claims, list) or not all(isinstance(c, dict) and isinstance(c.get("respaldada"), bool) for c in claims):
        raise Unparseable("afirmaciones must be a list of {texto, respaldada: bool}")
    why = data.get("justificacion") if isinstance(data.get("justificacion"), str) else ""
    clean = [{"texto": str(c.get("texto", "")), "respaldada": c["respaldada"]} for c in claims]
    # An answer with no factual claims (e.g. "no tengo información") asserts nothing unsupported.
    score = sum(c["respaldada"] for c in clean) / len(clean) if clean else 1.0
    return score, why.strip(), clean


class Judge:
    """Scores answers with an LLM through a forced tool call, retrying unparseable output."""

    def __init__(self, *, llm: LLM, prices: dict[str, float] | None = None, runs: int = 1, retries: int = 2, temperature: float = 0.0, max_tokens: int = 1024) -> None:
        if runs < 1 or retries < 0:
            raise ValueError("runs must be >= 1 and retries >= 0")
        self.llm, self.prices, self.runs, self.retries = llm, prices, runs, retries
        self.temperature, self.max_tokens = temperature, max_tokens

    @property
    def model(self) -> str:
        return self.llm.model

    def correctness(self, *, question: str, answer: str, reference: str) -> Verdict:
        """1-5 correctness of `answer` against the reply staff sent."""
        user = f"<pregunta>\n{question}\n</pregunta>\n\n<respuesta>\n{answer}\n</respuesta>\n\n<referencia>\n{reference}\n</referencia>"
        return self._judge(CORRECTNESS, "judge_correctness", user, SCORE_TOOL, _score_input)

    def relevance(self, *, question: str, answer: str) -> Verdict:
        """1-5 relevance of `answer` to `question`, reference-free."""
        user = f"<pregunta>\n{question}\n</pregunta>\n\n<respuesta>\n{answer}\n</respuesta>"
        return self._judge(RELEVANCE, "judge_relevance", user, SCORE_TOOL, _score_input)

    def faithfulness(self, *, answer: str, chunks: Sequence[str]) -> Verdict:
        """Share (0-1) of the answer's claims supported by the retrieved chunks, reference-free."""
        extracts = "\n\n".join(f"[{i}] {c}" for i, c in enumerate(chunks, start=1)) or "(sin extractos)"
        user = f"<extractos>\n{extracts}\n</extractos>\n\n<respuesta>\n{answer}\n</respuesta>"
        return self._judge(FAITHFULNESS, "judge_faithfulness", user, CLAIMS_TOOL, _claims_input)

    def _judge(self, kind: str, prompt_name: str, user: str, tool: dict, parse) -> Verdict:
        prompt = load_judge_prompt(prompt_name)
        verdict = Verdict(kind=kind, status=NOT_SCORED, model=self.llm.model, prompt_hash=prompt.hash)
        for _ in range(self.runs):
            got = self._one_run(verdict, prompt.text, user, tool, parse)
            if got is not None:
                score, why, claims = got
                verdict.runs.append(score)
                if verdict.justification is None:
                    verdict.justification, verdict.claims = why, claims
        verdict.cost_usd = verdict.usage.cost(self.prices)
        if verdict.runs:  # runs that never parsed are left out of the median; the error says why
            verdict.status = SCORED
            verdict.score = statistics.median(verdict.runs)
            verdict.spread = max(verdict.runs) - min(verdict.runs)
            if len(verdict.runs) == self.runs:
                verdict.error = None
        return verdict

    def _one_run(self, verdict: Verdict, system: str, user: str, tool: dict, parse):
        for _ in range(self.retries + 1):
            verdict.attempts += 1
            try:
                resp = self.llm.complete(system=system, user=user, tool=tool, temperature=self.temperature, max_tokens=self.max_tokens)
            except LLMError as exc:
                verdict.error = f"llm: {exc}"
                log.warning("judge call failed: %s", exc)
                continue
            verdict.usage = verdict.usage + resp.usage
            if resp.tool_input is None and resp.stop_reason == "refusal":
                verdict.error = "refused: the model declined to judge"
                continue
            try:
                return parse(resp.tool_input)
            except Unparseable as exc:
                verdict.error = f"unparseable: {exc}"
                log.info("judge output unparseable (%s); retrying", exc)
        return None


def judge_from_settings(settings, llm: LLM | None) -> Judge | None:
    """A judge for the configured LLM, or None offline (the non-LLM measures take its place)."""
    if llm is None:
        return None
    prices = settings.llm.prices_per_mtok.get(llm.model)
    return Judge(llm=llm, prices=prices, runs=settings.digest.judge_runs, retries=settings.digest.judge_retries, temperature=settings.digest.judge_temperature)


def offline_measures(*, draft: str, sent: str | None) -> dict[str, float | bool | None]:
    """The non-LLM stand-ins for the judge: edit distance and token F1 to the sent reply, sent unchanged."""
    from review.metrics import edit_distance, token_f1

    if sent is None:
        return {"edit_distance": None, "token_f1": None, "unchanged": None}
    if sent.strip() == draft.strip():
        return {"edit_distance": 0.0, "token_f1": 1.0, "unchanged": True}
    distance = edit_distance(draft, sent)
    return {"edit_distance": distance, "token_f1": token_f1(draft, sent), "unchanged": distance == 0}
