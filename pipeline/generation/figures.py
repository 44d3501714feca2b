"""A figure of the student's own ('con 22 puntos', 'tengo 180 créditos', 'mi promedio es 78') and the ranges or bounds a
rule states ('entre 20 y 24 puntos', 'al menos 180 créditos', 'menos de 60'): whether a rule's condition holds the figure.

A rule whose range holds the student's figure is the one that applies to them; a rule whose bound excludes it is about
other students (the 60-point exoneration is not the answer for 22 points when the 20–24 one exists).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from pipeline.text import fold

# What a figure measures, by the word said with it (folded). Points, grades, averages and percentages are one scale.
_MEASURES: dict[str, str] = {
    "punto": "points", "puntos": "points", "pts": "points", "nota": "points", "notas": "points", "promedio": "points",
    "zona": "points", "punteo": "points", "puntaje": "points", "calificacion": "points", "%": "points", "por ciento": "points",
    "credito": "credits", "creditos": "credits",
    "semestre": "semesters", "semestres": "semesters",
    "dia": "days", "dias": "days",
    "mes": "months", "meses": "months",
    "ano": "years", "anos": "years",
    "hora": "hours", "horas": "hours",
    "materia": "courses", "materias": "courses", "curso": "courses", "cursos": "courses", "asignatura": "courses", "asignaturas": "courses",
}
_MEASURE = r"(?:por ciento|%|" + "|".join(sorted((re.escape(k) for k in _MEASURES if k not in ("%", "por ciento")), key=len, reverse=True)) + r")"
_NUM = r"(\d{1,3}(?:[.,]\d{1,2})?)"
_N = r"(?<![\d.,/:])" + _NUM + r"(?![\d/:]|[.,]\d)"

# The student's own figure: a number followed by what it measures ('22 puntos', '180 créditos aprobados', '3 semestres'),
# or after the measure it is of ('mi promedio es 78', 'una nota de 76', 'me pusieron 76 en la zona' is left out).
_OWN_AFTER = re.compile(_N + r"\s*(" + _MEASURE + r")(?!\w)")
_OWN_BEFORE = re.compile(r"\b(?:promedio|nota|zona|punteo|puntaje|calificacion)(?: (?:general|final|actual|acumulad[oa]))? (?:es (?:de )?|era (?:de )?|fue (?:de )?|de |quedo en |queda en )" + _N)
_OUT_OF = re.compile(_N + r" (?:sobre|de) (?:10|20|100)\b")  # 'saqué 58 sobre 100': a grade
_FIRST_PERSON = re.compile(r"\b(?:tengo|tenia|llevo|saque|quede|junto|acumule|acumulo|obtuve|hice|gane|me (?:quedan?|faltan?|pusieron|dieron|salio)|mi|con|voy con|sume|alcance|reuni)\b")

# A rule's ranges and bounds (folded text): (low, high, strict low, strict high).
_BETWEEN = re.compile(r"\bentre (?:el |los |las )?" + _N + r"(?: " + _MEASURE + r")? y (?:el |los |las )?" + _N + r"(?: (" + _MEASURE + r"))?")
_FROM_TO = re.compile(r"\bde " + _N + r" a " + _N + r" (" + _MEASURE + r")(?!\w)")
_AT_LEAST = re.compile(r"\b(?:al menos|por lo menos|como minimo|un minimo de|minimo de|minima de|no menos de|no menor (?:de|a)|a partir de(?: los| las)?|mayor o igual (?:a|que)|igual o mayor (?:a|que)|tener aprobad[oa]s|haber aprobado) " + _N)
_OR_MORE = re.compile(_N + r" (" + _MEASURE + r" )?o mas\b")
_ABOVE = re.compile(r"\b(?:mas de|mayor (?:de|que|a)|superior (?:a|de)|supere(?:n)? (?:los |las )?) ?" + _N)
_BELOW = re.compile(r"\b(?:menos de|menor (?:de|que|a)|inferior (?:a|de)|por debajo de(?: los| las)?) " + _N)
_AT_MOST = re.compile(r"\b(?:como maximo|un maximo de|maximo de|no mas de|hasta un maximo de|menor o igual (?:a|que)) " + _N)


# Which score of the points scale a figure is ('33 puntos de zona', 'un promedio de 91'): a zone is not an average.
_SCORE = re.compile(r"\b(zona|promedio)\b")


def _score_of(t: str, start: int, end: int) -> str | None:
    """The score named next to a figure (within a few words either side), when one is."""
    near = _SCORE.findall(t[max(0, start - 30) : end + 25])
    return near[-1] if len(set(near)) == 1 else None


@dataclass(frozen=True, slots=True)
class Figure:
    value: float
    measure: str  # a key of the measures ('points', 'credits', ...)
    score: str | None = None  # for points: 'zona' or 'promedio' when the question says which


@dataclass(frozen=True, slots=True)
class Bound:
    low: float
    high: float
    strict_low: bool
    strict_high: bool
    measure: str | None  # None: the rule does not say what it counts
    score: str | None = None  # for points: 'zona' or 'promedio' when the rule says which

    def holds(self, x: float) -> bool:
        above = x > self.low if self.strict_low else x >= self.low
        below = x < self.high if self.strict_high else x <= self.high
        return above and below


def _value(s: str) -> float:
    return float(s.replace(",", "."))


def _measure(word: str | None) -> str | None:
    return _MEASURES.get(word.strip()) if word else None


def student_figures(question: str) -> list[Figure]:
    """The figures the student states of their own situation, with what they measure ('con 22 puntos' → 22 points).
    Only figures said with a measure word and in a first-person or 'con N' clause: course numbers ('Física 2'), codes and
    years are not a figure of the student's."""
    q = fold(question)
    out: list[Figure] = []
    for m in _OWN_AFTER.finditer(q):
        before = q[max(0, m.start() - 60) : m.start()]
        if _FIRST_PERSON.search(before) and (measure := _measure(m.group(2))):
            out.append(Figure(_value(m.group(1)), measure, _score_of(q, m.start(), m.end()) if measure == "points" else None))
    for pattern in (_OWN_BEFORE, _OUT_OF):
        for m in pattern.finditer(q):
            fig = Figure(_value(m.group(1)), "points", _score_of(q, m.start(), m.end()))
            if _FIRST_PERSON.search(q[max(0, m.start() - 60) : m.start()]) and all(f.value != fig.value for f in out):
                out.append(fig)
    return out


