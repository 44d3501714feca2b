"""Counterfactual variants of staff corrections: the same family, another surface.

A correction says that a FAMILY of message is (not) the office's business: another university's procedure, a course's
homework, a request for work padded with the office's words. Learnt as one sentence it reaches the close repeats of that
sentence only. Its variants keep what makes the family and change what does not:
  - the institution named (out of domain only): another university, bundled or made up, named any way students name one
    (classifiers.near_miss.institution_forms);
  - the course named: another course of the documents (the near-miss homework's courses);
  - the padding (out of domain only): the words around the request that name the office's business (a greeting, a line
    about the semester, "sobre la inscripción, ...") are dropped or replaced by other such words, made by the synthetic
    generators' own parts (classifiers.styles) about the office's procedures: they do not make the request the office's.
The pools are read from the synthetic examples (near misses' topics: institutions and courses; in-domain topics: the
office's procedures), so nothing here names an office. Own institutions (named in the in-domain examples) are never
swapped.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from classifiers import styles
from classifiers.gate import request_clauses
from classifiers.intent import bundled_nicknames, spoken_course_names, spoken_institution_names
from classifiers.near_miss import acronym, institution_forms, made_up_universities
from classifiers.synthetic import NO_INFO_SOURCES, Example
from pipeline.text import fold

# a generic institution mention (folded text): "universidad de costa rica", "centro universitario de oriente", "el cunoc"
_INSTITUTION = re.compile(
    r"\b(?:la |el )?(?:universidad|centro universitario|instituto tecnologico|instituto|tecnologico|escuela politecnica)"
    r"(?: (?:de la|de los|del|de|en))?(?: (?!que\b|como\b|donde\b|cuando\b|si\b|para\b|me\b|se\b|hay\b|tiene\b|da\b|y\b)[a-z]+){1,4}"
)
_ACRONYM = re.compile(r"\b(?:la |el )?([A-Z]{2,6})\b")
_PROC_PREFIX = ("sobre {t}", "lo de {t}", "por el tema de {t}", "ya hice lo de {t}", "con lo de {t}", "para {t}")


@dataclass
class Pools:
    """Names and phrases variants are made from (read from the synthetic examples)."""

    universities: list[str] = field(default_factory=list)
    courses: list[str] = field(default_factory=list)
    procedures: list[str] = field(default_factory=list)
    own: set[str] = field(default_factory=set)  # folded names of the office's own institutions

    @classmethod
    def from_synthetic(cls, synthetic: Sequence[Example], *, seed: int = 3) -> "Pools":
        unis: dict[str, str] = {}
        courses: dict[str, str] = {}
        procs: dict[str, str] = {}
        for e in synthetic:
            topic = e.topic or ""
            if e.label == 0 and e.source == "near-miss" and ":" in topic:
                cat, detail = topic.split(":", 1)
                if cat == "other_institution" and detail.startswith("Universidad"):
                    unis.setdefault(fold(detail), detail)
                elif cat == "homework" and detail and detail != "aritmética":
                    courses.setdefault(fold(detail), detail)
            elif e.label == 1 and e.source.startswith("offline") and e.source not in NO_INFO_SOURCES and 6 <= len(topic) <= 40 and ":" not in topic and not any(ch.isdigit() for ch in topic):
                procs.setdefault(fold(topic), topic)
        own = set()
        for e in synthetic:
            if e.label == 1 and e.source != "offline-transfer":  # a student coming from another university names it
                for m in _INSTITUTION.finditer(fold(e.text)):
                    own.add(_strip_det(m.group(0)))
        rng = random.Random(seed)
        p = sorted(procs.values())
        rng.shuffle(p)
        return cls(universities=sorted(unis.values()), courses=sorted(courses.values()), procedures=p[:300], own=own)


def _strip_det(name: str) -> str:
    return name.removeprefix("la ").removeprefix("el ").strip()


def _institution_spans(text: str, pools: Pools) -> list[tuple[int, int]]:
    """Where the message names an institution that is not the office's (character spans of `text`)."""
    folded = fold(text)
    if len(folded) != len(text):
        return []
    spans = [(m.start(), m.end()) for m in _INSTITUTION.finditer(folded) if _strip_det(m.group(0)) not in pools.own]
    names = {fold(s) for n in pools.universities for s in [n, *spoken_institution_names(n)]} | {fold(n) for n in bundled_nicknames()}
    names |= {acronym(n).lower() for n in pools.universities if 2 <= len(acronym(n)) <= 5}
    for name in sorted(names, key=len, reverse=True):
        for m in re.finditer(rf"\b{re.escape(name)}\b", folded):
            if not any(a <= m.start() < b for a, b in spans) and _strip_det(name) not in pools.own:
                spans.append((m.start(), m.end()))
    for m in _ACRONYM.finditer(text):  # "la UVG", "el MIT": capitals the office's own names do not make
        if m.group(1).lower() not in pools.own and not any(a <= m.start(1) < b for a, b in spans):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def _course_spans(text: str, pools: Pools) -> list[tuple[int, int]]:
    folded = fold(text)
    if len(folded) != len(text):
        return []
    spans: list[tuple[int, int]] = []
    names = sorted({fold(s) for c in pools.courses for s in spoken_course_names(c)}, key=len, reverse=True)
    for name in names:
        if len(name) < 5:
            continue
        for m in re.finditer(rf"\b{re.escape(name)}\b", folded):
            if not any(a <= m.start() < b or a < m.end() <= b for a, b in spans):
                spans.append((m.start(), m.end()))
    return sorted(spans)


