"""The offline extractive generator: grounded extracts for answerable questions, NoInfo otherwise."""

from __future__ import annotations

import re
from datetime import date

from pipeline.derivation import validate
from pipeline.generation.readiness import readiness_of
from pipeline.generation.asking import ask
from pipeline.generation.extractive import ExtractiveGenerator, whole_list
from pipeline.texts import t
from tests.pipeline.generation_helpers import EXAMENES, hit


def step_flags(answer) -> list[dict]:
    """The verifier's flags (draft-level flags such as the readiness label have a kind)."""
    return [f for f in answer.flags if not f.get("kind")]

HITS = [
    hit("examenes", "Exámenes: períodos e inscripción", "Si te inscribiste y finalmente no vas a rendir, podés borrarte del examen desde el SIGE hasta 48 horas antes de la hora de inicio del examen. Los salones se publican en cartelera.", EXAMENES, "Desistir de un examen"),
    hit("becas", "Becas para estudiantes de grado", "Beca de Alojamiento: plaza en la Residencia Universitaria del Sur para estudiantes que vienen del interior del país. Cupo: 60 plazas.", "https://ingenieria.example.edu.uy/bienestar/becas", "¿Qué becas hay?"),
    hit("contacto", "Contacto y horarios de atención", "La Facultad está sobre la rambla, frente a la playa Ramírez. Líneas de ómnibus que pasan por la puerta: 117, 121, 186 y D10.", "https://ingenieria.example.edu.uy/contacto", "Cómo llegar"),
]


class TinyIndex:
    """Stand-in index: corpus statistics come from these hits."""

    def exists(self) -> bool:
        return True

    def all_chunks(self, *, with_vectors: bool = False):
        return [(h.chunk, None) for h in HITS]


def test_answerable_question_gets_a_grounded_extract_with_its_reference(fake_embedder):
    gen = ExtractiveGenerator(index=TinyIndex(), embedder=fake_embedder)
    answer = gen.generate("Si me anoto y después no puedo ir al examen, ¿me puedo borrar? ¿Hasta cuándo?", HITS)
    assert not answer.no_info and [r.doc_id for r in answer.references] == ["examenes"]
    assert "48 horas antes" in answer.text and EXAMENES in answer.text
    final = validate(answer.derivation, n_chunks=len(HITS))
    assert final.rule in ("Extract", "Refine") and answer.derivation[0].rule == "Extract" and answer.derivation[0].premises == ["1"]
    assert step_flags(answer) == []  # the verifier ran and found copied text faithful
    assert readiness_of(answer.flags)["flag"] == "listo"  # it gives the deadline asked for


def test_question_about_something_the_documents_never_mention_is_noinfo(fake_embedder):
    gen = ExtractiveGenerator(index=TinyIndex(), embedder=fake_embedder)
    for q in ("¿Hay lockers o casilleros en la facultad para dejar la mochila?", "¿La facultad tiene estacionamiento para estudiantes? Voy en auto."):
        answer = gen.generate(q, HITS)
        assert answer.no_info and answer.references == [] and [s.rule for s in answer.derivation] == ["NoInfo"], q


def test_personal_context_weighs_less_than_the_question(fake_embedder):
    gen = ExtractiveGenerator(index=TinyIndex(), embedder=fake_embedder)
    answer = gen.generate("Soy de Tacuarembó y no conozco Montevideo. ¿Qué becas hay para estudiantes del interior?", HITS)
    assert [r.doc_id for r in answer.references] == ["becas"]


def test_works_without_index_or_embedder():
    answer = ExtractiveGenerator().generate("¿Hasta cuándo me puedo borrar de un examen?", HITS)
    assert [r.doc_id for r in answer.references] == ["examenes"]
    assert ExtractiveGenerator().generate("¿algo?", []).no_info


def test_long_words_need_a_longer_shared_prefix():
    from pipeline.generation.lexical import doc_keys, query_keys

    assert query_keys("estacionamiento") == ["estaci"] and "estaci" not in doc_keys("Está establecido en el estatuto.")
    assert set(query_keys("inscripciones")) <= doc_keys("podés inscribirte") and set(query_keys("inscribir")) <= doc_keys("inscripción")



def test_retrieval_rank_weighs_in_when_a_lower_hit_covers_the_question_slightly_better():
    a = hit("bedelia", "Bedelía", "El trámite de reválida se inicia en Bedelía con el programa.", "https://x.example/bedelia", "Reválidas")
    b = hit("secretaria", "Secretaría", "El trámite de reválida de cursos se inicia en Secretaría con el programa.", "https://x.example/secretaria", "Reválidas")
    question = "¿Dónde se inicia el trámite de reválida de cursos?"
    flat = ExtractiveGenerator(max_sentences=1, rank_weight=0.0).generate(question, [a, b])
    assert [r.doc_id for r in flat.references] == ["secretaria"]  # lexical coverage alone prefers the second hit
    ranked = ExtractiveGenerator(max_sentences=1, rank_weight=2.0).generate(question, [a, b])
    assert [r.doc_id for r in ranked.references] == ["bedelia"]  # a strong rank prior keeps retrieval's first choice


def body(answer) -> str:
    from bot.ops.answer_eval import answer_body

    return answer_body(answer.text)