def _scale(b: Bound) -> bool:
    """A whole grading scale ('de 0 a 100 puntos') holds every figure and says nothing about the student's case."""
    return b.low <= 0 and b.high >= 100


def bounds(text: str) -> list[Bound]:
    """The ranges and bounds a unit states, with what they measure when it says so (the word after the figure, else the
    nearest measure word within the few words before it: 'si el promedio es mayor que 70')."""
    t = fold(text)
    out: list[Bound] = []

    def measure_at(m: re.Match, after: str | None) -> str | None:
        if after:
            return _measure(after)
        tail = re.match(r"\s*(" + _MEASURE + r")(?!\w)", t[m.end() :])
        if tail:
            return _measure(tail.group(1))
        head = re.findall(r"(?<!\w)(" + _MEASURE + r")(?!\w)", t[max(0, m.start() - 40) : m.start()])
        return _measure(head[-1]) if head else None

    def add(m: re.Match, b: Bound) -> None:
        out.append(replace(b, score=_score_of(t, m.start(), m.end())) if b.measure == "points" else b)

    for m in _BETWEEN.finditer(t):
        lo, hi = sorted((_value(m.group(1)), _value(m.group(2))))
        add(m, Bound(lo, hi, False, False, measure_at(m, m.group(3))))
    for m in _FROM_TO.finditer(t):
        lo, hi = sorted((_value(m.group(1)), _value(m.group(2))))
        add(m, Bound(lo, hi, False, False, _measure(m.group(3))))
    for m in _AT_LEAST.finditer(t):
        add(m, Bound(_value(m.group(1)), math.inf, False, False, measure_at(m, None)))
    for m in _OR_MORE.finditer(t):
        add(m, Bound(_value(m.group(1)), math.inf, False, False, _measure((m.group(2) or "").strip()) or measure_at(m, None)))
    for m in _ABOVE.finditer(t):
        add(m, Bound(_value(m.group(1)), math.inf, True, False, measure_at(m, None)))
    for m in _BELOW.finditer(t):
        add(m, Bound(-math.inf, _value(m.group(1)), False, True, measure_at(m, None)))
    for m in _AT_MOST.finditer(t):
        add(m, Bound(-math.inf, _value(m.group(1)), False, False, measure_at(m, None)))
    return [b for b in out if not _scale(b)]


def figure_fit(figures: list[Figure], text: str) -> int:
    """+1 when a range or bound of the text, of the same measure as a figure of the student's, holds it; -1 when the text
    bounds that measure and none of its bounds holds it; 0 when it bounds none of the student's measures."""
    if not figures:
        return 0
    seen = False
    for b in bounds(text):
        for f in figures:
            if b.measure != f.measure or (b.score and f.score and b.score != f.score):
                continue
            seen = True
            if b.holds(f.value):
                return 1
    return -1 if seen else 0
