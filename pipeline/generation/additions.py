"""Whether a further unit answers a part of the question that the units already chosen leave unanswered.

A draft says its best unit, then another one only when that one answers something the first does not: a second ask of
the message ('¿cuánto cuesta y en qué bancos se paga?'), or the kind of answer asked (a date, an amount) said of the
question's object when the first unit does not give it. A unit that only shares some of the question's words is a
neighbour: pasted beside the answer it reads as an off-topic passage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Iterator, Sequence

from pipeline.generation.asking import asked_parts, object_keys, pronoun_object
from pipeline.generation.candidates import Candidate, asked_types, units_of
from pipeline.text import fold

# A second question inside one sentence: ', y en qué bancos…', ' y cuánto…', ' o dónde…' (an interrogative after 'y'/'o').
_SECOND_ASK = re.compile(
    r"(?:,\s*|\s+)(?:y|o)\s+(?=(?:¿\s*)?(?:(?:en|a|con|de|hasta|desde|para|por|ante)\s+)?"
    r"(?:qué|cuánto|cuánta|cuántos|cuántas|cómo|dónde|cuándo|quién|quiénes|cuál|cuáles)\b)",
    re.IGNORECASE,
)
ASK_HELD = 0.5  # share of an ask's object keys a unit must hold to answer it
OBJECT_PART_KEYS, OBJECT_PART = 2, 0.25  # keys (and share) of the object a same-document unit must newly name in its own text


@dataclass(frozen=True, slots=True)
class Ask:
    """One thing the message asks: its text, the kinds of answer it wants and the keys of its object."""

    text: str
    types: frozenset[str]
    keys: tuple[str, ...]


def asks(question: str) -> list[Ask]:
    """The message's asks: its interrogative sentences, each split where a second interrogative follows 'y' or 'o'. An ask
    whose object is a clitic pronoun ('Necesito una constancia de estudiante… ¿Dónde la saco?') is about the phrase of the
    sentence before it that the pronoun refers to, not about its verb."""
    out = []
    sentences = [p for p in re.split(r"(?<=[?.!])\s+|\n+", question) if p.strip()]
    for part in asked_parts(question):
        pieces = [p.strip(" ,¿?") for p in _SECOND_ASK.split(part)]
        if len(pieces) < 2 or any(len(p.split()) < 2 for p in pieces):
            pieces = [part]
        at = sentences.index(part) if part in sentences else -1
        before = sentences[at - 1] if at > 0 else ""
        for p in pieces:
            keys = object_keys(p)
            if before and (ref := pronoun_object(p, before)) is not None:
                phrase, verb = ref
                verb_keys = set(object_keys(verb))
                keys = tuple(dict.fromkeys([*object_keys(phrase), *(k for k in keys if k not in verb_keys)]))
            out.append(Ask(p, frozenset(asked_types(p)), keys))
    return out


def held(keys: tuple[str, ...] | list[str], have: set[str]) -> list[str]:
    """The keys that `have` holds, or a word of the same stem."""
    stems = {k[:4] for k in have}
    return [k for k in keys if k in have or k[:4] in stems]


def answers(c: Candidate, ask: Ask) -> bool:
    """Whether the unit gives the kind of answer the ask wants (when it wants one) and names most of its object."""
    if ask.types and not ask.types & c.types:
        return False
    if not ask.keys:
        return bool(ask.types)
    return len(held(ask.keys, c.keys)) >= ASK_HELD * len(ask.keys)


def adds_answer(c: Candidate, chosen: list[Candidate], question: str, asked: set[str], sufficient: float, *, same_doc: bool) -> bool:
    """Whether `c` answers a part of the question the chosen units do not: an ask that none of them answers; a kind of
    answer asked that none of them gives, said of the question's object (`sufficient`: the share of the object's keys
    that `c` must name to be about it); or, said right after a chosen unit, the part of the object it leaves out, in its
    own words ('…optar a CUM LAUDE' then 'deberá haber concluido las asignaturas en el tiempo establecido')."""
    parts = asks(question)
    if len(parts) > 1:
        for ask in parts:
            if not any(answers(x, ask) for x in chosen) and answers(c, ask):
                return True
    keys = object_keys(question)
    missing = asked - set().union(*(x.types for x in chosen))
    if missing & c.types and (not keys or len(held(keys, c.keys)) >= sufficient * len(keys)):
        return True
    if not same_doc or (asked and not asked & c.types) or not any(_next_to(x, c) for x in chosen):
        return False
    said = set().union(*(x.keys for x in chosen))
    new = [k for k in held(keys, c.own) if not held([k], said)]
    return len(new) >= OBJECT_PART_KEYS and len(new) >= OBJECT_PART * len(keys)


def as_good(c: Candidate, top: Candidate, question: str, asked: set[str]) -> bool:
    """Whether `c` gives every kind of answer asked that `top` gives and names as much of the question's object."""
    keys = object_keys(question)
    return (asked & top.types) <= c.types and len(held(keys, c.keys)) >= len(held(keys, top.keys))


# What a unit says it goes on to list: '… deberán: Completar su inscripción…', '… los siguientes: …'. Folded.
_ANNOUNCES = re.compile(r"\b(?:deberan?|debe[ns]?|tendran? que|tiene[ns]? que|siguientes?)\s*:")


def completions(chosen: list[Candidate], cands: Sequence[Candidate], question: str, floor: float) -> Iterator[Candidate]:
    """The units that complete the chosen ones, however lower they score: the unit right after one that announces what
    follows ('Graduados bajo esta modalidad deberán: Completar su inscripción…' then 'Verificar en su portal…'), and, for
    each ask of the message that no chosen unit answers, the best unit scoring at least `floor` that answers it."""
    by_unit = {id(c.unit): c for c in cands}
    for x in list(chosen):
        if x.unit.kind not in ("item", "sentence") or not _ANNOUNCES.search(fold(x.unit.text)):
            continue
        units = units_of(x.chunk)
        at = next((i for i, u in enumerate(units) if u is x.unit), None)
        nxt = units[at + 1] if at is not None and at + 1 < len(units) else None
        if nxt is not None and nxt.kind in ("item", "sentence") and nxt.context == x.unit.context and id(nxt) in by_unit:
            yield by_unit[id(nxt)]
    parts = asks(question)
    if len(parts) < 2:
        return
    for ask in parts:
        if any(answers(x, ask) for x in chosen):
            continue
        best = next((c for c in cands if c.score >= floor and answers(c, ask)), None)
        if best is not None:
            yield best


def _next_to(x: Candidate, c: Candidate) -> bool:
    """Whether `c` is the unit right after `x` in its chunk, under the same heading (the same article or paragraph goes on)."""
    if c.chunk is not x.chunk or c.unit.context != x.unit.context:
        return False
    units = units_of(x.chunk)
    at = next((i for i, u in enumerate(units) if u is x.unit), None)
    return at is not None and at + 1 < len(units) and units[at + 1] is c.unit
