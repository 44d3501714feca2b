"""Which further units a draft says after its best one: only those that answer a part of the question it leaves unanswered."""

from __future__ import annotations

from pipeline.generation.additions import asks
from pipeline.generation.extractive import ExtractiveGenerator
from tests.pipeline.generation_helpers import hit


def body(answer) -> str:
    from bot.ops.answer_eval import answer_body

    return answer_body(answer.text, "es")


def test_a_neighbour_that_only_shares_words_with_the_question_is_not_said_after_the_answer():
    from pipeline.generation.asking import ask
    from pipeline.generation.selection import select

    text = ("La revisión se solicita por escrito al docente dentro de los tres días hábiles siguientes a la publicación. "
            "El docente responde en otros tres días hábiles. "
            "La nota de los exámenes finales se publica al terminar el semestre, según el calendario de la Facultad.")
    examenes = hit("examenes", "Reglamento de exámenes", text, "https://x.example/examenes", "Exámenes")
    gen, q = ExtractiveGenerator(), "¿Hasta cuándo puedo solicitar la revisión de la nota de mi examen?"
    weights = gen.coverage(q, [examenes])[0]
    cands = gen.rank(q, [examenes], weights, ask(q))
    answer, neighbour = cands[0], next(c for c in cands if c.text.startswith("La nota de los exámenes finales"))
    assert answer.text.startswith("La revisión se solicita")
    neighbour.score = 0.95 * answer.score  # as close as an embedder can put it: it names the grade and the exam
    chosen = select(sorted(cands, key=lambda c: -c.score), weights, q, gen.selection)
    assert chosen == [answer], [c.text for c in chosen]  # it says nothing about the review: not pasted after the answer


def test_a_second_ask_of_the_same_sentence_brings_the_unit_that_answers_it():
    text = ("El carné universitario cuesta $ 350 y se renueva cada año. "
            "El pago se hace en la Tesorería de la Facultad, planta baja, de lunes a viernes. "
            "El carné universitario da acceso a la biblioteca y al comedor.")
    carne = hit("carne", "Carné universitario", text, "https://x.example/carne", "Carné")
    said = body(ExtractiveGenerator().generate("¿Cuánto cuesta el carné universitario y dónde se hace el pago?", [carne]))
    assert "$ 350" in said and "Tesorería" in said, said  # the amount, then the place: two asks, two units
    assert "biblioteca" not in said, said
    parts = asks("¿Cuánto cuesta el carné universitario y dónde se hace el pago?")
    assert [sorted(p.types) for p in parts] == [["amount"], ["place"]], parts
    assert len(asks("¿Cuánto cuesta el carné y la credencial?")) == 1  # 'y' joining two objects is one ask


def test_a_unit_that_announces_what_follows_goes_on_with_the_next_one():
    text = ("Los egresados del posgrado deberán: completar su inscripción en el registro de la Universidad. "
            "Revisar en el portal del posgrado que su estado figure como egresado en diez días hábiles. "
            "Las consultas se atienden en la sala virtual del posgrado.")
    posgrado = hit("posgrado", "Egreso del posgrado", text, "https://x.example/posgrado", "Después del egreso")
    said = body(ExtractiveGenerator().generate("Terminé el posgrado, ¿hay algún trámite después del egreso?", [posgrado]))
    assert "completar su inscripción" in said and "diez días hábiles" in said, said


def test_an_item_of_a_list_announcing_another_kind_of_answer_does_not_answer_when():
    text = ("Requisitos para el taller inicial:\n\n- Estar inscrito en la Facultad.\n"
            "- Asistir a una charla de bienvenida previa al taller, que se realiza en la primera semana de cada semestre.\n\n"
            "El taller inicial lo desarrollan todos los estudiantes en el segundo semestre de la carrera.")
    taller = hit("talleres", "Talleres de la carrera", text, "https://x.example/talleres", "Taller inicial")
    said = body(ExtractiveGenerator().generate("¿Cuándo se hace el taller inicial?", [taller]))
    assert said.startswith("El taller inicial lo desarrollan todos los estudiantes en el segundo semestre"), said  # not a requirement's date


