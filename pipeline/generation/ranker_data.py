"""Labelled (question, units) pairs for the unit ranker: questions written from the documents' own units, and questions with an answer a person wrote."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.generation.asking import ask
from pipeline.generation.ranking import Pair, unit_gives
from pipeline.generation.selection import units_of, unit_types
from pipeline.index import Hit
from pipeline.text import STOPWORDS_ES, fold, stem, tokens
from pipeline.units import record_name

_ARTICLE = re.compile(r"^(?:art[ií]culo|art\.|cap[ií]tulo|secci[oó]n|t[ií]tulo)\s+\S+\s*[.:-]?\s*", re.IGNORECASE)

# A question for a unit by the kind of answer it gives (first match wins); {obj} is what the unit is about.
_TEMPLATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("consequence", ("¿Qué pasa si {obj}?", "¿Qué sanción hay por {obj}?")),
    ("amount", ("¿Cuánto cuesta {obj}?", "¿Cuánto hay que pagar por {obj}?")),
    ("date", ("¿Cuándo es {obj}?", "¿Cuál es el plazo para {obj}?")),
    ("time", ("¿En qué horario {obj}?",)),
    ("place", ("¿Dónde {obj}?", "¿En qué sitio web {obj}?")),
    ("role", ("¿Quién se encarga de {obj}?", "¿Quién autoriza {obj}?")),
    ("procedure", ("¿Cómo hago para {obj}?", "¿Cuáles son los pasos para {obj}?")),
    ("permission", ("¿Puedo {obj}?", "¿Se permite {obj}?")),
    ("requirement", ("¿Qué requisitos hay para {obj}?", "¿Qué necesito para {obj}?")),
    ("count", ("¿Cuántos {obj}?", "¿Cuál es el mínimo de {obj}?")),
)


@dataclass(frozen=True, slots=True)
class Labelled:
    """A question and how to tell the units that answer it: a unit text to match, or a reference answer to cover."""

    question: str
    source: str  # synthetic | dev | approved
    unit_text: str | None = None
    reference: str | None = None


def _object(unit, rng: random.Random) -> str:
    """What a unit is about, in a few words: its heading or lead-in, and some of its rarer words."""
    ctx = _ARTICLE.sub("", unit.context or "").strip(" :.-")
    words = [w for w in re.findall(r"[A-Za-zÁÉÍÓÚáéíóúñÑ]{5,}", unit.text) if w.lower() not in STOPWORDS_ES]
    rng.shuffle(words)
    picked = " ".join(words[:3]).lower()
    return " ".join(x for x in (ctx.lower()[:60], picked) if x).strip() or picked


def synthetic_questions(chunks: Sequence, *, per_document: int = 40, seed: int = 0) -> list[Labelled]:
    """Questions written from the units of each document (FAQ pairs ask their own question), with the unit that answers them."""
    rng = random.Random(seed)
    by_doc: dict[str, list] = {}
    for c in chunks:
        for u in units_of(c):
            if u.kind == "heading" or len(u.text.split()) < 4 and u.kind not in ("record", "row"):
                continue
            by_doc.setdefault(c.doc_id, []).append(u)
    out: list[Labelled] = []
    for doc in sorted(by_doc):
        units = by_doc[doc]
        rng.shuffle(units)
        for u in units[:per_document]:
            q = _question_for(u, rng)
            if q:
                out.append(Labelled(q, "synthetic", unit_text=u.text))
    return out


def _question_for(u, rng: random.Random) -> str | None:
    if u.kind == "faq" and u.context:
        return u.context
    if u.kind == "record":
        name = record_name(u)
        if not name:
            return None
        fields = " ".join(u.fields)
        options = [f"¿Qué información hay de {name}?"]
        if "prerre" in fields or "prere" in fields:
            options.append(f"¿Cuáles son los prerrequisitos de {name}?")
        if "credit" in fold(fields):
            options.append(f"¿Cuántos créditos tiene {name}?")
        return rng.choice(options)
    types, strong = unit_types(u.text)
    have, concrete = unit_gives(u.text, u.kind, u.context, strong, types)
    obj = _object(u, rng)
    if not obj:
        return None
    for kind, templates in _TEMPLATES:
        if kind in concrete:
            return rng.choice(templates).format(obj=obj)
    return f"¿Qué dice el reglamento sobre {obj}?"


def content_words(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w not in STOPWORDS_ES and len(w) > 2}


_FACT = re.compile(r"\d+(?:[.,]\d+)?")  # figures: an amount, a date, a count, a threshold, an article number
FACT_WEIGHT = 2.0  # a figure of the reference weighs as much as this many of its rarest words


def key_facts(reference: str, texts: Sequence[str]) -> dict[str, float]:
    """The reference's facts, each weighted by how well it tells the candidates apart: a word every candidate says
    (the topic the neighbours share) weighs little, a word few say (the named object, the condition) weighs much,
    a figure weighs most."""
    ref = content_words(reference)
    if not texts:
        return dict.fromkeys(ref, 1.0)
    df = Counter(k for t in texts for k in content_words(t) & ref)
    n = len(texts)
    weights = {k: math.log((n + 1) / (df.get(k, 0) + 0.5)) for k in ref}
    top = max(weights.values(), default=1.0)
    for figure in set(_FACT.findall(reference)):
        weights[f"#{figure}"] = FACT_WEIGHT * top
    return weights


def fact_recall(facts: dict[str, float], text: str) -> float:
    """Weighted share of the reference's facts a unit states (figures matched whole)."""
    total = sum(facts.values())
    if not total:
        return 0.0
    have = content_words(text) | {f"#{x}" for x in _FACT.findall(text)}
    return sum(w for k, w in facts.items() if k in have) / total


