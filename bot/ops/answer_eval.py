"""`orienta eval answers`: run the pipeline over a question/reference set for a grid of configurations, judge, compare."""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

from sqlmodel import Session

from bot.wiring.services import Services
from pipeline.texts import t
from review import metrics
from review.evaluation_models import AnswerEvalCache
from review.judge import Judge, judge_from_settings

log = logging.getLogger(__name__)
OFFLINE_NOTE = "Sin LLM: ambos métodos corren el motor extractivo; 'correctness' es el F1 por palabras contra la respuesta de referencia y 'faithfulness' la proporción de palabras de la respuesta presentes en los extractos (no son el juez)."


@dataclass(frozen=True)
class Config:
    """One point of the grid; effort and temperature None mean "as configured" (and are sent only where the model accepts them)."""

    method: str
    k: int
    chunking: str
    effort: str | None = None
    temperature: float | None = None

    @property
    def label(self) -> str:
        extra = (f" effort={self.effort}" if self.effort else "") + (f" T={self.temperature:g}" if self.temperature is not None else "")
        return f"{self.method} k={self.k} {self.chunking}{extra}"

    def as_dict(self) -> dict:
        return {"method": self.method, "k": self.k, "chunking": self.chunking, "effort": self.effort, "temperature": self.temperature}


def grid(*, methods: Sequence[str], ks: Sequence[int], chunkings: Sequence[str], efforts: Sequence[str | None] = (None,), temperatures: Sequence[float | None] = (None,)) -> list[Config]:
    return [Config(m, k, c, e, tmp) for c, m, k, e, tmp in itertools.product(chunkings, methods, ks, efforts, temperatures)]


def impossible(llm, config: Config) -> str | None:
    """Why `llm` cannot run this grid cell (a request the API would refuse), or None when it can."""
    if llm is None:  # offline: the extractive engine ignores effort and temperature
        return None
    info = getattr(llm, "info", None)
    if info is None:  # OpenAI-compatible servers: temperature yes, effort is a Claude parameter
        return f"{llm.model} has no effort parameter" if config.effort else None
    if config.temperature is not None and not info.sampling:
        return f"{llm.model} does not accept sampling parameters (temperature)"
    if config.effort and config.effort not in info.effort:
        return f"{llm.model} does not accept effort={config.effort}" + (f" (accepts {', '.join(info.effort)})" if info.effort else " (no effort parameter)")
    return None


def answer_body(text: str, lang: str = "es") -> str:
    """The reply without greeting, reference list and closing (what is compared to a reference)."""
    body = text
    greeting, refs, closing = t("greeting", lang), t("references", lang), t("closing", lang)
    if body.startswith(greeting):
        body = body[len(greeting):]
    body = body.split(closing)[0]
    body = re.sub(rf"(?:^|\n){re.escape(refs)}\n(?:- [^\n]*(?:\n|$))*", "\n", body)  # every reference list (a reply to several questions has one per answer)
    return body.strip()