def test_an_ask_whose_object_is_a_pronoun_is_about_the_phrase_it_refers_to():
    question = "Necesito una constancia de estudiante para presentar en el BPS por las asignaciones familiares. ¿Dónde la saco? ¿Tengo que ir en persona?"
    first = asks(question)[0]
    assert {"consta", "estudi"} <= set(first.keys)
    assert "saco" not in first.keys  # the verb is not what it asks about


def test_a_lead_time_said_in_class_periods_is_a_date_answer():
    from pipeline.generation.candidates import unit_types

    types, _ = unit_types("Todo cambio deberá ser conocido por los estudiantes con un mínimo de un periodo de clases de anticipación.")
    assert "date" in types


def test_a_time_limit_counted_in_days_is_a_concrete_date_and_a_length_of_time_is_not():
    from pipeline.generation.candidates import unit_types

    for limit in ("Dentro de los 15 (quince) días calendario después del primer parcial puede desasignarse.",
                  "El profesor publica las notas en un plazo no mayor de ocho (8) días hábiles.",
                  "Posterior a la autorización, en término de 48 a 72 horas se enviará la constancia."):
        types, concrete = unit_types(limit)
        assert "date" in types and "date" in concrete, limit
    for length in ("El Ejercicio Profesional Supervisado de 3 meses.", "La carrera consta de diez semestres de 30 créditos.",
                   "No puede desasignarse de todos los cursos asignados en un mismo semestre."):
        assert "date" not in unit_types(length)[1], length


def test_the_article_with_the_time_limit_answers_until_when_not_the_one_that_only_names_the_semester():
    text = ("## Desasignación\n\n"
            "El estudiante no puede realizar la desasignación de todos los cursos asignados en un mismo semestre.\n\n"
            "Dentro de los 15 (quince) días calendario después del primer parcial del semestre, el estudiante puede realizar la desasignación de un curso.\n")
    said = body(ExtractiveGenerator().generate("¿Me puedo desasignar un curso a medio semestre? ¿hasta qué fecha?", [hit("normativo", "Normativo", text, "https://x.example/n", "Desasignación")]))
    assert said.startswith("Sí") and "15 (quince) días calendario" in said.split("\n")[0], said


def test_a_list_under_a_sibling_lead_in_that_names_another_variant_is_not_the_answer():
    text = ("## Prácticas\n\n"
            "Artículo 12. Requisitos para la práctica intermedia:\n\n"
            "1. Haber aprobado la práctica inicial.\n2. Tener aprobados 120 créditos.\n\n"
            "Artículo 11. Requisitos para la práctica inicial:\n\n"
            "1. Tener aprobado el curso de Matemática Básica II.\n2. Asistir al seminario de inducción.\n")
    said = body(ExtractiveGenerator().generate("¿Qué necesito para poder hacer la práctica inicial?", [hit("practicas", "Normativo de prácticas", text, "https://x.example/p", "Prácticas")]))
    assert "Matemática Básica II" in said and "120 créditos" not in said, said


def test_two_one_word_headings_are_not_sibling_variants_of_one_object():
    from types import SimpleNamespace

    from pipeline.generation.lexical import query_keys
    from pipeline.generation.selection import SelectionConfig, _other_list

    def item(context: str):
        return SimpleNamespace(unit=SimpleNamespace(kind="item", context=context), chunk=SimpleNamespace(doc_id="becas"), score=1.0, hand=1.0)

    okeys = set(query_keys("¿Qué becas hay para estudiantes del interior?"))
    plain = [item("¿Qué becas hay?"), item("Documentación")]
    _other_list(plain, okeys, SelectionConfig())
    assert [c.score for c in plain] == [1.0, 1.0]  # nothing shared: not variants of one object
    siblings = [item("Requisitos para la beca de transporte"), item("Requisitos para la beca de alojamiento")]
    _other_list(siblings, set(query_keys("¿Qué requisitos tiene la beca de alojamiento?")), SelectionConfig())
    assert siblings[0].score < 1.0 == siblings[1].score