def labels_for(item: Labelled, cands, *, min_recall: float = 0.35, near_best: float = 0.8) -> np.ndarray | None:
    """1 for the candidates that answer the question, 0 for the others; None when none does (the question is not counted).

    With a reference answer, the units that state most of its key facts (see `key_facts`), not those that share most
    of its words: a neighbour shares the topic, the answer states the figure, the condition, the named object."""
    if item.unit_text is not None:
        y = np.array([c.unit.text == item.unit_text for c in cands], dtype=np.int8)
        return y if y.any() else None
    if len(content_words(item.reference or "")) < 3:
        return None
    texts = [f"{c.unit.context} {c.text}" if c.unit.kind == "item" else c.text for c in cands]
    facts = key_facts(item.reference or "", list(dict.fromkeys(texts)))
    rec = np.array([fact_recall(facts, t) for t in texts])
    best = float(rec.max(initial=0.0))
    if best < min_recall:
        return None
    return (rec >= near_best * best).astype(np.int8)


def build_pairs(generator, retrieve: Callable[[str], list[Hit]], items: Iterable[Labelled]) -> list[Pair]:
    """Each question's candidates as the extractive generator ranks them, with their features and labels."""
    out: list[Pair] = []
    for item in items:
        hits = retrieve(item.question)
        if not hits:
            continue
        weights, _ = generator.coverage(item.question, hits)
        asked = ask(item.question, generator.today)
        cands = generator.rank(item.question, hits, weights, asked)  # features hold the hand score, whichever ranker sorts
        if not cands:
            continue
        y = labels_for(item, cands)
        if y is None:
            continue
        out.append(Pair(generator.features(item.question, asked, cands, weights), y, item.source))
    return out


def split(rows: Sequence[dict], *, held_out: float = 0.5) -> tuple[list[dict], list[dict]]:
    """A fixed train / held-out split of question rows by a hash of the question (the same on every run)."""
    import hashlib

    train, test = [], []
    for r in rows:
        h = int(hashlib.sha256(f"unit-ranker:{r['question']}".encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF  # salted: unrelated to how the set itself was drawn
        (test if h < held_out else train).append(r)
    return train, test
