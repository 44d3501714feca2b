"""A figure of the student's own and the rule whose range holds it (issue 26: '¿Puedo salvar el curso con 22 puntos?')."""

from __future__ import annotations

import math

from pipeline.generation import extractive
from pipeline.generation.asking import ask
from pipeline.generation.extractive import ExtractiveGenerator, by_number
from pipeline.generation.figures import Figure, bounds, figure_fit, student_figures
from pipeline.generation.lexical import query_keys
from tests.pipeline.generation_helpers import hit


def test_the_student_s_own_figures_are_read_with_what_they_measure():
    assert student_figures("Quedé con 22 puntos en total. ¿Puedo salvar el curso?") == [Figure(22.0, "points")]
    assert student_figures("Tengo 180 créditos aprobados, ¿ya puedo hacer el EPS?") == [Figure(180.0, "credits")]
    assert student_figures("Llevo 3 semestres en la carrera") == [Figure(3.0, "semesters")]
    assert student_figures("Mi promedio es de 78, ¿cuántos créditos me asigno?") == [Figure(78.0, "points", "promedio")]
    assert student_figures("Saqué 33 puntos de zona, ¿tengo derecho al final?") == [Figure(33.0, "points", "zona")]


def test_numbers_that_are_not_the_student_s_figure_are_left_out():
    assert student_figures("¿Cuántos créditos tiene Física 2?") == []  # a course's number, no figure of the student's
    assert student_figures("¿Qué pasa si repruebo Física 2 en 2027?") == []
    assert student_figures("¿Cuántos puntos se necesitan para exonerar?") == []


def test_ranges_and_bounds_of_a_rule():
    (b,) = bounds("Pueden pedirla quienes sumaron entre 20 y 24 puntos en los parciales.")
    assert (b.low, b.high, b.measure) == (20.0, 24.0, "points") and b.holds(22) and not b.holds(25)
    (b,) = bounds("Tener aprobados 120 créditos.")
    assert (b.low, b.high, b.measure) == (120.0, math.inf, "credits")
    (b,) = bounds("Si el promedio es mayor que 70 puntos, podrá elegir.")
    assert b.strict_low and not b.holds(70) and b.holds(71)
    (b,) = bounds("Quienes tengan menos de 60 créditos no pueden inscribirse.")
    assert b.holds(59) and not b.holds(60)
    assert bounds("Cada evaluación se califica de 0 a 100 puntos.") == []  # a whole scale holds every figure


def test_a_rule_holds_excludes_or_says_nothing_of_the_figure():
    mine = student_figures("Quedé con 22 puntos, ¿puedo salvar el curso?")
    assert figure_fit(mine, "Pueden pedir la ICE quienes sumaron entre 20 y 24 puntos.") == 1
    assert figure_fit(mine, "Con 60 puntos o más se exonera el examen.") == -1
    assert figure_fit(mine, "La ICE se pide con el formulario ICE-1.") == 0
    assert figure_fit(mine, "Tener aprobados 20 créditos.") == 0  # another measure
    zone = student_figures("Saqué 40 puntos de zona, ¿puedo congelarla?")
    assert figure_fit(zone, "Si el promedio es mayor que 30 puntos, podrá elegir.") == 0  # an average is not a zone


REGLAMENTO = (
    "Artículo 5. (Evaluación de cursos). Cada curso se evalúa mediante parciales que suman 100 puntos. "
    "Con 60 puntos o más, y un mínimo de 30 % en cada parcial, se exonera el examen del curso."
)
ICE = "Pueden solicitar la instancia complementaria los estudiantes que sumaron entre 20 y 24 puntos en el total de los parciales del curso."


def _hits():
    return [
        hit("reglamento", "Reglamento de Estudiantes", REGLAMENTO, "https://x.example/reglamento", "Evaluación de cursos"),
        hit("complementarios", "Exámenes complementarios", ICE, "https://x.example/ice", "Instancia complementaria", pos=1, score=0.8),
    ]


def _ranked(question: str):
    return ExtractiveGenerator().rank(question, _hits(), {k: 1.0 for k in query_keys(question)}, ask(question))


def test_the_rule_whose_range_holds_the_student_s_figure_ranks_first_and_the_yes_follows_it(monkeypatch):
    question = "Me fue mal en los parciales y quedé con 22 puntos. ¿Hay alguna forma de aprobar el curso?"
    top = _ranked(question)[0]
    assert top.chunk.doc_id == "complementarios", top.text
    assert by_number(question, [top.text]) == "yes"  # the matched condition says yes
    monkeypatch.setattr(extractive, "FIGURE_HELD", 1.0)  # without the figure's evidence the exoneration rule's article leads
    assert _ranked(question)[0].chunk.doc_id == "reglamento"


def test_without_a_figure_of_the_student_s_the_ranking_is_unchanged(monkeypatch):
    question = "Me fue mal en los parciales. ¿Hay alguna forma de aprobar el curso?"
    order = [c.text for c in _ranked(question)]
    monkeypatch.setattr(extractive, "FIGURE_HELD", 1.0)
    assert [c.text for c in _ranked(question)] == order
