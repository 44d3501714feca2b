"""The LLM judge: correctness against the reply staff sent, faithfulness and relevance without one."""

from __future__ import annotations

import hashlib
import logging
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from pipeline.errors import LLMError
from pipeline.llm import LLM, Usage
from review.evaluation_models import CORRECTNESS, FAITHFULNESS, NOT_SCORED, RELEVANCE, SCORED
from review.prompts import load_judge_prompt

log = logging.getLogger(__name__)

class ScoreReply(BaseModel):
    """Justificación y puntaje de 1 a 5."""

    justificacion: str = Field(description="Justificación breve, escrita antes del puntaje.")
    puntaje: int = Field(ge=1, le=5, description="Puntaje entero de 1 a 5.")


class Claim(BaseModel):
    texto: str
    respaldada: bool


class ClaimsReply(BaseModel):
    """Las afirmaciones de la respuesta y si los extractos las respaldan."""

    justificacion: str
    afirmaciones: list[Claim]


@dataclass(frozen=True)
class JudgeCall:
    """One judgement to make: which dimension, with which prompt and user message."""

    kind: str
    prompt_name: str
    user: str

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{self.prompt_name}\n{self.user}".encode("utf-8")).hexdigest()[:40]


SCHEMAS = {CORRECTNESS: ScoreReply, RELEVANCE: ScoreReply, FAITHFULNESS: ClaimsReply}


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
        raise Unparseable("no JSON object in the reply")
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
        raise Unparseable("no JSON object in the reply")
    claims = data.get("afirmaciones")
    if not isinstance(claims, list) or not all(isinstance(c, dict) and isinstance(c.get("respaldada"), bool) for c in claims):
        raise Unparseable("afirmaciones must be a list of {texto, respaldada: bool}")
    why = data.get("justificacion") if isinstance(data.get("justificacion"), str) else ""
    clean = [{"texto": str(c.get("texto", "")), "respaldada": c["respaldada"]} for c in claims]
    # An answer with no factual claims (e.g. "no tengo información") asserts nothing unsupported.
    score = sum(c["respaldada"] for c in clean) / len(clean) if clean else 1.0
    return score, why.strip(), clean


PARSERS = {CORRECTNESS: _score_input, RELEVANCE: _score_input, FAITHFULNESS: _claims_input}


