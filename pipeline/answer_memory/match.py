"""Matching a new question against approved ones: embedding similarity plus lexical agreement (pure functions)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.generation.lexical import keys
from pipeline.text import tokens

# What a question asks for; two questions asking for different kinds of facts need different answers.
ASKS = {
    "when": ("cuando", "plazo", "plazos", "fecha", "fechas", "dia", "dias", "mes", "meses", "abre", "cierra", "vence", "convocatoria"),
    "cost": ("cuesta", "cuestan", "costo", "costos", "pagar", "paga", "pago", "gratis", "gratuita", "gratuito", "precio", "matricula", "arancel"),
    "duration": ("dura", "duracion", "demora", "tarda", "tardan", "demoran"),
    "who": ("quien", "quienes"),
    "where": ("donde",),
    "what_if": ("reprobe", "pierdo", "pasa"),
}
MONTHS = frozenset("enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre".split())


def asks(text: str) -> frozenset[str]:
    words = set(tokens(text))
    return frozenset(kind for kind, cues in ASKS.items() if words & set(cues))


def specifics(text: str) -> frozenset[str]:
    """Numbers and months: a question about July is not a question about February."""
    return frozenset(w for w in tokens(text) if w.isdigit() or w in MONTHS)


def lexical_agreement(a: str, b: str) -> float:
    """Jaccard overlap of the content-word keys of two questions."""
    ka, kb = set(keys(a)), set(keys(b))
    return len(ka & kb) / len(ka | kb) if ka | kb else 0.0


def conflicts(a: str, b: str) -> list[str]:
    """Why two close questions still need different answers (empty when nothing says so)."""
    out = []
    asks_a, asks_b = asks(a), asks(b)
    if asks_a and asks_b and not asks_a & asks_b:
        out.append(f"asks {'/'.join(sorted(asks_a))} vs {'/'.join(sorted(asks_b))}")
    spec_a, spec_b = specifics(a), specifics(b)
    if spec_a != spec_b and (spec_a and spec_b):
        out.append(f"different specifics {sorted(spec_a ^ spec_b)}")
    return out


@dataclass(frozen=True)
class MatchThresholds:
    """Calibrated for precision on the dev half of benchmarks/data/answer_reuse.json (benchmarks/answer_memory.py)."""

    similarity: float = 0.94
    lexical: float = 0.40
    strong_similarity: float = 0.98  # this close, a lower lexical agreement is enough


@dataclass(frozen=True)
class Match:
    index: int
    similarity: float
    lexical: float


def candidates(question: str, question_vec: np.ndarray, approved: list[str], vectors: np.ndarray, floor: float) -> list[Match]:
    """Approved questions at least `floor` similar and not in conflict, closest first (for a check by an LLM)."""
    if not approved:
        return []
    sims = vectors @ question_vec
    out = []
    for i in np.argsort(-sims, kind="stable"):
        if float(sims[i]) < floor:
            break
        if not conflicts(question, approved[i]):
            out.append(Match(index=int(i), similarity=float(sims[i]), lexical=lexical_agreement(question, approved[i])))
    return out


def best_match(question: str, question_vec: np.ndarray, candidates: list[str], vectors: np.ndarray, thresholds: MatchThresholds) -> Match | None:
    """The closest approved question that is close enough in meaning and in words and asks for the same thing, or None."""
    if not candidates:
        return None
    sims = vectors @ question_vec
    for i in np.argsort(-sims, kind="stable"):
        sim = float(sims[i])
        if sim < thresholds.similarity:
            break
        lex = lexical_agreement(question, candidates[i])
        if (lex >= thresholds.lexical or sim >= thresholds.strong_similarity) and not conflicts(question, candidates[i]):
            return Match(index=int(i), similarity=sim, lexical=lex)
    return None
