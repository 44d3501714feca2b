"""In-domain messages about a student's own case that look like someone else's business: a student coming from another
university to this office's equivalencias or traslado."""

from __future__ import annotations

import random
from collections.abc import Sequence

from classifiers import styles
from classifiers.synthetic import Example
from pipeline.text import fold

# Where they come from is another university (named any way students name one) or another career; what they ask is this
# office's procedure: equivalencias, traslado, recognising courses, entering here. The near misses hold the other
# direction ("me quiero trasladar a la X, ¿qué piden?"), so the gate learns the direction, not the names.
TRANSFER_FRAMES = (
    "vengo de {i}, ¿cómo pido que me reconozcan los cursos?", "estudié {n} semestres en {i}, ¿me dan equivalencias si entro a {here}?",
    "me quiero trasladar de {i} a {here}, ¿qué papeles ocupo?", "llevé cursos en {i}, ¿me los dan por aprobados aquí?",
    "soy de {i} y me quiero pasar a {here}, ¿cómo es el traslado?", "ya tengo cursos ganados en {i}, ¿cómo es el trámite de equivalencias?",
    "estudiaba en {i}, si me paso a {here} ¿tengo que hacer las pruebas de ingreso?", "mi hermano estudia en {i} y se quiere pasar acá, ¿qué requisitos tiene?",
    "¿acá aceptan cursos de {i} para equivalencias?", "me gradué de técnico en {i}, ¿puedo pedir equivalencias para {here}?",
    "vengo de otra carrera, ¿cómo pido equivalencias de los cursos que ya gané?", "¿cuánto tarda la resolución de equivalencias si vengo de {i}?",
)
HERE = ("ingeniería", "la usac", "ingeniería civil", "ingeniería en sistemas", "ingeniería industrial", "aquí", "acá")  # not "la facultad": that word names the other faculties too


def transfer_requests(institutions: Sequence[str], *, forms, n: int = 150, seed: int = 29) -> list[Example]:
    """In-domain messages from students who come from another university or career to this office's procedures;
    `forms(rng, name)` gives one way students name a university (see near_miss.institution_forms)."""
    rng = random.Random(seed)
    out, seen = [], set()
    for _ in range(n * 4):
        if len(out) >= n:
            break
        name = rng.choice(institutions)
        text = rng.choice(TRANSFER_FRAMES).format(i=forms(rng, name), n=rng.randint(2, 6), here=rng.choice(HERE))
        style = rng.choice(("student", "student", "informal", "direct"))
        text = styles.student_like(rng, text) if style == "student" else styles.render(rng, style, question=text, topic="equivalencias")
        if fold(text) in seen or not styles.says_something(text):
            continue
        seen.add(fold(text))
        out.append(Example(text=text, label=1, style=style, source="offline-transfer", topic=f"transfer:{name}"))
    return out