def _replace(text: str, spans: list[tuple[int, int]], make) -> str:
    out, at = [], 0
    for a, b in spans:
        out.append(text[at:a])
        out.append(make())
        at = b
    out.append(text[at:])
    return "".join(out)


def _core(text: str) -> tuple[str, str] | None:
    """(padding, core) of a message whose request or last clause follows words about something else."""
    for clause in request_clauses(text):
        at = text.find(clause)
        if at > 8 and len(clause.split()) >= 4:
            return text[:at].rstrip(" ,;:."), clause
    parts = re.split(r"(?<=[,;:.!?])\s+|\s+y\s+(?=quiero|necesito|me\b|ocupo|tengo)", text)
    if len(parts) >= 2 and len(parts[-1].split()) >= 4:
        core = parts[-1]
        return text[: text.rfind(core)].rstrip(" ,;:."), core
    return None


def _padding(rng: random.Random, pools: Pools) -> str:
    parts = []
    if rng.random() < 0.6:
        parts.append(rng.choice(styles._GREETINGS))
    if rng.random() < 0.35:
        parts.append(rng.choice(styles._CONTEXT).format(n=rng.choice(styles._ORDINALS)))
    if pools.procedures and (rng.random() < 0.7 or not parts):
        t = rng.choice(pools.procedures)
        parts.append(rng.choice(_PROC_PREFIX).format(t=t[:1].lower() + t[1:]).replace(" de el ", " del "))
    return ", ".join(parts) if parts else "hola"


def counterfactuals(text: str, label: int, pools: Pools, *, n: int = 6, seed: int = 0) -> list[str]:
    """Up to `n` variants of a corrected message that keep its family (and so its label) and change its surface."""
    rng = random.Random(f"{seed}:{text}")
    makers = []
    if label == 0:
        inst = _institution_spans(text, pools)
        if inst:
            def other_university() -> str:
                name = rng.choice(pools.universities) if pools.universities and rng.random() < 0.5 else made_up_universities(rng, 1)[0]
                return institution_forms(rng, name)

            makers.append(lambda: _replace(text, inst, other_university))
    courses = _course_spans(text, pools)
    if courses and len(pools.courses) > 1:
        def other_course() -> str:
            c = rng.choice(pools.courses)
            return fold(rng.choice(spoken_course_names(c) or [c])).lower() if text == fold(text) else rng.choice(spoken_course_names(c) or [c])

        makers.append(lambda: _replace(text, courses, other_course))
    split = _core(text) if label == 0 else None
    if split is not None:
        _, core = split
        makers.append(lambda: core)
        makers.append(lambda: f"{_padding(rng, pools)}, {core}")
        makers.append(lambda: f"{_padding(rng, pools)}, {core}")
    if not makers:
        return []
    out: dict[str, str] = {}
    for _ in range(n * 4):
        if len(out) >= n:
            break
        v = " ".join(rng.choice(makers)().split())
        if len(v) >= 8 and fold(v) != fold(text):
            out.setdefault(fold(v), v)
    return list(out.values())