def _key(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _index_fingerprint(services: Services) -> str:
    docs = services.index.documents()
    return _key({k: [d.get("content_hash"), d.get("chunks"), d.get("active", True)] for k, d in sorted(docs.items())})[:16]


def evaluate_one(services: Services, row: dict, judge: Judge | None) -> dict:
    """Answer one question through the pipeline and measure it against its reference answer."""
    out, calls = answer_one(services, row, judge)
    if calls:
        judge_one(out, judge, calls)  # type: ignore[arg-type]
    return out


def answer_one(services: Services, row: dict, judge: Judge | None, *, memory: bool = True) -> tuple[dict, list]:
    """The answer and its non-LLM measures, and the judge calls still to make (correctness, faithfulness)."""
    from bot.loop.drafting import draft_for
    from pipeline.generation.readiness import readiness_of

    question, reference = row["question"], row.get("answer") or ""
    gold = row.get("doc")
    gold = set(gold if isinstance(gold, list) else [gold] if gold else [])
    answer, decision = draft_for(services, question, memory=memory)
    in_domain = decision.in_domain if decision is not None else None
    lang = services.settings.llm.language
    body = answer_body(answer.text, lang)
    chunks = [h.chunk.text for h in answer.hits]
    out = {
        "answered": not answer.no_info and in_domain is not False and answer.outcome != "refusal",
        "in_domain": in_domain,
        "ran": answer.model if answer.model.startswith(answer.method) else f"{answer.method} ({answer.model})",
        "outcome": answer.outcome,
        "latency_ms": round(answer.latency_ms, 1),
        "cost_usd": answer.cost_usd,
        "doc_hit": bool(gold & ({r.doc_id for r in answer.references} | {h.chunk.doc_id for h in answer.hits})) if gold else None,
        "token_f1": round(metrics.token_f1(body, reference), 4),
        "edit_distance": round(metrics.edit_distance(body, reference), 4),
        "grounding": round(metrics.token_precision(body, " ".join(chunks)), 4),
        "answer": answer.text,
        "method": answer.method,
        "references": [r.doc_id for r in answer.references],
        "readiness": (readiness_of(answer.flags) or {}).get("flag"),
        "kind": question_kind(row, answer, plan_documents(services)),
    }
    if judge is None:
        return out, []
    return out, [judge.correctness_call(question=question, answer=answer.text, reference=reference), judge.faithfulness_call(answer=answer.text, chunks=chunks)]


COURSE_PLAN, RULES = "course_plan", "rules_procedures"


def plan_documents(services: Services) -> frozenset[str]:
    """Documents that hold course records (study plans): the ones whose records carry a code."""
    cached = services.__dict__.get("_plan_documents")
    if cached is None:
        from pipeline.generation.records import RecordBook

        book = RecordBook.build([c for c, _ in services.index.all_chunks()]) if services.index.exists() else None
        cached = services.__dict__["_plan_documents"] = frozenset(book.by_code) if book else frozenset()
    return cached


def question_kind(row: dict, answer, plans: frozenset[str]) -> str:
    """A row's own 'kind', else a course-plan lookup when its expected document (or, without one, the draft's first source) is a study plan."""
    if row.get("kind"):
        return str(row["kind"])
    gold = row.get("doc")
    docs = gold if isinstance(gold, list) else [gold] if gold else [r.doc_id for r in answer.references[:1]]
    return COURSE_PLAN if docs and all(d in plans for d in docs) else RULES


def judge_one(out: dict, judge: Judge, calls: list) -> None:
    c, f = judge.judge(calls[0]), judge.judge(calls[1])
    out["judge"] = {"correctness": c.as_dict(), "faithfulness": f.as_dict()}
    out["cost_usd"] += c.cost_usd + f.cost_usd


def detail_line(config: Config, row: dict, result: dict, lang: str = "es") -> dict:
    """One line of `--details`: the question, its draft and the figures behind the averages."""
    figures = {k: v for k, v in result.items() if k not in ("answer", "method", "references")}
    return {
        "config": config.label,
        "question": row["question"],
        "draft": answer_body(result.get("answer") or "", lang),
        "method": result.get("method"),
        "references": result.get("references"),
        "expected_doc": row.get("doc"),
        **figures,
    }


def summarise(config: Config, results: Sequence[dict], *, judged: bool) -> dict:
    """The per-configuration figures of the comparison table, and the same figures per question kind."""
    row = _figures(config, results, judged=judged)
    kinds = sorted({r.get("kind") for r in results if r.get("kind")})
    row["by_kind"] = {k: _figures(config, [r for r in results if r.get("kind") == k], judged=judged) for k in kinds}
    return row


def _figures(config: Config, results: Sequence[dict], *, judged: bool) -> dict:
    n = len(results)
    answered = [r for r in results if r["answered"]]
    row = {"label": config.label, **config.as_dict(), "n": n, "ran": sorted({r["ran"] for r in results}), "judged": judged}
    row["answered_rate"] = metrics.rate(len(answered), n)
    hits = [r["doc_hit"] for r in results if r["doc_hit"] is not None]
    row["doc_hit_rate"] = metrics.rate(sum(hits), len(hits))
    row["token_f1"] = fmean(r["token_f1"] for r in results) if results else None
    row["edit_distance"] = fmean(r["edit_distance"] for r in results) if results else None
    row["latency_ms_p50"] = metrics.percentile([r["latency_ms"] for r in results], 50)
    row["cost_usd"] = round(sum(r["cost_usd"] for r in results), 6)
    if judged:
        verdicts = [r["judge"]["correctness"] for r in results]
        scored = [v["score"] for v in verdicts if v["status"] == "scored"]
        row["not_scored"] = len(verdicts) - len(scored)
        row["distribution"] = {str(s): Counter(int(x) for x in scored).get(s, 0) for s in range(1, 6)}
        row["acceptable_rate"] = metrics.rate(sum(metrics.acceptable(x) for x in scored), len(scored))
        among = [r["judge"]["correctness"]["score"] for r in answered if r["judge"]["correctness"]["status"] == "scored"]
        row["correctness"] = metrics.rate(sum(metrics.acceptable(x) for x in among), len(among))
        faith = [r["judge"]["faithfulness"]["score"] for r in answered if r["judge"]["faithfulness"]["status"] == "scored"]
        row["faithfulness"] = fmean(faith) if faith else None
        row["spread_max"] = max((r["judge"]["correctness"]["spread"] or 0 for r in results if r["judge"]["correctness"]["status"] == "scored"), default=None)
    else:
        row["acceptable_rate"], row["distribution"], row["not_scored"] = None, None, None
        row["correctness"] = fmean(r["token_f1"] for r in answered) if answered else None
        row["faithfulness"] = fmean(r["grounding"] for r in answered) if answered else None
    row["total"] = row["correctness"] * row["answered_rate"] if row["correctness"] is not None and row["answered_rate"] is not None else None
    ready = [r for r in results if r.get("readiness")]
    row["ready_rate"] = metrics.rate(sum(r["readiness"] == "listo" for r in ready), len(ready)) if ready else None
    return row


def approved_rows(services: Services) -> list[dict]:
    """Staff-approved answers (active) as an evaluation set: the question, the reply staff sent, the documents it cites."""
    from sqlmodel import select

    from review.answer_models import CuratedAnswer
    from review.db import session_scope

    with session_scope(services.engine) as session:
        rows = session.exec(select(CuratedAnswer).where(CuratedAnswer.state == "active").order_by(CuratedAnswer.id)).all()
        return [{"question": a.question, "answer": a.text, "doc": [r["doc_id"] for r in a.references or [] if r.get("doc_id")] or None} for a in rows if a.question and a.text]


def _services_for(base: Services, chunking: str, docs: Sequence[Path] | None) -> Services:
    s = base.settings.model_copy(deep=True)
    if chunking != base.settings.retrieval.chunking:
        s.qdrant.collection = f"{base.settings.qdrant.collection}__{chunking}"
    s.retrieval.chunking = chunking
    if docs:
        s.paths.documents = list(docs)
    svc = Services(s, batch_runner_factory=base.batch_runner_factory)
    svc.__dict__["embedder"] = base.embedder  # share the loaded model (cached_property slot)
    return svc


def evaluate_answers(
    base: Services,
    qa: Sequence[dict],
    configs: Sequence[Config],
    *,
    docs: Sequence[Path] | None = None,
    progress: Callable[[str], None] = lambda _m: None,
    details: Callable[[dict], None] | None = None,
    memory: bool = True,
) -> dict:
    """Every configuration over every question; cached per (question, configuration, index, generator, judge); memory=False drafts without approved-answer reuse."""
    from bot.ops.documents import ingest_documents

    rows, impossible_cells, computed, cached = [], [], 0, 0
    engine = base.engine
    base.close()  # the local index allows one client per folder: release it for the per-chunking services
    for chunking, group in itertools.groupby(sorted(configs, key=lambda c: c.chunking), key=lambda c: c.chunking):
        svc = _services_for(base, chunking, docs)
        try:
            if not svc.index.documents():
                progress(f"indexando con chunking={chunking}…")
                ingest_documents(svc, strategy=chunking)
            fingerprint = _index_fingerprint(svc)
            configured = (getattr(svc.llm, "effort", None), getattr(svc.llm, "temperature", None))
            for config in group:
                why = impossible(svc.llm, config)
                if why is not None:  # reported, never sent
                    impossible_cells.append({"label": config.label, **config.as_dict(), "status": "impossible", "reason": why})
                    progress(f"{config.label}: imposible ({why})")
                    continue
                svc.settings.llm.method, svc.settings.retrieval.k = config.method, config.k  # type: ignore[assignment]
                if svc.llm is not None:
                    svc.llm.effort = config.effort or configured[0]  # type: ignore[attr-defined]
                    svc.llm.temperature = config.temperature if config.temperature is not None else configured[1]  # type: ignore[attr-defined]
                judge = judge_from_settings(svc.settings, svc.judge_llm, batch=svc.batch_runner(svc.judge_llm))
                generator = svc.generator()
                effective = config.as_dict() | {"effort": getattr(svc.llm, "effort", None), "temperature": getattr(svc.llm, "temperature", None)}
                if generator.name == "extractive":  # offline the method, effort and temperature change nothing: share the cache
                    effective |= {"method": None, "effort": None, "temperature": None}
                ident = {"config": effective, "index": fingerprint, "generator": [generator.name, getattr(getattr(generator, "llm", None), "model", None), getattr(getattr(generator, "prompt", None), "hash", None)], "judge": judge.model if judge else None, "judge_runs": judge.runs if judge else 0, "memory": memory, "ranker": getattr(getattr(generator, "ranker", None), "meta", None)}
                results: list[dict | None] = []
                pending: list[tuple[int, str, dict, dict, list]] = []
                for i, row in enumerate(qa, start=1):
                    key = _key(ident | {"q": row["question"], "ref": row.get("answer"), "doc": row.get("doc")})
                    with Session(engine) as session:
                        hit = session.get(AnswerEvalCache, key)
                        if hit is not None:
                            results.append(hit.result)
                            cached += 1
                            if details is not None:
                                details(detail_line(config, row, hit.result, svc.settings.llm.language))
                            continue
                    result, calls = answer_one(svc, row, judge, memory=memory)
                    results.append(result)
                    if calls:
                        pending.append((len(results) - 1, key, row, result, calls))
                    else:
                        _store_result(engine, key, ident, row, result)  # committed per question: an interrupted run resumes here
                    computed += 1
                    if details is not None:
                        details(detail_line(config, row, result, svc.settings.llm.language))
                    if i % 25 == 0:
                        progress(f"{config.label}: {i}/{len(qa)}")
                if judge is not None and pending:  # many questions: the judge runs as one Message Batch (half price)
                    judge.prefetch([c for *_, calls in pending for c in calls], job="eval-answers")
                    for _, key, row, result, calls in pending:
                        judge_one(result, judge, calls)
                        _store_result(engine, key, ident, row, result)
                rows.append(summarise(config, [r for r in results if r is not None], judged=judge is not None))
        finally:
            svc.close()
    offline = not any(r["judged"] for r in rows)
    return {"configs": rows, "impossible": impossible_cells, "n_questions": len(qa), "computed": computed, "cached": cached, "note": OFFLINE_NOTE if offline else None}


def _store_result(engine, key: str, ident: dict, row: dict, result: dict) -> None:
    with Session(engine) as session:
        session.merge(AnswerEvalCache(key=key, config=ident, question=row["question"], result=result))
        session.commit()
