"""Training the offline drafter's unit ranker from the office's documents and its staff-approved answers; adopted only when better on held-out questions."""

from __future__ import annotations

import logging
from pathlib import Path

from sqlmodel import select

from bot.wiring.services import Services
from pipeline.generation.ranker_data import Labelled, build_pairs, split, synthetic_questions
from pipeline.generation.ranking import UnitRanker, fit, hits_at_1, paired_gain_ci, precision_at_1
from review.answer_models import CuratedAnswer
from review.db import session_scope

log = logging.getLogger(__name__)

MIN_REAL = 30  # held-out questions with a staff-approved answer needed to judge a ranker; it is adopted only when its paired gain's 95% interval is above 0


def ranker_path(services: Services) -> Path:
    return services.settings.paths.unit_ranker


def load_ranker(services: Services) -> UnitRanker | None:
    """The adopted ranker of this office, or None (the hand-weighted score)."""
    return UnitRanker.load(ranker_path(services))


def approved_questions(services: Services) -> list[Labelled]:
    """Staff-approved answers (active ones) as questions with the reply a person sent."""
    with session_scope(services.engine) as session:
        rows = session.exec(select(CuratedAnswer).where(CuratedAnswer.state == "active")).all()
        return [Labelled(a.question, "approved", reference=a.text) for a in rows if a.question and a.text]


def train_unit_ranker(services: Services, *, per_document: int = 40, extra: list[Labelled] | None = None) -> dict:
    """Fit on synthetic questions from the index's units and staff-approved answers; keep the model only when, on held-out
    staff-approved questions (at least MIN_REAL), its precision@1 beats the hand score's with a paired bootstrap interval above 0."""
    chunks = [c for c, _ in services.index.all_chunks()]
    if not chunks:
        return {"adopted": False, "reason": "el índice está vacío"}
    gen = services.generator("extractive") if services.llm is None else _offline(services)
    gen.ranker = None
    r = services.settings.retrieval
    retrieve = lambda q: services.retriever.retrieve(q, r.k, support=r.support_chunks)  # noqa: E731
    items = synthetic_questions(chunks, per_document=per_document) + approved_questions(services) + list(extra or [])
    rows = [{"question": x.question, "item": x} for x in items]
    train_rows, held_rows = split(rows, held_out=0.25)
    train = build_pairs(gen, retrieve, [x["item"] for x in train_rows])
    held = build_pairs(gen, retrieve, [x["item"] for x in held_rows])
    report: dict = {"train_questions": len(train), "held_out_questions": len(held), "sources": _count(items)}
    try:
        model = fit(train)
    except ValueError as exc:
        return report | {"adopted": False, "reason": str(exc)}
    hand, n = precision_at_1(None, held)
    learned, _ = precision_at_1(model, held)
    # Adoption is judged on questions people asked (staff-approved answers), never on synthetic ones: on fiusac a ranker
    # that won on synthetic questions lost on real ones (benchmarks/results/unit_ranking.json).
    real = [p for p in held if p.source != "synthetic"]
    h_real, l_real = hits_at_1(None, real), hits_at_1(model, real)
    gain, lo, hi = paired_gain_ci(l_real, h_real)
    report |= {
        "precision_at_1_hand": round(hand, 4), "precision_at_1_learned": round(learned, 4), "held_out_counted": n,
        "real_held_out_counted": len(h_real), "real_gain": round(gain, 4), "real_gain_ci95": [round(lo, 4), round(hi, 4)],
    }
    path = ranker_path(services)
    if len(h_real) >= MIN_REAL and lo > 0.0:
        model.meta |= {k: v for k, v in report.items() if k != "sources"}
        model.save(path)
        report |= {"adopted": True, "path": str(path)}
    else:
        if path.exists():
            path.unlink()  # a model not measured better than the hand score is never used
        why = "pocas respuestas aprobadas para medirlo" if len(h_real) < MIN_REAL else "no supera al puntaje manual en las preguntas reales reservadas"
        report |= {"adopted": False, "reason": why}
    gen.ranker = load_ranker(services)
    return report


def _offline(services: Services):
    import pipeline.generation.extractive  # noqa: F401  (registers the generator: `gate train` may run before any draft)
    from pipeline.generation import GENERATORS

    return GENERATORS["extractive"](lang=services.settings.llm.language, index=services.index, embedder=services.embedder)


def _count(items: list[Labelled]) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x.source] = out.get(x.source, 0) + 1
    return out
