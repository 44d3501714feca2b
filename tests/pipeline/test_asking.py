"""What a question asks: its kind of answer, its object, the period it names."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.generation.asking import ask, kind_of, period_score


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("¿Qué pasa si me descubren copiando en un parcial?", "consequence"),
        ("¿Puedo salvar el curso con 22 puntos?", "yes_no"),
        ("Hola, ¿tengo derecho a que revisen mi examen?", "yes_no"),
        ("¿Cómo solicito la revisión de mi examen?", "procedure"),
        ("¿Cuáles son los pasos para inscribirme al EPS?", "procedure"),
        ("¿Hasta cuándo me puedo inscribir a los exámenes?", "date"),
        ("¿Cuánto vale el examen privado?", "amount"),
        ("¿Dónde entrego la solicitud?", "place"),
        ("¿Quién autoriza el cambio de carrera?", "role"),
        ("¿Cuántos créditos necesito para graduarme?", "count"),
        ("¿Qué requisitos hay para el examen técnico profesional?", "requirement"),
        ("¿Qué es la asignación de cursos?", "other"),
        ("¿Cómo reválido una materia de otra universidad?", "procedure"),  # a first-person verb after 'cómo', whatever the verb
        ("Necesito una escolaridad para una empresa. ¿Cómo la pido y cuánto demora?", "procedure"),
        ("como renuevo la beca?", "procedure"),
        ("¿Cuánto tiempo tengo como máximo para entregar el informe?", "count"),  # 'como máximo' is not a verb
        ("¿Cuento como egresado para el descuento?", "other"),  # a participle after 'como' is a role, not a step
    ],
)
def test_the_kind_of_answer_a_question_asks_for(question, kind):
    assert kind_of(question) == kind


def test_the_object_leaves_out_the_words_that_only_say_the_kind():
    asked = ask("Vengo de otra facultad. ¿Cuánto cuesta el examen privado?")
    assert "exam" in asked.object_keys and "priv" in asked.object_keys
    assert not {"cost", "veng"} & set(asked.object_keys)  # 'cuesta' says the kind; the context sentence is not asked


def test_a_past_period_is_marked_unless_the_question_names_it():
    today = date(2026, 11, 25)
    assert period_score("Inscripción: del 1 al 28 de febrero de 2026.", ask("¿Cuándo es la inscripción?", today)) < 0
    assert period_score("Inscripción: del 1 al 28 de febrero de 2027.", ask("¿Cuándo es la inscripción?", today)) > 0
    assert period_score("Inscripción: del 1 al 28 de febrero de 2026.", ask("¿Cuándo fue la inscripción de 2026?", today)) > 0
    assert period_score("La inscripción se hace en el SIGE.", ask("¿Cuándo es la inscripción?", today)) == 0


def test_without_question_marks_the_sentence_with_an_interrogative_word_is_the_one_asked():
    asked = ask("Quería saber hasta cuándo me puedo inscribir a los exámenes de febrero. Tengo que dar Cálculo 2 y no quiero que se me pase.")
    assert asked.kind == "date" and "calc" not in asked.object_keys and "insc" in asked.object_keys


@pytest.mark.parametrize(
    ("part", "before", "expected"),
    [
        ("¿Dónde la saco?", "Necesito una constancia de estudiante para presentar en el BPS.", ("constancia de estudiante", "saco")),
        ("¿Cómo lo pido?", "Quiero un certificado de notas.", ("certificado de notas", "pido")),
        ("¿Puedo renovarla?", "Tengo la beca de transporte desde marzo.", ("beca de transporte", "renovar")),
        ("¿Dónde pago la matrícula?", "Tengo una duda.", None),  # 'la' after a verb is an article
        ("¿Y los requisitos?", "Quiero unos papeles.", None),
        ("¿Dónde la saco?", "Necesito un certificado.", None),  # no antecedent of the pronoun's gender
    ],
)
def test_a_clitic_pronoun_takes_its_object_from_the_sentence_before(part, before, expected):
    from pipeline.generation.asking import pronoun_object

    assert pronoun_object(part, before) == expected


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("¿Cuánto valen los parciales dentro de la zona?", "count"),
        ("¿Cuánto vale el examen final sobre la nota?", "count"),
        ("¿Cuánto vale el examen privado?", "amount"),
    ],
)
def test_how_much_a_grade_part_is_worth_asks_points_not_money(question, kind):
    from pipeline.generation.candidates import asked_types

    assert kind_of(question) == kind
    assert kind in asked_types(question)


def test_the_object_of_a_pronoun_ask_is_the_phrase_it_refers_to_not_the_whole_sentence_before():
    question = "Necesito una constancia de estudiante para presentar en el BPS por las asignaciones familiares. ¿Dónde la saco?"
    keys = ask(question).object_keys
    assert {"consta", "estudi"} <= set(keys)
    assert "bps" not in keys and "famili" not in keys  # why the student needs it is context, not what is asked


@pytest.mark.parametrize(
    ("question", "counts"),
    [
        ("Aprobé mi laboratorio y la nota está vigente, ¿dónde puedo verla?", False),  # the grade is the topic, a place is asked
        ("¿Tengo derecho a que revisen mi examen si no estoy de acuerdo con la nota?", False),
        ("¿Qué nota necesito para aprobar el curso?", True),
        ("¿Cuál es la nota de aprobación?", True),
    ],
)
def test_a_grade_named_as_the_topic_does_not_ask_for_a_number(question, counts):
    from pipeline.generation.candidates import asked_types

    assert ("count" in asked_types(question)) is counts


@pytest.mark.parametrize(
    ("question", "dated"),
    [
        ("¿Puedo mejorar mi zona después de que terminó el período de clases?", False),  # a period named as the topic
        ("¿Cuál es el período de asignación?", True),
        ("¿En qué período se hacen las suficiencias?", True),
    ],
)
def test_a_period_asks_for_a_date_only_when_it_is_asked_which(question, dated):
    from pipeline.generation.candidates import asked_types

    assert ("date" in asked_types(question)) is dated


def test_a_pronoun_whose_antecedent_is_in_its_own_sentence_does_not_look_back():
    from pipeline.generation.asking import pronoun_object

    before = "Me fue mal en el segundo parcial de Física 2 y quedé con 22 puntos en total."
    assert pronoun_object("¿Hay alguna forma de salvar el curso sin tener que recursarlo?", before) is None