class Judge:
    """Scores answers with an LLM through structured outputs, retrying unparseable output.

    With a batch runner, `prefetch(calls)` sends the first attempt of many judgements through the
    Message Batches API (half price) when there are more than `batch_min` of them; the verdict
    methods then use those replies and call the model synchronously only for retries.
    """

    def __init__(
        self,
        *,
        llm: LLM,
        prices: dict[str, float] | None = None,
        batch_prices: dict[str, float] | None = None,
        runs: int = 1,
        retries: int = 2,
        temperature: float | None = None,
        max_tokens: int = 2048,  # room for adaptive thinking before the verdict
        batch=None,
        batch_min: int = 20,
    ) -> None:
        if runs < 1 or retries < 0:
            raise ValueError("runs must be >= 1 and retries >= 0")
        self.llm, self.prices, self.runs, self.retries = llm, prices, runs, retries
        self.batch_prices = batch_prices if batch_prices is not None else prices
        self.temperature, self.max_tokens = temperature, max_tokens
        self.batch, self.batch_min = batch, batch_min
        self._prefetched: dict[str, Any] = {}

    @property
    def model(self) -> str:
        return self.llm.model

    # -- the calls -------------------------------------------------------------------
    @staticmethod
    def correctness_call(*, question: str, answer: str, reference: str) -> JudgeCall:
        return JudgeCall(CORRECTNESS, "judge_correctness", f"<pregunta>\n{question}\n</pregunta>\n\n<respuesta>\n{answer}\n</respuesta>\n\n<referencia>\n{reference}\n</referencia>")

    @staticmethod
    def relevance_call(*, question: str, answer: str) -> JudgeCall:
        return JudgeCall(RELEVANCE, "judge_relevance", f"<pregunta>\n{question}\n</pregunta>\n\n<respuesta>\n{answer}\n</respuesta>")

    @staticmethod
    def faithfulness_call(*, answer: str, chunks: Sequence[str]) -> JudgeCall:
        extracts = "\n\n".join(f"[{i}] {c}" for i, c in enumerate(chunks, start=1)) or "(sin extractos)"
        return JudgeCall(FAITHFULNESS, "judge_faithfulness", f"<extractos>\n{extracts}\n</extractos>\n\n<respuesta>\n{answer}\n</respuesta>")

    def correctness(self, *, question: str, answer: str, reference: str) -> Verdict:
        """1-5 correctness of `answer` against the reply staff sent."""
        return self.judge(self.correctness_call(question=question, answer=answer, reference=reference))

    def relevance(self, *, question: str, answer: str) -> Verdict:
        """1-5 relevance of `answer` to `question`, reference-free."""
        return self.judge(self.relevance_call(question=question, answer=answer))

    def faithfulness(self, *, answer: str, chunks: Sequence[str]) -> Verdict:
        """Share (0-1) of the answer's claims supported by the retrieved chunks, reference-free."""
        return self.judge(self.faithfulness_call(answer=answer, chunks=chunks))

    # -- batches ---------------------------------------------------------------------
    def _request(self, call: JudgeCall) -> dict[str, Any]:
        prompt = load_judge_prompt(call.prompt_name)
        return self.llm.request(system=prompt.text, user=call.user, schema=SCHEMAS[call.kind], max_tokens=self.max_tokens, temperature=self.temperature)  # type: ignore[attr-defined]

    def prefetch(self, calls: Sequence[JudgeCall], *, job: str = "judge") -> int:
        """Send the first attempt of each call (x runs) as one Message Batch when there are more than batch_min; returns how many were batched."""
        n = len(calls) * self.runs
        if self.batch is None or n <= self.batch_min or not hasattr(self.llm, "request"):
            return 0
        from pipeline.llm.batches import BatchItem

        items, seen = [], set()
        for call in calls:
            for run in range(self.runs):
                cid = f"{call.key}-{run}"
                if cid not in seen and cid not in self._prefetched:
                    seen.add(cid)
                    items.append(BatchItem(custom_id=cid, params=self._request(call)))
        if not items:
            return 0
        name = f"{job}-{hashlib.sha256(' '.join(sorted(seen)).encode()).hexdigest()[:16]}"
        try:
            outcomes = self.batch.run(name, items)
        except Exception as exc:  # noqa: BLE001 - a failed batch must not lose the week's judging: fall back to synchronous calls
            log.warning("judge batch %s failed (%s); judging synchronously", name, exc)
            return 0
        got = 0
        for cid, out in outcomes.items():
            if out.status == "succeeded" and out.message is not None:
                self._prefetched[cid] = self.llm.response(out.message, batch=True, structured=True)  # type: ignore[attr-defined]
                got += 1
            else:
                log.info("judge batch item %s: %s %s", cid, out.status, out.error or "")
        return got

    # -- judging ---------------------------------------------------------------------
    def judge(self, call: JudgeCall) -> Verdict:
        prompt = load_judge_prompt(call.prompt_name)
        verdict = Verdict(kind=call.kind, status=NOT_SCORED, model=self.llm.model, prompt_hash=prompt.hash)
        for run in range(self.runs):
            got = self._one_run(verdict, prompt.text, call, run)
            if got is not None:
                score, why, claims = got
                verdict.runs.append(score)
                if verdict.justification is None:
                    verdict.justification, verdict.claims = why, claims
        if verdict.runs:  # runs that never parsed are left out of the median; the error says why
            verdict.status = SCORED
            verdict.score = statistics.median(verdict.runs)
            verdict.spread = max(verdict.runs) - min(verdict.runs)
            if len(verdict.runs) == self.runs:
                verdict.error = None
        return verdict

    def _one_run(self, verdict: Verdict, system: str, call: JudgeCall, run: int):
        parse = PARSERS[call.kind]
        for attempt in range(self.retries + 1):
            verdict.attempts += 1
            resp = self._prefetched.get(f"{call.key}-{run}") if attempt == 0 else None  # identical judgements share one batched reply
            if resp is None:
                try:
                    resp = self.llm.complete(system=system, user=call.user, schema=SCHEMAS[call.kind], temperature=self.temperature, max_tokens=self.max_tokens)
                except LLMError as exc:
                    verdict.error = f"llm: {exc}"
                    log.warning("judge call failed: %s", exc)
                    continue
            verdict.usage = verdict.usage + resp.usage
            verdict.cost_usd += resp.usage.cost(self.batch_prices if resp.batch else self.prices)
            if resp.refused:
                verdict.error = "refused: the model declined to judge"
                continue
            if resp.outcome != "ok":
                verdict.error = f"unparseable: the reply ended early ({resp.stop_reason})"
                continue
            try:
                return parse(resp.data)
            except Unparseable as exc:
                verdict.error = f"unparseable: {exc}"
                log.info("judge output unparseable (%s); retrying", exc)
        return None


def judge_from_settings(settings, llm: LLM | None, *, batch=None) -> Judge | None:
    """A judge for the configured LLM (the judge role's model), or None offline (the non-LLM measures take its place)."""
    if llm is None:
        return None
    from pipeline.llm import prices_for

    return Judge(
        llm=llm,
        prices=prices_for(settings.llm, llm.model),
        batch_prices=prices_for(settings.llm, llm.model, batch=True),
        runs=settings.digest.judge_runs,
        retries=settings.digest.judge_retries,
        temperature=settings.digest.judge_temperature,
        batch=batch,
        batch_min=settings.llm.batch_min_items,
    )


def offline_measures(*, draft: str, sent: str | None) -> dict[str, float | bool | None]:
    """The non-LLM stand-ins for the judge: edit distance and token F1 to the sent reply, sent unchanged."""
    from review.metrics import edit_distance, token_f1

    if sent is None:
        return {"edit_distance": None, "token_f1": None, "unchanged": None}
    if sent.strip() == draft.strip():
        return {"edit_distance": 0.0, "token_f1": 1.0, "unchanged": True}
    distance = edit_distance(draft, sent)
    return {"edit_distance": distance, "token_f1": token_f1(draft, sent), "unchanged": distance == 0}
