"""Offline drafts that answer the question asked: the readiness label, lists said whole, yes/no first, the current period."""

from __future__ import annotations

from datetime import date

from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.readiness import object_phrase, readiness_of, readiness_text
from tests.pipeline.generation_helpers import hit

URL = "https://x.example/guia"
GUIDE = (
    "## Examen privado\n\n"
    "Para solicitar el examen privado el estudiante debe realizar lo siguiente:\n\n"
    "- Ingresar al portal estudiantil con su usuario.\n"
    "- Seleccionar la opción Solicitud de examen privado.\n"
    "- Adjuntar la constancia de inscripción en formato PDF.\n"
    "- Enviar la solicitud y esperar el correo de confirmación.\n\n"
    "El examen privado se realiza en el edificio T-3 de la Facultad."
)
RULES = (
    "## Evaluación\n\n"
    "Artículo 20. El estudiante que sea descubierto copiando en un examen será sancionado con la anulación del examen y su caso se trasladará a Junta Directiva.\n\n"
    "Artículo 21. El estudiante podrá solicitar la revisión de su examen por escrito dentro de los tres días hábiles posteriores a la publicación de resultados.\n\n"
    "Artículo 22. No se permite el uso de teléfonos celulares durante los exámenes."
)
DATES = (
    "## Calendario\n\n"
    "Las inscripciones del primer semestre 2026 fueron del 5 al 16 de enero de 2026.\n\n"
    "Las inscripciones del primer semestre 2027 serán del 11 al 22 de enero de 2027."
)


def body(answer) -> str:
    return answer.text.split("\n\n", 1)[1].split("\n\nReferencias:")[0]


def test_a_procedure_is_answered_with_its_whole_list_numbered_and_ready():
    answer = ExtractiveGenerator().generate("¿Cómo solicito el examen privado?", [hit("guia", "Guía de graduación", GUIDE, URL, "Examen privado")])
    text = body(answer)
    assert text.splitlines()[0] == "Para solicitar el examen privado el estudiante debe realizar lo siguiente:", text
    assert [line[:3] for line in text.splitlines()[1:]] == ["1. ", "2. ", "3. ", "4. "], text
    assert "4. Enviar la solicitud y esperar el correo de confirmación." in text
    assert readiness_of(answer.flags)["flag"] == "listo"


def test_a_cost_the_documents_do_not_give_is_labelled_with_what_is_missing_and_the_closest_passages():
    answer = ExtractiveGenerator().generate("¿Cuánto cuesta el examen privado?", [hit("guia", "Guía de graduación", GUIDE, URL, "Examen privado")])
    flag = readiness_of(answer.flags)
    assert flag["flag"] == "necesita revisión"
    assert flag["missing"] == "no encontré el costo: «el examen privado»"
    assert 1 <= len(flag["passages"]) <= 3 and all(p["doc_id"] == "guia" and p["text"] for p in flag["passages"])
    shown = readiness_text(flag)
    assert shown.startswith("Estado del borrador: necesita revisión — no encontré el costo") and "1. [Guía de graduación]" in shown


