"""The unit a draft leads with when the one that answers scores close behind another: the delay asked, the case the
student is in, the kind of answer named; and the yes/no read from a rule that takes a right away."""

from __future__ import annotations

from pipeline.generation.asking import ask
from pipeline.generation.extractive import ExtractiveGenerator, clause_yes_no, yes_or_no
from tests.pipeline.generation_helpers import hit


def ranked(question: str, text: str, title: str = "Reglamento") -> list[str]:
    doc = hit("reglamento", title, text, "https://x.example/reglamento", title)
    gen = ExtractiveGenerator()
    cands = gen.rank(question, [doc], gen.coverage(question, [doc])[0], ask(question))
    return [c.text for c in cands]


def test_a_question_asking_how_soon_is_answered_by_the_longest_delay():
    text = ("La pasantía del plan aprobado dura dos semestres lectivos.\n\n"
            "La coordinación deberá responder en un tiempo máximo de diez días sobre la aprobación del plan.")
    order = ranked("Ya mandé el plan de pasantía, ¿en cuánto tiempo me responden si lo aprobaron?", text)
    assert order[0].startswith("La coordinación deberá responder"), order


def test_the_rule_for_a_failure_does_not_lead_when_the_student_describes_none():
    text = ("Si el examen de suficiencia no fuera aprobado, el estudiante deberá asignarse y llevar el curso como alumno regular.\n\n"
            "Genere la boleta de pago en el portal para asignarse al examen de suficiencia.")
    order = ranked("¿Cómo me asigno el examen de suficiencia?", text)
    assert order[0].startswith("Genere la boleta"), order
    failed = ranked("Reprobé el examen de suficiencia, ¿cómo me asigno el curso?", text)
    assert failed[0].startswith("Si el examen de suficiencia no fuera aprobado"), failed  # the student's own case


def test_a_unit_introduced_as_the_requirements_asked_scores_above_its_hand_score():
    from pipeline.generation.extractive import SAME_ASPECT, same_aspect

    text = ("Los padrinos de la ceremonia deben llegar una hora antes y se sientan junto al graduando.\n\n"
            "REQUISITOS: los padrinos de la ceremonia deben tener licenciatura, colegiado activo y una fotografía.")
    q = "¿Qué requisitos deben cumplir los padrinos de la ceremonia?"
    doc = hit("reglamento", "Reglamento", text, "https://x.example/reglamento", "Padrinos")
    gen = ExtractiveGenerator()
    cands = {c.text[:10]: c for c in gen.rank(q, [doc], gen.coverage(q, [doc])[0], ask(q))}
    labelled, neighbour = cands["REQUISITOS"], cands["Los padrin"]
    assert same_aspect(labelled, {"requirement"}) and not same_aspect(neighbour, {"requirement"})
    assert abs(labelled.score - labelled.hand * SAME_ASPECT) < 1e-9 and neighbour.score == neighbour.hand
    assert not same_aspect(labelled, {"date"})  # asked when, the label names another kind of answer
    q2 = "¿Cuándo llegan los padrinos de la ceremonia?"
    assert all(c.score == c.hand for c in gen.rank(q2, [doc], gen.coverage(q2, [doc])[0], ask(q2)))
    q3 = "¿Hay algún requisito para ser padrino de la ceremonia?"  # asks whether there is one: a rule answers, not the list
    assert all(c.score == c.hand for c in gen.rank(q3, [doc], gen.coverage(q3, [doc])[0], ask(q3)))


def test_a_rule_that_takes_a_right_away_answers_no_to_may_i_and_yes_to_do_i_lose_it():
    rule = "Perderán el derecho de someterse a exámenes de suficiencia los estudiantes que hayan reprobado tres de ellos."
    assert yes_or_no(rule) == "no"
    assert yes_or_no("El estudiante tiene derecho a una evaluación de suficiencia por curso.") == "yes"
    doc = hit("reglamento", "Reglamento", rule, "https://x.example/reglamento", "Suficiencias")
    gen = ExtractiveGenerator()
    for question, expected in (("Reprobé tres exámenes de suficiencia, ¿puedo hacer otro?", "no"), ("¿Pierdo el derecho a la suficiencia si repruebo tres?", "yes")):
        cands = gen.rank(question, [doc], gen.coverage(question, [doc])[0], ask(question))
        assert clause_yes_no(question, cands[:1]) == expected, question


def test_with_how_much_one_passes_and_a_minimum_ask_for_a_count():
    from pipeline.generation.asking import kind_of
    from pipeline.generation.selection import asked_types

    assert kind_of("¿Con cuánto se gana un examen por suficiencia?") == "count"
    assert "count" in asked_types("¿Con cuánto se gana un examen por suficiencia?")
    assert "count" in asked_types("¿Cuál es la zona mínima para ir al examen final?")
    assert kind_of("¿Con cuántas personas hago el proyecto?") == "count" and kind_of("¿Con quién hablo?") == "role"


def test_a_unit_that_names_what_a_term_means_does_not_lead_a_question_asking_a_value():
    text = ("Se denominan exámenes de suficiencia a aquellos en los que el estudiante demuestra el dominio del curso sin cursarlo.\n\n"
            "La nota de promoción del examen de suficiencia es de 80 puntos o más.")
    order = ranked("¿Con cuánto se gana un examen de suficiencia?", text)
    assert order[0].startswith("La nota de promoción"), order
    defined = ranked("¿Qué es un examen de suficiencia?", text)
    assert defined[0].startswith("Se denominan"), defined  # asked what it is: the definition answers