def test_the_answer_type_prior_picks_the_hours_over_a_sentence_that_only_names_them():
    tramites = hit("bedelia_tramites", "Trámites de Bedelía", "Los trámites presenciales se atienden en el horario de Bedelía. Algunos trámites se hacen por el SIGE.", "https://x.example/tramites", "Trámites")
    contacto = hit("contacto", "Contacto y horarios", "## Bedelía (Sección Estudiantes)\n\n- Ubicación: Edificio Central, planta baja.\n- Horario de atención presencial: lunes a viernes de 9:30 a 13:00 y de 14:30 a 18:00.", "https://x.example/contacto", "Bedelía (Sección Estudiantes)")
    answer = ExtractiveGenerator().generate("¿En qué horario atiende Bedelía?", [tramites, contacto])
    assert "9:30 a 13:00 y de 14:30 a 18:00" in body(answer) and "se atienden en el horario de Bedelía" not in body(answer)
    assert [r.doc_id for r in answer.references] == ["contacto"]


def test_the_same_sentence_in_several_documents_is_said_once():
    text = "El curso de vacaciones se asigna en el portal. La retrasada única siempre deberá aprobarse antes del curso congelado."
    hits = [hit(f"pensum_{n}", "Ingeniería", text, "https://x.example", "Normas", pos=i) for i, n in enumerate(("civil", "mecanica", "quimica"))]
    answer = ExtractiveGenerator().generate("¿Cuándo debe aprobarse la retrasada única respecto del curso congelado?", hits)
    assert body(answer).count("retrasada única") == 1
    assert {r.doc_id for r in answer.references} == {"pensum_civil", "pensum_mecanica", "pensum_quimica"}  # said once, cited by all
    assert step_flags(answer) == []


def _pensum(doc: str, prereq: str) -> str:
    return f"SEMESTRE 5\ncodigo: 0204\nnombre: Circuitos Eléctricos 1\ncreditos: 7\narea: No especificada\nprerequisitos: {prereq}\nobligatorio: Sí\n---\n"


def _course_hits(prereqs: dict[str, str]):
    return [hit(f"pensum_{d}", "Ingeniería", _pensum(d, p), "https://x.example", "SEMESTRE 5", pos=i) for i, (d, p) in enumerate(prereqs.items())]


def test_a_course_record_is_one_sentence_and_the_derivation_stays_honest():
    hits = _course_hits({"civil": "0112, 0152"})
    answer = ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1?", hits)
    assert body(answer) == "Los prerrequisitos de Circuitos Eléctricos 1 (0204) son 0112 y 0152."  # the asked attribute, not the whole record
    rules = [s.rule for s in answer.derivation]
    assert rules == ["Extract", "Refine"] and answer.derivation[0].premises == ["1"] and step_flags(answer) == []


def test_a_course_shared_by_curricula_with_different_values_is_answered_per_programme():
    hits = _course_hits({"civil": "0112, 0152", "mecanica": "0112", "quimica": "0112, 0152"})
    answer = ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1?", hits)
    text = body(answer)
    assert "no es igual en todas las carreras" in text
    assert text.startswith("Circuitos Eléctricos 1 (0204) no es igual en todas las carreras:")
    assert "- pensum civil, pensum quimica: prerrequisitos 0112 y 0152." in text  # the course is named once, in the lead
    assert "- pensum mecanica: prerrequisito 0112." in text
    assert {r.doc_id for r in answer.references} == {"pensum_civil", "pensum_mecanica", "pensum_quimica"}
    assert step_flags(answer) == []


def test_a_programme_named_in_the_question_picks_its_curriculum():
    hits = _course_hits({"civil": "0112, 0152", "mecanica": "0112"})
    answer = ExtractiveGenerator().generate("En Mecánica, ¿qué prerrequisitos tiene Circuitos Eléctricos 1?", hits)
    assert [r.doc_id for r in answer.references] == ["pensum_mecanica"] and body(answer) == "El prerrequisito de Circuitos Eléctricos 1 (0204) es 0112."


def test_prerequisite_codes_are_named_from_the_records_of_the_same_curriculum():
    text = _pensum("civil", "0112") + "codigo: 0112\nnombre: Área Matemática Intermedia 2\ncreditos: 6\nprerequisitos: 0107\nobligatorio: Sí\n---\n"
    answer = ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1 (0204)?", [hit("pensum_civil", "Ingeniería", text, "https://x.example", "SEMESTRE 5")])
    assert body(answer) == "El prerrequisito de Circuitos Eléctricos 1 (0204) es Área Matemática Intermedia 2 (0112)."
    assert [s.rule for s in answer.derivation] == ["Extract", "Extract", "Concat", "Refine"] and step_flags(answer) == []