def test_a_consequence_question_gets_the_sanction_not_a_neighbouring_article():
    answer = ExtractiveGenerator().generate("¿Qué pasa si me descubren copiando en un examen?", [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")])
    text = body(answer)
    assert "sancionado con la anulación" in text and "celulares" not in text, text
    assert readiness_of(answer.flags)["flag"] == "listo"


def test_a_yes_no_question_is_answered_yes_or_no_first():
    gen = ExtractiveGenerator()
    yes = body(gen.generate("¿Puedo pedir la revisión de mi examen?", [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")]))
    assert yes.startswith("Sí. ") and "tres días hábiles" in yes, yes
    no = body(gen.generate("¿Puedo usar el celular durante los exámenes?", [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")]))
    assert no.startswith("No. ") and "teléfonos celulares" in no, no


def test_the_current_period_is_preferred_to_a_past_one():
    gen = ExtractiveGenerator(today=date(2026, 11, 25))
    answer = gen.generate("¿Cuándo son las inscripciones del primer semestre?", [hit("calendario", "Calendario", DATES, URL, "Calendario")])
    text = body(answer)
    assert "2027" in text and "2026" not in text, text


def test_the_object_phrase_drops_the_interrogative_words():
    assert object_phrase("¿Cuánto vale el examen final?") == "el examen final"
    assert object_phrase("Hola. ¿Qué pasa si me descubren copiando?") == "descubren copiando"


def test_an_article_that_announces_a_list_is_said_with_the_list():
    text = (
        "## Régimen disciplinario\n\n"
        "ARTÍCULO 30. Se considera como falta leve:\n\n"
        "a) Entregar los informes parciales después del tiempo establecido.\n"
        "b) Ausentarse de la fuente de práctica sin permiso.\n"
        "c) Asistir tarde a las reuniones programadas.\n\n"
        "ARTÍCULO 31. Las faltas graves se trasladan a Junta Directiva."
    )
    answer = ExtractiveGenerator().generate("¿Qué se considera una falta leve en la práctica?", [hit("eps", "Normativo de EPS", text, URL, "Régimen disciplinario")])
    lines = body(answer).splitlines()
    assert lines[0] == "ARTÍCULO 30. Se considera como falta leve:" and len(lines) == 4, lines
    assert lines[3] == "- Asistir tarde a las reuniones programadas."


def test_an_open_question_is_ready_only_as_a_definition():
    gen = ExtractiveGenerator()
    hits = [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")]
    open_q = readiness_of(gen.generate("¿Qué dice el normativo de los teléfonos celulares en los exámenes?", hits).flags)
    assert open_q["flag"] == "necesita revisión" and open_q["missing"].startswith("la pregunta es abierta")
    text = "## Glosario\n\nLa zona es la suma de las notas de las actividades del curso antes del examen final."
    definition = gen.generate("¿Qué es la zona de un curso?", [hit("glosario", "Glosario", text, URL, "Glosario")])
    assert readiness_of(definition.flags)["flag"] == "listo"


def test_pdf_debris_is_told_apart_from_clean_text():
    from pipeline.generation.readiness import garbled

    assert garbled("NSPICO: en los cursos o asio Sodran AROLIN asignaturas en el área básica.")
    assert garbled("Nombre del archivo en formato.PDF: Constancialnscripcion_#carné 2 Solvencia General")
    assert garbled("DURACIÓN Y REQUISITOS DEL EPS: de seis meses mínimo.")
    assert not garbled("Artículo 8°. Las actividades curriculares comprenden ejercicios, proyectos y prácticas de laboratorio.")
    assert not garbled("El área de prácticas: inicial, intermedia y final, también deben asignarse en la Unidad de EPS.")


def test_a_past_period_is_never_said_next_to_the_current_one():
    old = hit("calendario_2026", "Calendario académico 2026", "## Calendario 2026\n\nInscripción a los exámenes de febrero: hasta el viernes 22 de enero de 2026 en el SIGE.", URL, "Inscripción a exámenes de febrero")
    new = hit("examenes", "Exámenes", "## Exámenes\n\nPeríodo 2027: inscripción hasta el 21 de enero de 2027.", URL, "Exámenes", pos=1)
    text = body(ExtractiveGenerator(today=date(2026, 11, 25)).generate("¿Hasta cuándo me puedo inscribir a los exámenes de febrero?", [old, new]))
    assert "21 de enero de 2027" in text and "2026" not in text, text


def test_the_flag_records_the_evidence_the_label_was_decided_on():
    ready = readiness_of(ExtractiveGenerator().generate("¿Cómo solicito el examen privado?", [hit("guia", "Guía de graduación", GUIDE, URL, "Examen privado")]).flags)
    ev = ready["evidence"]
    assert ev["object_share"] >= 0.6 and ev["own_object_share"] >= 0.5 and ev["words"] > 10
    assert "confidence" not in ev  # no learned ranker: no confidence to record
    missing = readiness_of(ExtractiveGenerator().generate("¿Cuánto cuesta el examen privado?", [hit("guia", "Guía de graduación", GUIDE, URL, "Examen privado")]).flags)
    assert missing["flag"] == "necesita revisión" and "object_share" in missing["evidence"]


WITHDRAWAL = (
    "## Retiro de asignaturas\n\n"
    "Artículo 31. Hasta la octava semana del ciclo, el estudiante puede retirar una asignatura desde el portal, una sola vez por asignatura. "
    "El estudiante no puede retirar todas las asignaturas de un mismo ciclo, salvo por enfermedad comprobada ante la Secretaría.\n\n"
    "Artículo 32. Las asignaturas retiradas no cuentan como reprobadas."
)
LATE = (
    "## Matrícula extemporánea\n\n"
    "Quien no se haya matriculado en fecha puede pedir la matrícula extemporánea con el formulario ME-4. La petición:\n\n"
    "- se entrega hasta el tercer día hábil del ciclo;\n"
    "- lleva una constancia que la justifique;\n"
    "- no procede para grupos llenos.\n\n"
    "## Otros trámites\n\n"
    "Las constancias se piden en la ventanilla."
)


def test_a_yes_no_answer_carries_the_exception_of_the_same_article():
    gen = ExtractiveGenerator()
    hits = [hit("normativo", "Normativo de evaluación", WITHDRAWAL, URL, "Retiro de asignaturas")]
    all_of_them = body(gen.generate("¿Puedo retirar todas mis asignaturas del ciclo?", hits))
    assert all_of_them.startswith("No. ") and "salvo por enfermedad" in all_of_them, all_of_them
    one = body(gen.generate("¿Puedo retirar una asignatura?", hits))
    assert one.startswith("Sí. ") and "una sola vez" in one and "no puede retirar todas" in one, one  # the permission with its limit
    assert "no cuentan como reprobadas" not in one  # the next article is not the same rule


def test_a_yes_no_answer_carries_the_conditions_listed_after_the_rule():
    answer = ExtractiveGenerator().generate("Me operan y no llego a matricularme en fecha. ¿Puedo pedir la matrícula extemporánea?",
                                            [hit("tramites", "Trámites", LATE, URL, "Matrícula extemporánea")])
    text = body(answer)
    assert text.startswith("Sí.") and "ME-4" in text and "tercer día hábil" in text and "grupos llenos" in text, text
    assert "ventanilla" not in text


LIMITS = (
    "## Topes por trimestre\n\n"
    "| Caso | Tope de horas |\n|---|---|\n"
    "| Régimen común | 40 horas |\n"
    "| Alumnos con beca de investigación y tesis en curso | 55 horas |\n"
    "| Alumnos de primer trimestre | 30 horas |\n"
)
AGENDA = (
    "## Agenda del segundo trimestre 2026\n\n"
    "| Actividad | Fecha |\n|---|---|\n"
    "| Inicio de clases | lunes 3 de agosto de 2026 |\n"
    "| Semana de evaluaciones intermedias | lunes 14 al viernes 18 de septiembre de 2026 |\n"
    "| Última semana de evaluaciones | lunes 9 al viernes 13 de noviembre de 2026 |\n"
    "| Turno de recuperatorios | lunes 23 de noviembre al viernes 4 de diciembre de 2026 |\n"
    "| Cierre de actas | viernes 11 de diciembre de 2026 |\n"
)


def test_a_value_that_depends_on_the_students_situation_is_said_for_every_situation():
    gen = ExtractiveGenerator()
    hits = [hit("topes", "Topes de horas", LIMITS, URL, "Topes por trimestre"), hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación", pos=1, score=0.5)]
    text = body(gen.generate("¿Cuántas horas puedo tomar como máximo en un trimestre?", hits))
    assert "40 horas" in text and "55 horas" in text and "30 horas" in text, text
    named = body(gen.generate("Tengo beca de investigación y tesis en curso, ¿cuántas horas puedo tomar como máximo?", hits))
    assert "55 horas" in named and "40 horas" not in named, named  # the question names its row


def test_the_event_a_student_compares_with_is_said_with_its_date():
    gen = ExtractiveGenerator(today=date(2026, 10, 1))
    hits = [hit("agenda", "Agenda", AGENDA, URL, "Agenda del segundo trimestre 2026"), hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación", pos=1, score=0.5)]
    text = body(gen.generate("¿Cuándo empieza el turno de recuperatorios? Me contaron que se pisa con la última semana de evaluaciones.", hits))
    assert "23 de noviembre" in text and "9 al viernes 13 de noviembre" in text and "agosto" not in text, text
    alone = body(gen.generate("¿Cuándo empieza el turno de recuperatorios?", hits))
    assert "23 de noviembre" in alone and "13 de noviembre" not in alone, alone


def test_a_message_asking_two_things_is_ready_only_when_both_are_answered():
    from pipeline.generation.asking import kind_of

    assert kind_of("¿Dónde la retiro? ¿Tengo que ir a la ventanilla?") == "place"  # the first question that says its kind
    answer = ExtractiveGenerator().generate("¿Puedo pedir la revisión de mi examen? ¿Cuánto cuesta?", [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")])
    flag = readiness_of(answer.flags)
    assert flag["flag"] == "necesita revisión" and "el costo" in flag["missing"], flag


def test_a_regional_word_for_enrolling_meets_the_documents_word():
    from pipeline.generation.lexical import query_keys

    assert query_keys("¿Hasta cuándo puedo anotarme al curso?")[:1] == query_keys("inscribir al curso")[:1]


def test_a_yes_is_not_told_when_the_articles_denial_is_cut_by_a_page_break():
    cut = (
        "## Retiro de asignaturas\n\n"
        "Artículo 31. Hasta la octava semana del ciclo, el estudiante puede retirar una asignatura desde el portal, una sola vez por asignatura. "
        "El estudiante no puede 7\n\n"
        "Artículo 32. Las asignaturas retiradas no cuentan como reprobadas."
    )
    answer = ExtractiveGenerator().generate("¿Puedo retirar todas mis asignaturas del ciclo?", [hit("normativo", "Normativo de evaluación", cut, URL, "Retiro de asignaturas")])
    text = body(answer)
    assert not text.startswith(("Sí", "No")) and "no puede 7" not in text, text
    assert readiness_of(answer.flags)["flag"] == "necesita revisión"


def test_a_yes_read_from_a_modal_verb_does_not_make_an_existence_question_ready():
    rules = "## Evaluación\n\nArtículo 40. El estudiante deberá aprobar la práctica antes de la evaluación de recuperación, en primera o segunda recuperación."
    answer = ExtractiveGenerator().generate("¿Hay primera y segunda recuperación?", [hit("normativo", "Normativo de evaluación", rules, URL, "Evaluación")])
    assert readiness_of(answer.flags)["flag"] == "necesita revisión", answer.text


def test_a_definition_question_is_not_ready_with_a_passage_that_does_not_define_it():
    text = "## Evaluación\n\nEl profesor debe disponer del tiempo necesario para el examen, tomando en consideración los principios de higiene mental y las normas pedagógicas adecuadas."
    answer = ExtractiveGenerator().generate("¿Qué son los principios de higiene mental que se mencionan para el examen?", [hit("normativo", "Normativo", text, URL, "Evaluación")])
    flag = readiness_of(answer.flags)
    assert flag["flag"] == "necesita revisión" and flag["missing"].startswith("no encontré qué es"), flag
    defined = "## Evaluación\n\nArtículo 8. Las actividades curriculares de cada curso comprenden ejercicios, comprobaciones de lectura y prácticas de laboratorio."
    ok = ExtractiveGenerator().generate("¿Qué son las actividades curriculares?", [hit("normativo", "Normativo", defined, URL, "Evaluación")])
    assert readiness_of(ok.flags)["flag"] == "listo"  # 'comprenden' defines as 'son' does


def test_a_consequence_is_not_read_from_the_situation_the_student_describes():
    text = ("## Repitencia\n\nArtículo 19. El estudiante que haya reprobado las veces permitidas en un curso podrá inscribirse una única vez "
            "en otra carrera de la Facultad, siempre y cuando el curso reprobado no sea obligatorio en ella.")
    gen = ExtractiveGenerator()
    echo = readiness_of(gen.generate("¿Qué pasa si repruebo 3 veces un curso obligatorio?", [hit("normativo", "Normativo", text, URL, "Repitencia")]).flags)
    assert echo["flag"] == "necesita revisión" and echo["missing"].startswith("no encontré qué consecuencia tiene"), echo
    sanction = readiness_of(gen.generate("¿Qué pasa si me descubren copiando en un examen?", [hit("normativo", "Normativo de evaluación", RULES, URL, "Evaluación")]).flags)
    assert sanction["flag"] == "listo"  # 'será sancionado con la anulación' is not what the student said


def test_a_consequence_answer_leaves_out_a_neighbouring_requirement():
    text = ("## Evaluación final\n\n"
            "Artículo 77. Para tener derecho a la evaluación final el estudiante debe cumplir lo siguiente:\n\n"
            "- Estar asignado en el curso.\n"
            "- Presentar documento de identificación, de preferencia el Documento Personal de Identificación.\n\n"
            "Artículo 78. Los estudiantes que no se presenten el día y hora señalada para la evaluación final no tendrán calificación en él, "
            "y en el acta se anotará su inasistencia como No se presentó.")
    answer = ExtractiveGenerator().generate("¿Qué pasa si no me presento el día y la hora de la evaluación final?", [hit("normativo", "Normativo", text, URL, "Evaluación final")])
    said = body(answer)
    assert "no tendrán calificación" in said and "documento de identificación" not in said, said


STEPS_TEXT = (
    "## Reválidas\n\n"
    "La reválida es el reconocimiento de una materia aprobada en otra universidad como equivalente a una materia de tu carrera en la Facultad.\n\n"
    "## Documentación necesaria\n\n"
    "1. Formulario R-1 completo, con una fila por cada materia que querés revalidar.\n"
    "2. Escolaridad emitida por la universidad de origen, con notas y fechas de aprobación.\n"
    "3. Programa de cada materia aprobada, sellado y firmado por la universidad de origen.\n\n"
    "La documentación se entrega en formato PDF por correo a revalidas@x.example.\n\n"
    "## Costo\n\n"
    "El trámite es gratuito para materias aprobadas en universidades públicas.\n"
)


def test_a_how_to_question_in_the_first_person_gets_the_papers_it_is_asked_with_not_the_definition():
    answer = ExtractiveGenerator().generate("¿Cómo reválido una materia de otra universidad?", [hit("revalidas", "Reválidas", STEPS_TEXT, URL, "Reválidas")])
    said = body(answer)
    assert "Formulario R-1" in said and "es el reconocimiento" not in said, said
    assert said.rstrip().endswith("por correo a revalidas@x.example."), said  # where the papers go, said after them


def test_a_procedure_said_whole_as_numbered_steps_may_be_longer_than_a_plain_answer():
    steps = "\n".join(f"- {s}" for s in (
        "Ir a la página del portal estudiantil de la Facultad e iniciar sesión con el número de carné.",
        "En el menú de inicio de sesión buscar la opción para recuperar el acceso al portal.",
        "Ingresar el número de documento de identificación y presionar el botón Enviar.",
        "Revisar el correo registrado en el portal y seguir los pasos que se indican en el mensaje recibido.",
        "Ingresar de nuevo con la contraseña nueva y cambiarla por una propia desde el perfil.",
    ))
    text = f"## Contraseña\n\nPara recuperar la contraseña del portal estudiantil usted debe:\n\n{steps}"
    answer = ExtractiveGenerator().generate("Olvidé la contraseña del portal estudiantil, ¿cómo la recupero?", [hit("faq", "Preguntas frecuentes", text, URL, "Contraseña")])
    said = body(answer)
    assert said.splitlines()[1].startswith("1. ") and len(said.split()) > 70, said
    assert readiness_of(answer.flags)["flag"] == "listo", readiness_of(answer.flags)


CATALOGUE = (
    "## ¿Qué becas hay?\n\n"
    "La Facultad ofrece tres tipos de beca para estudiantes de grado:\n\n"
    "1. Beca de Apoyo Económico: $ 8.500 por mes, de marzo a diciembre. Es la beca principal y es compatible con la Beca de Transporte.\n"
    "2. Beca de Transporte: carga mensual en la tarjeta de transporte equivalente a 50 boletos, de marzo a diciembre.\n"
    "3. Beca de Alimentación: tarjeta con una carga mensual de $ 3.000 para los comedores universitarios.\n\n"
    "## Plazos\n\n"
    "- Beca de Transporte, convocatoria extraordinaria: del 1 al 15 de agosto de 2027, solo si quedan cupos.\n"
)


def test_a_yes_no_question_about_a_quality_is_answered_by_the_unit_that_says_it_alone():
    answer = ExtractiveGenerator(today=date(2026, 11, 20)).generate(
        "¿La beca de transporte es compatible con la beca de apoyo económico?", [hit("becas", "Becas", CATALOGUE, URL, "Becas")])
    said = body(answer)
    assert said.startswith("Sí. ") and "es compatible con la Beca de Transporte" in said, said
    assert "Alimentación" not in said and "agosto" not in said, said  # neither the rest of the catalogue nor a neighbour


def test_the_quality_a_yes_no_question_asks_about_and_its_denial():
    from pipeline.generation.extractive import by_predicate, predicate

    assert predicate("¿Hasta cuándo hay plazo? ¿Es compatible con la beca de apoyo económico?") == "compat"
    assert predicate("¿La pasantía es obligatoria?") == "obliga"
    assert predicate("¿Es posible cambiar de carrera?") is None  # any rule may answer 'posible'
    assert by_predicate("¿Es compatible con la beca?", "No es compatible con otra beca pública.") == "no"
    assert by_predicate("¿Es compatible con la beca?", "Es incompatible con el Fondo de Solidaridad.") == "no"
    assert by_predicate("¿Es compatible con la beca?", "Es la beca principal y es compatible con la de transporte.") == "yes"
    assert by_predicate("¿Es compatible con la beca?", "Se paga de marzo a diciembre.") is None


def test_what_falls_between_the_asked_event_and_the_one_the_student_wants_to_be_before_is_said():
    gen = ExtractiveGenerator(today=date(2026, 8, 20))
    hits = [hit("agenda", "Agenda", AGENDA, URL, "Agenda del segundo trimestre 2026")]
    text = body(gen.generate("¿Cuándo empieza la semana de evaluaciones intermedias? Quiero viajar antes del turno de recuperatorios.", hits))
    assert "14 al viernes 18 de septiembre" in text and "9 al viernes 13 de noviembre" in text and "23 de noviembre" in text, text  # the last evaluations lie in between
    plain = body(gen.generate("¿Cuándo empieza la semana de evaluaciones intermedias? Me dijeron que es después del turno de recuperatorios.", hits))
    assert "9 al viernes 13 de noviembre" not in plain, plain  # only 'antes de' asks for what lies in between


PRICES = (
    "## Programas 2027\n\n"
    "| Programa | Duración | Costo |\n|---|---|---|\n"
    "| Diploma en Ciencia de Datos | 1 año | 10 cuotas de $ 12.000 |\n"
    "| Diploma en Ingeniería Vial | 1 año | 10 cuotas de $ 11.500 |\n"
    "| Maestría en Software | 2 años | 20 cuotas de $ 14.500 |\n"
    "| Doctorado en Ingeniería | 4 años | Gratuito |\n\n"
    "Los egresados de la Facultad tienen un descuento del 20 % en los programas arancelados.\n\n"
    "La Facultad ofrece además cursos de educación permanente.\n"
)


def test_a_price_from_a_table_carries_the_discount_said_under_it():
    answer = ExtractiveGenerator(today=date(2026, 11, 17)).generate("¿Cuánto cuesta el Diploma en Ciencia de Datos?", [hit("posgrados", "Posgrados", PRICES, URL, "Programas 2027")])
    said = body(answer)
    assert "$ 12.000" in said and "descuento del 20 %" in said and "11.500" not in said and "educación permanente" not in said, said
    free = body(ExtractiveGenerator(today=date(2026, 11, 17)).generate("¿El Doctorado en Ingeniería es gratis o se paga?", [hit("posgrados", "Posgrados", PRICES, URL, "Programas 2027")]))
    assert "gratuito" in free and "descuento" not in free, free  # a free programme needs no discount


TRAMITES = (
    "## Escolaridad\n\n"
    "La escolaridad es el certificado oficial con todas las materias aprobadas.\n\n"
    "- Escolaridad digital (con firma electrónica): se descarga desde el SIGE y se genera en el momento.\n"
    "- Escolaridad en papel (sellada y firmada): se pide en el SIGE y se retira en Bedelía a los cinco días hábiles.\n"
    "- Escolaridad completa: incluye los cursos reprobados. Se pide por correo y demora tres días hábiles.\n\n"
    "## Constancia de estudiante\n\n"
    "- Constancia simple: se descarga al instante desde el SIGE.\n"
)


def test_the_variants_one_list_gives_are_listed_when_the_question_does_not_say_which():
    gen = ExtractiveGenerator()
    hits = [hit("tramites", "Trámites", TRAMITES, URL, "Escolaridad")]
    said = body(gen.generate("¿Cómo pido la escolaridad y cuánto demora?", hits))
    assert "en el momento" in said and "cinco días hábiles" in said and "tres días hábiles" in said and "Constancia" not in said, said
    one = body(gen.generate("¿Cuánto demora la escolaridad completa con los cursos reprobados?", hits))
    assert "tres días hábiles" in one and "en el momento" not in one, one  # the question names its variant


FAQ = (
    "## Preguntas frecuentes\n\n"
    "3. ¿Tengo correo de ingeniería?\n"
    "Si, a todos los estudiantes inscritos se les crea un correo institucional; la contraseña para ingresar es la misma que la del portal estudiantil.\n"
)


def test_an_faq_answer_opening_with_a_yes_is_not_ready_for_a_question_that_did_not_ask_yes_or_no():
    hits = [hit("faq", "Preguntas frecuentes", FAQ, URL, "Preguntas frecuentes")]
    other = readiness_of(ExtractiveGenerator().generate("¿Qué contraseña uso para mi correo de ingeniería?", hits).flags)
    assert other["flag"] == "necesita revisión" and other["missing"].startswith("el pasaje responde otra pregunta"), other
    same = readiness_of(ExtractiveGenerator().generate("¿Tengo correo de ingeniería?", hits).flags)
    assert not (same.get("missing") or "").startswith("el pasaje responde otra pregunta")  # a yes/no question is answered by its 'Sí'


def test_an_address_that_lost_its_user_part_is_debris():
    from pipeline.generation.readiness import garbled

    assert garbled("La cuenta es @ingenieria.usac.edu.gt.")
    assert not garbled("Escribí a biblioteca@ingenieria.usac.edu.gt con tu carné.")


def test_honours_are_found_where_the_documents_name_them_cum_laude():
    text = (
        "## De la graduación y distinciones\n\n"
        "Artículo 63. Cuando un estudiante ha completado los requisitos de cierre de pensum podrá graduarse mediante un examen general.\n\n"
        "Artículo 64. El estudiante que al cerrar pensum haya alcanzado un promedio general de 85 puntos recibirá la distinción académica de Cum Laude.\n"
    )
    answer = ExtractiveGenerator().generate("¿Puedo graduarme con honores?", [hit("normativo", "Normativo", text, URL, "Graduación")])
    assert not answer.no_info and "85 puntos" in answer.text, answer.text


def test_an_faq_answer_to_another_question_does_not_crowd_out_the_article_that_answers():
    faq = ("## Preguntas frecuentes\n\n6. ¿Cuáles son las restricciones para llevar retrasada única?\n"
           "Haber llevado el curso el semestre anterior y haber llegado a zona mínima. Para el congelado, se deberá llegar a zona mínima de congelamiento (45 puntos) para tener derecho a examen.\n")
    rules = "## De la zona\n\nArtículo 58. Para tener derecho a la evaluación final o de recuperación, el estudiante debe tener la zona mínima de 36 puntos.\n"
    hits = [hit("faq", "Preguntas frecuentes", faq, URL, "Preguntas frecuentes"), hit("normativo", "Normativo", rules, URL, "Zona", pos=1)]
    answer = ExtractiveGenerator().generate("¿Cuál es la zona mínima para tener derecho a examen final?", hits)
    assert "36 puntos" in answer.text and "normativo" in [r.doc_id for r in answer.references], answer.text


def test_asking_to_go_on_without_what_a_rule_requires_is_answered_no():
    text = ("## Prácticas intermedias\n\nArtículo 12. Requisitos para la práctica intermedia: tener aprobados 120 créditos.\n\n"
            "El estudiante deberá aprobar prácticas intermedias como requisito para poder llevar cualquier curso obligatorio del octavo semestre de cualquier carrera.\n")
    answer = ExtractiveGenerator().generate("¿Puedo llevar cursos de octavo semestre sin haber aprobado las prácticas intermedias?", [hit("practicas", "Normativo de prácticas", text, URL, "Prácticas")])
    body = answer.text.split("\n\n")[1]
    assert body.startswith("No.") and "deberá aprobar prácticas intermedias" in answer.text, answer.text


CREDITS = (
    "## Asignación\n\n"
    "Artículo 16. Para cada semestre el estudiante de un pensum CLAR con promedio de 71 a 85 puede asignarse como máximo 37 créditos CLAR."
)


def test_a_passage_for_the_case_the_student_says_is_not_theirs_is_not_ready():
    gen = ExtractiveGenerator()
    hits = [hit("normativo", "Normativo de evaluación", CREDITS, URL, "Asignación")]
    theirs = readiness_of(gen.generate("Mi pensum es CLAR y tengo 80 de promedio, ¿cuántos créditos me puedo asignar?", hits).flags)
    assert theirs["flag"] == "listo", theirs
    other = readiness_of(gen.generate("Mi pensum no es CLAR y tengo 80 de promedio, ¿cuántos créditos me puedo asignar?", hits).flags)
    assert other["flag"] == "necesita revisión" and "clar" in other["missing"], other
    # a passage that itself speaks of the denied case ('que no estén en un pensum CLAR') may answer it
    rule = "## Transitorio\n\nArtículo 90. Los estudiantes que no estén en un pensum CLAR con promedio de 71 a 85 pueden asignarse como máximo 44 créditos."
    fits = readiness_of(gen.generate("Mi pensum no es CLAR y tengo 80 de promedio, ¿cuántos créditos me puedo asignar?", [hit("normativo", "Normativo", rule, URL, "Transitorio")]).flags)
    assert fits["flag"] == "listo", fits


def test_denied_cases_are_read_before_the_question_only():
    from pipeline.generation.readiness import denied_keys

    assert denied_keys("No aprobé el examen técnico profesional, ¿qué requisitos piden para el EPS?") == [("aprobe el examen tecnico profesional", ["aprob", "exam", "tecnic"])]
    assert denied_keys("¿Por qué no puedo hacer la suficiencia de un curso?") == []  # the question's own 'no' denies no case


def test_a_count_is_ready_only_with_a_number_of_what_is_counted():
    gen = ExtractiveGenerator()
    beside = "## Zona\n\nArtículo 57. La zona incluye la calificación de las evaluaciones parciales del semestre. La zona tendrá un valor de 75% del total."
    flag = readiness_of(gen.generate("¿Cuántos parciales puede haber en un semestre?", [hit("normativo", "Normativo", beside, URL, "Zona")]).flags)
    assert flag["flag"] == "necesita revisión", flag
    counted = "## Parciales\n\nArtículo 39. El número de evaluaciones parciales será de dos a tres evaluaciones parciales por semestre."
    flag = readiness_of(gen.generate("¿Cuántos parciales puede haber en un semestre?", [hit("normativo", "Normativo", counted, URL, "Parciales")]).flags)
    assert flag["flag"] == "listo", flag


def test_a_yes_or_no_opening_does_not_answer_a_what_question():
    hours = "## EPS\n\nArtículo 5. Las opciones de EPS deben cubrir un mínimo de 20 horas semanales dentro de la empresa donde se realice el EPS."
    answer = ExtractiveGenerator().generate("Necesito faltar unos días a la empresa donde hago el EPS, ¿qué hago?", [hit("eps", "Normativo de EPS", hours, URL, "EPS")])
    flag = readiness_of(answer.flags)
    assert flag["flag"] == "necesita revisión", (body(answer), flag)


def test_a_name_in_capitals_inside_a_sentence_is_not_debris_but_stamp_letters_are():
    from pipeline.generation.readiness import garbled

    assert not garbled("Con 90 puntos se otorga el MAGNA CUM LAUDE; y con 95 puntos, el SUMMA CUM LAUDE.")
    assert garbled("La evaluación ORBIS CONSPICUA CAROLINA ACADEM se realiza en línea.")  # a watermark's letters, not words
    assert garbled("del ciclo lectivo. TÍTULO XIII. DE LA GRADUACIÓN Y DISTINCIONES Artículo 63°. Cuando un estudiante")  # a heading glued in


def test_a_list_flattened_into_a_line_is_debris():
    from pipeline.generation.readiness import garbled

    assert garbled("Diapositiva 3 a 5: Presentación del Trabajo. -Objetivos -Resultados o Contenido -Conclusiones")
    assert not garbled("Diapositiva 3 a 5: Presentación del Trabajo.\n- Objetivos\n- Resultados o Contenido")  # a list said as a list
    assert not garbled("El curso pre-requisito y el post-requisito se asignan en el semestre 2025-2026.")


def test_a_fraction_is_no_date():
    gen = ExtractiveGenerator()
    third = "## Zona\n\nArtículo 57. La zona de los cursos: el profesor asigna a las actividades curriculares un valor mínimo de un tercio (1/3) de la zona."
    flag = readiness_of(gen.generate("¿Hasta cuándo tiene el profesor para publicar la zona del curso?", [hit("normativo", "Normativo", third, URL, "Zona")]).flags)
    assert flag["flag"] == "necesita revisión", flag
    days = "## Zona\n\nArtículo 67. El profesor debe publicar la zona del curso a más tardar el viernes 20 de noviembre."
    flag = readiness_of(gen.generate("¿Hasta cuándo tiene el profesor para publicar la zona del curso?", [hit("normativo", "Normativo", days, URL, "Zona")]).flags)
    assert flag["flag"] == "listo", flag


def test_a_figure_asked_with_que_or_con_cuanto_is_ready_when_the_passage_gives_it():
    gen = ExtractiveGenerator()
    honours = "## Graduación\n\nArtículo 64. Con un promedio general de 85 puntos se otorga la distinción CUM LAUDE y con 90 puntos el MAGNA CUM LAUDE."
    flag = readiness_of(gen.generate("¿Qué promedio necesito para graduarme cum laude?", [hit("normativo", "Normativo", honours, URL, "Graduación")]).flags)
    assert flag["flag"] == "listo", flag
    vague = "## Graduación\n\nArtículo 64. El promedio general del estudiante determina la distinción cum laude que recibe al graduarse."
    flag = readiness_of(gen.generate("¿Qué promedio necesito para graduarme cum laude?", [hit("normativo", "Normativo", vague, URL, "Graduación")]).flags)
    assert flag["flag"] == "necesita revisión" and flag["missing"].startswith("la pregunta es abierta"), flag


def test_a_length_of_time_is_not_a_date_unless_a_word_bounds_it():
    from pipeline.generation.readiness import _dated

    assert not _dated("Examen General de Graduación a través de un Informe Final del Ejercicio Profesional Supervisado de 3 meses.")
    assert _dated("El profesor resuelve en un plazo no mayor de tres días hábiles.")
    assert _dated("Informar al estudiante en un tiempo máximo de 15 días de la aprobación del perfil.")
    assert _dated("El EPS dura 6 meses.") and _dated("Se entrega el 5 de marzo.")
    text = "## Modalidades\n\nExamen General de Graduación a través de un Informe Final del Ejercicio Profesional Supervisado de 3 meses.\n"
    answer = ExtractiveGenerator().generate("¿Cuándo son las fechas de exámenes?", [hit("guia", "Guía", text, URL, "Modalidades")])
    assert readiness_of(answer.flags)["flag"] == "necesita revisión", answer.text


def test_a_web_address_glued_to_a_capitalised_word_is_debris():
    from pipeline.generation.readiness import garbled

    assert garbled("Consultar el procedimiento directamente en Edificio DIGA, Planta Baja Archivo portalregistro.usac.edu.gt/tramites.")
    assert not garbled("Ir a la página https://www.ingenieria.usac.edu.gt/ y buscar la opción.")
    assert not garbled("La cuenta es <número de dpi>@ingenieria.usac.edu.gt.")  # a placeholder names the user part


def test_an_faq_answer_to_another_open_question_is_not_ready():
    faq = ("## Preguntas frecuentes\n\n13. ¿Cuál es el requisito para llevar cursos en modo Pre-Post?\n"
           "El requisito es ser estudiante de cierre (tener 215 créditos aprobados), no haber hecho Pre-Post anteriormente y cerrar en el semestre.\n")
    answer = ExtractiveGenerator().generate("¿Qué cursos llevo en cuarto semestre?", [hit("faq", "Preguntas frecuentes", faq, URL, "Preguntas frecuentes")])
    assert readiness_of(answer.flags)["flag"] == "necesita revisión", answer.text