def test_variants_that_fit_in_a_few_lines_are_listed_and_more_ask_which_programme():
    hits = _course_hits({"civil": "0112", "mecanica": "0152", "quimica": "0114", "sistemas": "0116"})
    text = body(ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1?", hits))
    assert "¿En qué carrera" not in text and len(text.splitlines()) == 5, text  # four variants fit: listed, no question back
    assert "- pensum civil: prerrequisito 0112." in text and "- pensum sistemas: prerrequisito 0116." in text
    seven = {d: f"01{i}0" for i, d in enumerate(("civil", "mecanica", "quimica", "sistemas", "electrica", "industrial", "electronica"))}
    text = body(ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1?", _course_hits(seven)))
    assert "¿En qué carrera estás inscrito o inscrita?" in text and "7 carreras" in text
    assert "0100" not in text  # never one programme's value as if it were the only one




def test_requirements_are_answered_by_the_concrete_conditions_of_their_list():
    text = (
        "## Práctica supervisada\n\nLa práctica supervisada es obligatoria en las licenciaturas:\n\n"
        "- Se requiere un convenio entre la institución y la Facultad.\n"
        "- Debe presentarse un informe final evaluado por el supervisor.\n"
        "- Quienes ya trabajan en el área deben presentar una constancia del empleador.\n"
        "- Puede iniciarse a partir de los 180 créditos aprobados."
    )
    practica = hit("practica", "Práctica supervisada", text, "https://x.example/practica", "Práctica supervisada")
    answer = ExtractiveGenerator().generate("¿Qué requisitos tiene la práctica supervisada?", [practica])
    text = body(answer)
    assert "a partir de los 180 créditos aprobados" in text, text  # the threshold, not only the first of four near-tied conditions
    assert text.splitlines()[0] == "La práctica supervisada es obligatoria en las licenciaturas:" and len(text.splitlines()) == 5, text  # the list said whole under its lead-in
    assert step_flags(answer) == []


def test_how_much_it_costs_is_answered_with_the_amount_rather_than_the_free_case():
    text = "## Costo\n\nEl trámite de reválida es gratuito para universidades públicas. Para universidades privadas, el trámite de reválida se abona $ 900."
    costo = hit("revalida", "Reválidas", text, "https://x.example/revalida", "Costo")
    answer = ExtractiveGenerator(max_sentences=1).generate("¿Cuánto sale el trámite de reválida?", [costo])
    assert "$ 900" in body(answer), body(answer)


def test_a_lead_in_said_alone_is_not_the_answer():
    text = (
        "Al terminar la práctica, el estudiante entrega el informe de la práctica como se indica a continuación:\n\n"
        "El informe de la práctica se entrega a la Unidad de Prácticas dentro de los 30 días."
    )
    informe = hit("practicas", "Prácticas", text, "https://x.example/practicas", "Informe")
    answer = ExtractiveGenerator(max_sentences=1).generate("¿Cómo entrego el informe de la práctica?", [informe])
    assert body(answer) == "El informe de la práctica se entrega a la Unidad de Prácticas dentro de los 30 días.", body(answer)


def test_a_course_code_the_plan_does_not_give_is_never_swapped_silently():
    hits = _course_hits({"civil": "0112"})
    text = body(ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1 (0205)?", hits))
    assert text.startswith("El plan de estudios lista Circuitos Eléctricos 1 con el código 0204 (no 0205).\n"), text
    assert text.endswith("El prerrequisito de Circuitos Eléctricos 1 (0204) es 0112."), text
    same = body(ExtractiveGenerator().generate("¿Qué prerrequisitos tiene Circuitos Eléctricos 1 (0204)?", hits))
    assert "El plan de estudios lista" not in same


def test_yes_or_no_decided_by_the_students_figure():
    from pipeline.generation.extractive import by_number

    rules = ["Con 25 puntos o más se obtiene la ganancia del curso.", "Pueden solicitarla quienes sumaron entre 20 y 24 puntos."]
    assert by_number("¿Puedo salvar el curso con 22 puntos?", rules) == "yes"  # one rule admits it
    assert by_number("¿Puedo salvar el curso con 12 puntos?", rules) == "no"
    assert by_number("¿Puedo salvar el curso?", rules) is None  # no figure given
    assert by_number("¿Puedo inscribirme con 30 créditos?", ["Se requiere un convenio con la empresa."]) is None


def test_yes_or_no_from_what_the_student_already_did_and_what_is_not_needed():
    from pipeline.generation.extractive import by_condition, yes_or_no

    rule = ["El requisito para poder hacer la suficiencia de un curso es no haberlo cursado anteriormente."]
    assert by_condition("¿Puedo solicitar suficiencia de un curso que ya cursé?", rule) == "no"
    assert by_condition("¿Puedo solicitar suficiencia de un curso?", rule) is None
    assert yes_or_no("Se les asigna automáticamente, no es necesario que realicen el procedimiento en el portal.") == "no"


def test_an_item_that_announces_sub_items_is_said_with_them_and_not_with_its_next_sibling():
    text = (
        "ARTÍCULO 9. APROBACIÓN DE PROYECTOS\n"
        "El estudiante deberá presentar lo siguiente:\n"
        "a.) Perfil del proyecto, el cual debe contener:\n"
        "a.1 Descripción general de la institución, sus funciones y actividades.\n"
        "a.2 Un análisis de la situación actual que justifique el proyecto.\n"
        "a.3 Descripción del proyecto a realizar.\n"
        "b.) Informar al estudiante en un tiempo máximo de 15 días de la aprobación del perfil.\n"
    )
    hits = [hit("practicas", "Normativo de prácticas", text, "https://example.edu/practicas")]
    answer = ExtractiveGenerator().generate("¿Qué debe incluir el perfil del proyecto?", hits)
    assert "Descripción del proyecto a realizar" in answer.text and "situación actual" in answer.text
    assert "15 días" not in answer.text  # 'b.)' is the next item of the outer list, not a part of the profile


def test_shared_words_lead_the_unit_score_when_the_embedder_reads_spelling_not_meaning():
    from types import SimpleNamespace

    from pipeline.embeddings import HashingEmbedder

    wrapped = SimpleNamespace(inner=HashingEmbedder())  # as the embedding cache wraps it
    assert ExtractiveGenerator(embedder=wrapped).selection.lexical_weight == 1.0
    assert ExtractiveGenerator(embedder=HashingEmbedder()).selection.dense_weight < ExtractiveGenerator(embedder=object()).selection.dense_weight


def test_a_list_cut_by_a_page_break_goes_on_with_the_next_chunk_items_that_follow_its_numbering():
    first = "ARTÍCULO 31°. FALTA GRAVE: Se considera falta grave:\na) Acumulación de tres faltas leves.\nb) No asistir a las reuniones programadas sin justificación.\n"
    second = "c) Irrespeto de las normas de la Universidad y de la fuente de práctica.\nd) Entregar tarde el informe final del proyecto.\n"
    other = "ARTÍCULO 40°. Otras disposiciones:\nf) Los casos no previstos los resuelve la Junta Directiva de la Facultad.\n"
    hits = [hit("eps", "Normativo de EPS", first, "https://example.edu/eps", pos=0), hit("eps", "Normativo de EPS", second, "https://example.edu/eps", pos=1, score=0.5)]
    answer = ExtractiveGenerator().generate("¿Qué se considera una falta grave?", hits)
    assert "Acumulación de tres faltas leves" in answer.text and "Irrespeto de las normas" in answer.text and "Entregar tarde" in answer.text
    hits[1] = hit("eps", "Normativo de EPS", other, "https://example.edu/eps", pos=1, score=0.5)
    assert "casos no previstos" not in ExtractiveGenerator().generate("¿Qué se considera una falta grave?", hits).text  # 'f)' does not follow 'b)'


def test_a_programme_named_in_the_question_is_not_answered_by_a_longer_programme_name_that_contains_it():
    def plan(doc: str, name: str, total: int):
        text = f"Ingeniería {name}\nLa carrera de Ingeniería {name} consta de {total} créditos CLAR.\ncodigo: 0204\nnombre: Circuitos Eléctricos 1\ncreditos: 7\nobligatorio: Sí\n---\n"
        return hit(doc, f"Pensum {name}", text, "https://x.example", "PERFIL")

    mech = hit("pensum_mecanica", "Pensum Mecánica", "Ingeniería Mecánica\nLa carrera consta de 300 créditos CLAR, distribuidos en 10 semestres.\ncodigo: 0204\nnombre: Circuitos Eléctricos 1\ncreditos: 6\nobligatorio: Sí\n---\n", "https://x.example", "PERFIL", pos=1)
    others = [plan(f"pensum_{d}", d.capitalize(), 250) for d in ("civil", "quimica", "sistemas")]  # a faculty's other programmes
    hits = [plan("pensum_mecanica_industrial", "Mecánica Industrial", 360), mech, plan("pensum_industrial", "Industrial", 300), *others]
    gen = ExtractiveGenerator()
    for question, doc, total in (("¿Cuántos créditos tiene la carrera de Ingeniería Mecánica?", "pensum_mecanica", "300"),
                                 ("¿Cuántos créditos tiene la carrera de Ingeniería Mecánica Industrial?", "pensum_mecanica_industrial", "360")):
        best = gen.rank(question, hits, gen.coverage(question, hits)[0], ask(question))[0]
        assert best.chunk.doc_id == doc and total in best.text  # the unit that says 'Mecánica Industrial' in full does not answer for 'Mecánica'


def test_a_question_asking_for_a_value_prefers_a_unit_that_gives_it_and_a_vaguer_kind_is_not_penalised():
    from dataclasses import replace

    from pipeline.generation.selection import SelectionConfig, score

    def best(question: str, cfg: SelectionConfig) -> str:
        hits = [
            hit("revalida", "Reválidas", "El trámite de reválida de materias cursadas en otra universidad se inicia en Bedelía con el formulario R-1.", "https://x.example/r", "Trámite"),
            hit("revalida", "Reválidas", "La reválida se abona $ 900 por solicitud.", "https://x.example/r", "Costo", pos=1),
        ]
        weights = {"reva": 1.0, "mate": 1.0, "trami": 1.0, "univ": 1.0, "otra": 0.5}
        return score(question, weights, None, hits, cfg)[0].text

    cost = "¿Cuánto cuesta el trámite de reválida de materias de otra universidad?"
    assert "$ 900" in best(cost, SelectionConfig())  # a cost question needs a unit with an amount
    assert "$ 900" not in best(cost, replace(SelectionConfig(), miss_types=frozenset()))  # without the factor, shared words win
    assert SelectionConfig().miss_types == {"date", "time", "amount", "count"}  # the vaguer kinds (requirement, place, who) match by wide patterns: no factor


def test_an_article_that_defers_to_another_brings_that_article():
    norm = "normativo"
    url = "https://x/normativo"
    chunks = [
        hit(norm, "Normativo de evaluación", "Artículo 44°. Se denominan evaluaciones de recuperación a aquellas que se le realizan al estudiante que no ha aprobado el curso en la evaluación final; para tener derecho a someterse a estas evaluaciones debe cumplir con lo establecido en el artículo 58.", url, "Artículo 44°. Se denominan evaluaciones de recuperación", pos=0),
        hit(norm, "Normativo de evaluación", "Artículo 45°. También podrán someterse a las evaluaciones de recuperación los estudiantes que hayan aprobado, con el fin de mejorar su nota.", url, "Artículo 45°. También podrán", pos=1, score=0.5),
    ]
    later = hit(norm, "Normativo de evaluación", "Artículo 58°. Para tener derecho a la evaluación de fin de curso o a las evaluaciones de recuperación, el estudiante debe tener una zona mínima de 36 puntos y el 80 % de asistencia a los laboratorios.", url, "Artículo 58°. Para tener derecho", pos=2, score=0.0)

    class Index:
        def exists(self) -> bool:
            return True

        def all_chunks(self, *, with_vectors: bool = False):
            return [(h.chunk, None) for h in [*chunks, later]]

    gen = ExtractiveGenerator(index=Index(), embedder=None, expand_documents=0)  # article 58 is not among the retrieved chunks
    answer = gen.generate("¿Qué necesito para tener derecho a los exámenes de recuperación?", chunks)
    text = answer.text
    assert "artículo 44" in text and "zona mínima de 36 puntos" in text and text.index("artículo 44") < text.index("zona mínima")
    validate(answer.derivation, n_chunks=len(answer.hits))  # the followed article is a premise of the derivation
    # an article of another regulation it names is not followed
    other = [hit(norm, "Normativo de evaluación", "Artículo 44°. Las evaluaciones de recuperación se rigen por lo establecido en el artículo 58 del Reglamento General de Evaluación.", url, "Artículo 44°.", pos=0)]
    answer = gen.generate("¿Qué necesito para tener derecho a los exámenes de recuperación?", other)
    assert "zona mínima" not in answer.text


def test_where_to_get_something_online_is_a_place():
    from pipeline.generation.selection import asked_types, unit_types

    assert "place" in asked_types("Necesito una constancia de estudiante. ¿Dónde la saco?")
    assert "place" in unit_types("Se descarga al instante desde el SIGE en formato PDF con firma electrónica.")[0]
    assert "place" not in unit_types("Sirve para el trabajo, para la mutualista y para el boleto estudiantil.")[0]


def test_a_table_row_named_only_in_the_message_context_is_not_taken_for_the_asked_total():
    table = ("Para obtener el título necesitás aprobar un total de 450 créditos, distribuidos de la siguiente forma:\n\n"
             "| Componente | Créditos mínimos |\n|---|---|\n| Matemática | 70 |\n| Materias técnicas | 220 |\n| Pasantía | 10 |\n"
             "| Proyecto de fin de carrera | 30 |\n| **Total** | **450** |")
    hits = [hit("titulo", "Requisitos para obtener el título", table, "https://x.example/titulo", "Créditos necesarios para recibirte")]
    gen = ExtractiveGenerator()
    asked = "¿Cuántos créditos necesito para recibirme? No me queda claro si el proyecto y la pasantía cuentan."
    assert "450" in gen.generate(asked, hits).text  # the total, not the pasantía's row the context mentions
    named = "¿Cuántos créditos vale la pasantía?"
    best = gen.rank(named, hits, gen.coverage(named, hits)[0], ask(named))[0]
    assert "10" in best.text and "Pasantía" in best.text  # a row the asked clause names is still the answer


def test_the_followed_article_does_not_count_towards_the_drafts_length():
    norm = "normativo"
    url = "https://x/normativo"
    chunks = [
        hit(norm, "Normativo de evaluación", "Artículo 44°. Se denominan evaluaciones de recuperación a aquellas que se le realizan al estudiante que no ha aprobado el curso en la evaluación final; para tener derecho a someterse a estas evaluaciones debe cumplir con lo establecido en el artículo 58.", url, "Artículo 44°. Se denominan evaluaciones de recuperación", pos=0),
        hit(norm, "Normativo de evaluación", "Artículo 45°. También podrán someterse a las evaluaciones de recuperación los estudiantes que hayan aprobado, con el fin de mejorar su nota.", url, "Artículo 45°. También podrán", pos=1, score=0.5),
    ]
    later = hit(
        norm,
        "Normativo de evaluación",
        "Artículo 58°. Para tener derecho a la evaluación de fin de curso o a las evaluaciones de recuperación, el estudiante debe tener una zona mínima de 36 puntos, "
        "haber entregado todas las prácticas del laboratorio con una nota mínima de 61 puntos, tener el 80 % de asistencia a las clases magistrales y a los laboratorios "
        "y estar solvente con la biblioteca de la facultad y con la unidad de control académico al cierre del período de evaluación.",
        url,
        "Artículo 58°. Para tener derecho",
        pos=2,
        score=0.0,
    )

    class Index:
        def exists(self) -> bool:
            return True

        def all_chunks(self, *, with_vectors: bool = False):
            return [(h.chunk, None) for h in [*chunks, later]]

    gen = ExtractiveGenerator(index=Index(), embedder=None, expand_documents=0)
    answer = gen.generate("¿Qué necesito para tener derecho a los exámenes de recuperación?", chunks)
    text = body(answer)
    assert "zona mínima de 36 puntos" in text and len(text.split()) > 70  # the answer (about 40 words) and the article it follows
    flag = readiness_of(answer.flags)
    assert flag["missing"] != t("missing_long", "es")  # only the answer's own words count towards the length check


def test_a_sentence_that_points_back_is_said_with_the_sentence_it_refers_to():
    text = ("La entrega del informe final de la práctica vence a los 30 días de terminada la práctica. "
            "Este plazo puede extenderse una sola vez, por quince días, con una nota al coordinador.")
    informe = hit("practicas", "Prácticas supervisadas", text, "https://x.example/practicas", "Informe final")
    answer = ExtractiveGenerator().generate("¿Por cuántos días se puede extender?", [informe])
    assert body(answer) == text, body(answer)  # 'Este plazo…' alone does not say which plazo
    assert step_flags(answer) == [] and {s.rule for s in answer.derivation} >= {"Extract", "Refine"}
    from pipeline.generation.extractive import points_back
    assert points_back("Dicho examen se rinde en marzo.") and points_back("En ese caso, podés pedir una prórroga.")
    assert not points_back("Este reglamento rige desde 2020.") and not points_back("Está prohibido copiar en los exámenes.")


def test_a_sentence_ending_in_a_date_is_whole_not_cut_by_a_page_break():
    text = ("Los estudiantes pueden inscribirse a los exámenes desde el portal durante el período de inscripción. "
            "No se aceptan inscripciones fuera de plazo después del 22 de enero de 2027.")
    examenes = hit("examenes", "Exámenes", text, "https://x.example/examenes", "Inscripción a exámenes")
    said = body(ExtractiveGenerator().generate("¿Me puedo inscribir a los exámenes por el portal?", [examenes]))
    assert said.startswith("Sí.") and "después del 22 de enero de 2027" in said, said  # the denial's date is not a page number
    from pipeline.generation.extractive import _fragment
    assert _fragment("El estudiante no puede 6") and not _fragment("El plazo vence el 15 de marzo de 2027.")


def test_the_general_rule_is_said_before_its_special_case():
    from pipeline.generation.extractive import general_first

    text = ("Si el estudiante ya trabaja en tareas de ingeniería, la práctica se le reconoce con una constancia laboral. "
            "La práctica supervisada se realiza en una empresa u organismo durante 200 horas.")
    practica = hit("practicas", "Prácticas supervisadas", text, "https://x.example/practicas", "Práctica supervisada")
    gen, q = ExtractiveGenerator(), "¿Cómo es la práctica supervisada?"
    cands = gen.rank(q, [practica], gen.coverage(q, [practica])[0], ask(q))
    special = next(c for c in cands if c.text.startswith("Si el estudiante"))
    general = next(c for c in cands if c.text.startswith("La práctica supervisada"))
    assert general_first([special, general]) == [general, special]  # the document's order would say the exception first


def test_how_many_are_required_is_not_answered_by_a_ceiling():
    text = "Cada grupo de proyecto puede tener hasta 5 integrantes. Los grupos de proyecto se forman con 3 integrantes y un tutor docente."
    proyecto = hit("proyecto", "Proyecto de grado", text, "https://x.example/proyecto", "Grupos de proyecto")
    gen = ExtractiveGenerator(max_sentences=1)
    assert body(gen.generate("¿Cuántos integrantes tienen que ser en el grupo de proyecto?", [proyecto])).startswith("Los grupos de proyecto se forman con 3")
    assert body(gen.generate("¿Cuántos integrantes puede tener como máximo un grupo de proyecto?", [proyecto])).startswith("Cada grupo de proyecto puede tener hasta 5")


def test_what_else_to_hand_in_is_answered_by_the_unit_that_names_the_papers():
    text = ("El trámite de reválida se inicia en la Secretaría de la Facultad y la resuelve la comisión de reválidas en un plazo de dos meses. "
            "La solicitud debe incluir la fotocopia de la cédula, la escolaridad de la universidad de origen y el programa de cada curso aprobado.")
    revalida = hit("revalida", "Reválidas", text, "https://x.example/revalida", "Reválida de cursos")
    said = body(ExtractiveGenerator(max_sentences=1).generate("Ya inicié la reválida en la Secretaría. ¿Qué más tengo que presentar para la reválida?", [revalida]))
    assert said.startswith("La solicitud debe incluir la fotocopia de la cédula"), said  # the papers, not where the trámite starts
    from pipeline.generation.asking import kind_of
    from pipeline.generation.selection import asked_types
    for q in ("¿Qué documentos necesito para la beca?", "¿Qué papeles piden para inscribirme?", "¿Qué más tengo que entregar?"):
        assert kind_of(q) == "requirement" and "documents" in asked_types(q), q


def test_a_table_row_is_named_by_the_words_that_tell_it_from_the_other_rows():
    table = ("Para recibirte necesitás 300 créditos, distribuidos de la siguiente forma:\n\n"
             "| Área | Créditos mínimos |\n|---|---|\n| Materias básicas | 90 |\n| Materias profesionales | 150 |\n| Materias electivas (optativas) | 35 |\n"
             "| Práctica profesional | 25 |\n\n"
             "Los créditos que superen el mínimo de un área cuentan como electivos, hasta completar los 300.")
    hits = [hit("titulo", "Título de grado", table, "https://x.example/titulo", "Créditos para el título")]
    gen, q = ExtractiveGenerator(max_sentences=1), "¿Y cuántos tienen que ser de electivas?"
    best = gen.rank(q, hits, gen.coverage(q, hits)[0], ask(q))[0]
    assert best.text == "Materias electivas (optativas): 35 créditos." and "name" in best.parts, best.text  # 'electivas' tells the row from 'Materias básicas'


def test_a_yes_no_rule_is_said_with_the_sentence_that_goes_on_from_it():
    text = ("Si te queda una sola materia pendiente del liceo podés inscribirte en forma condicional. "
            "En ese caso cursás el primer semestre, pero tenés que aprobar la materia y presentar el certificado antes del 30 de abril de 2027. "
            "Las inscripciones condicionales las resuelve la Comisión de Ingreso.")
    ingreso = hit("ingreso", "Ingreso", text, "https://x.example/ingreso", "Ingreso condicional")
    said = body(ExtractiveGenerator().generate("Me quedó una materia pendiente del liceo. ¿Puedo inscribirme igual en forma condicional?", [ingreso]))
    assert said.startswith("Sí. Si te queda una sola materia") and "antes del 30 de abril de 2027" in said, said  # what the condition asks of the student
    assert "Comisión de Ingreso" not in said and said.count("Si te queda") == 1, said


def test_the_items_of_a_list_of_papers_answer_what_else_to_hand_in():
    text = ("La solicitud de reválida se puede presentar en marzo o en septiembre de cada año.\n\n"
            "Documentación necesaria:\n\n- Solicitud R-9 completa, una fila por materia.\n- Programa de cada materia, sellado por la institución de origen.\n"
            "- Para instituciones extranjeras, los programas legalizados o apostillados.")
    revalida = hit("revalida", "Reválidas", text, "https://x.example/revalida", "Reválidas")
    said = body(ExtractiveGenerator(index=TinyIndex()).generate("Ya mandé el programa. ¿Qué más tengo que presentar para la reválida de la materia?", [revalida]))
    assert "Solicitud R-9" in said and "apostillados" in said, said


def test_a_special_case_alone_does_not_hide_the_general_rule():
    text = ("## Plazos de la convocatoria\n\n- **Solicitudes nuevas (todas las ayudas):** del 1 al 20 de marzo de 2027.\n"
            "- **Ayuda de comedor — convocatoria extraordinaria:** del 3 al 14 de septiembre de 2027, solo si quedan cupos.\n"
            "- **Renovaciones:** del 1 al 30 de abril de 2027.")
    ayudas = hit("ayudas", "Ayudas estudiantiles", text, "https://x.example/ayudas", "Plazos de la convocatoria")
    said = body(ExtractiveGenerator().generate("¿Hasta cuándo puedo pedir la ayuda de comedor?", [ayudas], today=date(2026, 12, 1)))
    assert "del 1 al 20 de marzo de 2027" in said and "solo si quedan cupos" in said, said  # the regular period, then the exception
    assert said.index("1 al 20 de marzo") < said.index("3 al 14 de septiembre") and "Renovaciones" not in said, said


def test_units_of_another_chunk_are_not_ordered_by_offsets_that_count_within_their_own_chunk():
    from pipeline.generation.extractive import general_first

    first = hit("becas", "Becas", "## Becas\n\nIntro breve de la oficina de becas.\n\nLa beca de comedor cubre el almuerzo de lunes a viernes.", "https://x.example/becas", "Becas", pos=0)
    second = hit("becas", "Becas", "Las solicitudes de beca de comedor se presentan en marzo.", "https://x.example/becas", "Plazos", pos=1)
    gen, q = ExtractiveGenerator(), "¿Qué cubre la beca de comedor y cuándo se pide?"
    cands = gen.rank(q, [first, second], gen.coverage(q, [first, second])[0], ask(q))
    covers = next(c for c in cands if c.text.startswith("La beca de comedor cubre"))
    asks = next(c for c in cands if c.text.startswith("Las solicitudes"))
    assert asks.unit.offset < covers.unit.offset  # offsets count within a chunk: another chunk's unit is not placed by them
    assert general_first([covers, asks]) == [covers, asks] and general_first([asks, covers]) == [asks, covers]  # the better chunk first


def test_sub_items_end_where_the_outer_list_goes_on_with_its_next_letter():
    text = (
        "ARTÍCULO 30°. FALTA LEVE: se considera como falta leve:\n"
        "a) Entregar los informes parciales después del tiempo establecido.\n"
        "b) Ausentarse de la fuente de la práctica sin haber obtenido el permiso correspondiente.\n"
        "c) Cuando el informe final no se entregue en un máximo de 60 días calendario la penalización será:\n"
        "a) Retiro del Programa.\n"
        "b) Suspensión de matrícula hasta por 2 años.\n"
        "d) Asistir tarde a cualesquiera de los eventos o reuniones programados.\n"
    )
    hits = [hit("eps", "Normativo de EPS", text, "https://example.edu/eps")]
    answer = ExtractiveGenerator().generate("¿Qué se considera una falta leve en el EPS?", hits)
    lines = answer.text.splitlines()
    assert "   - Retiro del Programa." in lines and "   - Suspensión de matrícula hasta por 2 años." in lines  # the penalty's own items
    assert "- Asistir tarde a cualesquiera de los eventos o reuniones programados." in lines  # 'd)' is the fourth fault, not a penalty


def test_a_table_a_pdf_flattened_is_said_under_its_lead_in_whole_or_by_the_row_that_holds_the_students_figure():
    text = (
        "Artículo 16°. Para cada ciclo lectivo (semestre) el estudiante tiene derecho\n"
        "a asignarse un máximo de créditos, dependiendo la siguiente tabla:\n"
        "PROMEDIO\nPromedio ≤70\n71 a 85\n86 a 100\nCRÉDITOS CLAR (MÁXIMOS)\n32\n37\n42\n"
        "En los casos de estudiantes que cursen carreras simultáneas podrán\nasignarse 5 créditos adicionales en la tabla indicada.\n"
    )
    hits = [hit("normativo", "Normativo de evaluación", text, "https://example.edu/normativo", "Asignación")]
    said = body(ExtractiveGenerator().generate("Tengo promedio de 90 y mi pensum es CLAR, ¿cuál es el máximo de créditos que puedo asignarme?", hits))
    lines = said.splitlines()
    assert lines[0].endswith("dependiendo la siguiente tabla:") and lines[1:] == ["- Promedio 86 a 100: 42 créditos."], said  # the row whose span holds 90
    assert not re.search(r"\b\d{2} \d{2}\b", said)  # no run of stray numbers
    gen = ExtractiveGenerator()
    for q, want in (("¿Cuál es el máximo de créditos que me puedo asignar por semestre?", ["32", "37", "42"]), ("Con 80 de promedio, ¿cuántos créditos me puedo asignar?", ["37"])):
        cands = gen.rank(q, hits, gen.coverage(q, hits)[0], ask(q))
        top = next(c for c in cands if c.unit.kind == "row")
        for c in cands:
            c.score = 1.0 if c is top else 0.1  # a lead-in that scores far below the row
        lead, rows = whole_list(ask(q), top, cands, q)
        assert lead.endswith("dependiendo la siguiente tabla") and [r.unit.fields["Créditos CLAR (máximos)"] for r in rows] == want, q


def test_a_lead_in_that_announces_a_table_is_said_with_the_row_that_holds_the_students_figure():
    text = (
        "Artículo 16°. Para cada ciclo lectivo el estudiante tiene derecho a asignarse un máximo de créditos, dependiendo la siguiente tabla:\n"
        "PROMEDIO\nPromedio ≤70\n71 a 85\n86 a 100\nCRÉDITOS CLAR (MÁXIMOS)\n32\n37\n42\n"
    )
    hits = [hit("normativo", "Normativo de evaluación", text, "https://example.edu/normativo", "Asignación")]
    gen, q = ExtractiveGenerator(), "Tengo promedio de 80, ¿cuántos créditos me puedo asignar en el semestre?"
    cands = gen.rank(q, hits, gen.coverage(q, hits)[0], ask(q))
    lead = next(c for c in cands if c.unit.kind == "sentence")
    said, rows = whole_list(ask(q), lead, cands, q)
    assert said.endswith("dependiendo la siguiente tabla") and [r.unit.fields["Créditos CLAR (máximos)"] for r in rows] == ["37"]


def test_a_rows_span_is_read_from_its_label():
    from pipeline.generation.extractive import _range

    assert _range("Promedio 71 a 85") == (71.0, 85.999) and _range("Entre 61 y 70") == (61.0, 70.999)
    assert _range("70 ≤ promedio < 75") == (70.0, 75.0) and _range("Promedio ≤ 70")[1] == 70.999 and _range("Materias básicas") is None


def test_a_lead_in_said_without_its_list_points_to_where_the_list_is_and_is_not_ready():
    text = "Artículo 63°. Cuando un estudiante ha completado los requisitos de cierre de pensum podrá graduarse mediante la aprobación de alguna de las siguientes opciones:"
    hits = [hit("normativo", "Normativo de evaluación", text, "https://example.edu/normativo", "Artículo 63°")]
    answer = ExtractiveGenerator().generate("¿Qué opciones tengo para graduarme después de cerrar pensum?", hits)
    said = body(answer)
    assert said.endswith("alguna de las siguientes opciones (la lista completa está en el artículo 63 del documento citado)."), said
    assert readiness_of(answer.flags)["flag"] != "listo"



def test_rows_that_each_say_the_same_column_word_say_it_once_after_the_lead_in():
    text = (
        "## Límites por semestre\n\n| Situación | Máximo de créditos en cursos por semestre |\n|---|---|\n"
        "| Régimen general | 60 créditos |\n| Estudiantes con promedio igual o mayor a 9 | 75 créditos |\n| Estudiantes de primer semestre de ingreso | 45 créditos |\n"
    )
    hits = [hit("creditos", "El sistema de créditos", text, "https://x.example/creditos", "Límites por semestre")]
    said = body(ExtractiveGenerator().generate("¿Cuál es el máximo de créditos que puedo cursar en un semestre?", hits))
    assert said.count("máximo de créditos en cursos por semestre") == 1, said
    assert "- Régimen general: 60 créditos." in said.splitlines() and "- Estudiantes de primer semestre de ingreso: 45 créditos." in said.splitlines(), said


def test_a_next_articles_heading_left_after_a_sentence_is_not_said():
    from pipeline.generation.extractive import NEXT_HEADING

    assert NEXT_HEADING.sub("", "tales como: ejercicios, prácticas, etc. Artículo 38°.") == "tales como: ejercicios, prácticas, etc."
    assert NEXT_HEADING.sub("", "las actividades definidas en el Artículo 8°.") == "las actividades definidas en el Artículo 8°."  # a reference stays
