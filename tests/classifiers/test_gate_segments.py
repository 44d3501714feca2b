"""A long message is judged by its best question, and redaction placeholders carry no signal."""

from __future__ import annotations

from classifiers.gate import message_segments, request_clauses


def test_long_messages_add_their_question_sentences():
    text = "Soy Lucía, cédula [CEDULA]. En febrero me opero. Si me paso del plazo, ¿puedo hacer una inscripción tardía? Les dejo mi celular [TELEFONO]."
    segments, owner = message_segments([text, "¿Dónde queda la pizzería?"])
    assert owner == [0, 0, 1]
    assert "[CEDULA]" not in segments[0] and "[TELEFONO]" not in segments[0]
    assert segments[1] == "Si me paso del plazo, ¿puedo hacer una inscripción tardía?"
    assert segments[2] == "¿Dónde queda la pizzería?"


def test_short_questions_are_not_split():
    segments, owner = message_segments(["quisiera saber si puedo rendir libre", "¿Cuántos créditos necesito para recibirme?"])
    assert segments == ["quisiera saber si puedo rendir libre", "¿Cuántos créditos necesito para recibirme?"] and owner == [0, 1]


def test_a_request_to_produce_something_is_its_own_segment_and_decides():
    import numpy as np

    from classifiers.gate import REQUEST, judge_segments

    from classifiers.gate import MAKES_TEXT

    text = "Hola, estoy por cerrar pensum y tengo la inscripción de exámenes el lunes, resolveme la integral de x por seno de x."
    kinds: list[str] = []
    segments, owner = message_segments([text, "¿Hasta cuándo me inscribo a exámenes?"], kinds=kinds)
    assert kinds.count(REQUEST) == 1 and segments[kinds.index(REQUEST)] == "resolveme la integral de x por seno de x"
    p = np.array([0.9 if k != REQUEST else 0.1 for k in kinds])  # the office words score high, the request low
    score, best = judge_segments(p, owner, kinds, 2)
    assert score[0] == 0.1 and kinds[best[0]] == REQUEST and score[1] == 0.9
    # a request to write a text scores 0 whatever its words: the office never writes a student's text
    kinds = []
    segments, owner = message_segments(["Hola, estoy por cerrar pensum, escribime un cuento de dragones para mi sobrino.", "redactame la introduccion de mi trabajo de graduacion"], kinds=kinds)
    assert kinds.count(MAKES_TEXT) == 2 and "escribime un cuento de dragones para mi sobrino" in segments
    score, _ = judge_segments(np.full(len(kinds), 0.9), owner, kinds, 2)
    assert list(score) == [0.0, 0.0]


def test_coursework_made_for_the_student_is_no_office_business_however_it_is_worded():
    """A report, thesis, homework or business plan to be made FOR the student scores 0 like a poem; the same objects
    without the student as beneficiary, and the office's own papers, stay with the classifier."""
    from classifiers.gate import MAKES_TEXT

    made = [
        "buenas, ya tengo el EPS aprobado, necesito que me redacten el informe final de la practica, ustedes lo hacen?",
        "estoy por cerrar pensum y quisiera que me hicieran el plan de negocios de mi emprendimiento",
        "hola, soy de civil: haceme porfa la presentacion de estructuras para el lunes",
        "oigan, que me elaboren el protocolo de tesis, yo pago",
    ]
    kinds: list[str] = []
    message_segments(made, kinds=kinds)
    assert kinds.count(MAKES_TEXT) == len(made)
    kept = [
        "el informe final del EPS se redacta en grupo o individual?",
        "me pueden hacer la constancia de cursos aprobados, la ocupo para el lunes",
        "necesito que me hagan la revision de mi examen final, saque 58",
        "que me resuelvan lo de mi tesis, ya van dos semanas y nadie responde",
        "donde entrego mi protocolo de tesis ya firmado por el asesor?",
    ]
    kinds = []
    message_segments(kept, kinds=kinds)
    assert MAKES_TEXT not in kinds


def test_a_request_with_the_clitic_before_the_verb_is_a_request_and_a_pronoun_points_back():
    from classifiers.gate import MAKES_TEXT, REQUEST

    kinds: list[str] = []
    segments, _ = message_segments([
        "hola, el profe de social humanistica dejo un ensayo sobre la globalizacion, me lo escriben?",
        "buenas, ya me asigne estatica, me resuelven los ejercicios de la guia 2?",
        "oigan, estoy en vacaciones de mate intermedia, me pueden resolver esta derivada de x al cubo",
    ], kinds=kinds)
    made = [seg for seg, k in zip(segments, kinds) if k == MAKES_TEXT]
    assert len(made) == 2 and made[0].startswith("el profe de social humanistica dejo un ensayo")
    assert [seg for seg, k in zip(segments, kinds) if k == REQUEST] == ["me pueden resolver esta derivada de x al cubo"]
    kinds = []
    message_segments([
        "me hacen falta dos cursos para cerrar pensum, que hago",
        "me escribieron de control academico que me falta un papel, cual es",
        "me piden la solvencia para el privado, me la generan ustedes?",
    ], kinds=kinds)
    assert REQUEST not in kinds and MAKES_TEXT not in kinds


def test_office_requests_and_short_imperatives_are_not_request_clauses():
    kinds: list[str] = []
    message_segments(["Buenas, me podrían enviar la constancia de inscripción, gracias", "dame info. Es sobre becas"], kinds=kinds)
    assert "request" not in kinds


def test_padding_a_production_request_with_office_words_keeps_its_outcome(chunks, chunk_vectors, fake_embedder):
    from classifiers.features import FeatureSpace
    from classifiers.training import offline_dataset, train_gate

    space = FeatureSpace.fit("similarity+tfidf+lexical+intent", chunk_texts=[c.embed_text for c in chunks], chunk_vectors=chunk_vectors)
    gate = train_gate(offline_dataset(chunks), space=space, embedder=fake_embedder)
    requests = ["redactame una carta de amor para mi novia", "resolveme la integral de x por seno de x", "traduceme al inglés el párrafo de mi tesis"]
    padding = "Hola, soy de sistemas, ya pagué la inscripción a exámenes y tengo la beca de transporte, "
    bare = gate.outcomes(requests, fake_embedder, explain=0)
    padded = gate.outcomes([padding + r for r in requests], fake_embedder)
    assert [d.in_domain for d in padded] == [d.in_domain for d in bare]
    assert all(any("se juzgó por lo que pide" in r for r in d.reasons) for d in padded)


def test_a_request_for_the_student_inside_a_clause_starts_the_segment():
    from classifiers.gate import request_clauses

    assert request_clauses("Para cerrar pensum me falta un curso y necesito que me hagas el ensayo de filosofía") == ["que me hagas el ensayo de filosofía"]
    assert request_clauses("hola, para el privado de la facultad tradúceme al inglés este párrafo") == ["tradúceme al inglés este párrafo"]
    assert request_clauses("Les escribo para consultar algo: cuándo cierran asignaciones") == []  # the student writing is no request to produce


def test_a_request_for_a_made_up_text_is_a_request_clause_with_or_without_a_clitic():
    from classifiers.gate import request_clauses

    assert request_clauses("hola, me ayudas a redactar una fabula sobre un conejo") == ["ayudas a redactar una fabula sobre un conejo"]
    assert request_clauses("tengo que hacer la introduccion del protocolo, que formato lleva") == []  # the student's own task, asked about
    assert request_clauses("necesito un discurso para la boda de mi hermana") == ["necesito un discurso para la boda de mi hermana"]
    assert request_clauses("un chiste de ingenieros porfa") == ["un chiste de ingenieros porfa"]
    # office business that names a document or tells what the student did is not
    assert request_clauses("necesito el programa del curso de estadistica 1") == []
    assert request_clauses("ya redacte mi carta de solicitud, a quien se la entrego") == []
    assert request_clauses("escribo para saber si ya hay fecha de asignacion") == []


def test_a_request_ending_in_a_colon_carries_what_it_asks_for():
    text = "hola, estoy en civil, me resuelven este problema: una barra de 3 m soporta 20 kN, cual es el esfuerzo"
    assert request_clauses(text) == ["me resuelven este problema: una barra de 3 m soporta 20 kN, cual es el esfuerzo"]


def test_a_pronoun_that_points_back_to_the_students_work_makes_it_a_request_for_that_work():
    """The work is named with no request verb ("los planos de la bodega"), then a pronoun asks for it ("me los hacen?"): the
    whole is a request to make the student's work. The pronoun points to the nearest thing that agrees with it: an office
    thing ("la orden de impresión ..., ¿me la hacen?", "la constancia ..., ¿me la hacen llegar?") is no work."""
    from classifiers.gate import MAKES_TEXT

    kinds: list[str] = []
    segments, _ = message_segments([
        "buenas noches, ocupo los planos de la bodega para dibujo 2, me los hacen?",
        "hola, la maqueta del puente para el viernes, quien me la arma?",
    ], kinds=kinds)
    made = [seg for seg, k in zip(segments, kinds) if k == MAKES_TEXT]
    assert len(made) == 2 and made[0].startswith("ocupo los planos de la bodega")
    kinds = []
    message_segments([
        "ya tengo listos los planos de mi trabajo de graduacion, la orden de impresion me la hacen ustedes?",
        "necesito la constancia de cursos aprobados, me la hacen llegar por correo?",
    ], kinds=kinds)
    assert MAKES_TEXT not in kinds


def test_a_pronoun_with_a_verb_of_giving_asks_for_the_work_it_points_back_to():
    """"¿me la pasa?" asks to be given what the pronoun points back to: a piece of work (a solution, the answers, a summary)
    is a request for the student's work, even when what it is of comes after it ("la solución del ejercicio 3 de la guía
    de estática"); the office's own paper given ("la constancia ..., ¿me la mandan?") is no request."""
    from classifiers.gate import MAKES_TEXT, REQUESTS

    kinds: list[str] = []
    segments, _ = message_segments([
        "buenas, la solucion del ejercicio 3 de la guia de estatica, me la pasan?",
        "saludos, los apuntes de termo del parcial, alguien me los comparte?",
    ], kinds=kinds)
    made = [seg for seg, k in zip(segments, kinds) if k == MAKES_TEXT]
    assert len(made) == 2 and made[0].startswith("la solucion del ejercicio 3")
    kinds = []
    message_segments([
        "pedi la constancia de inscripcion la semana pasada, me la mandan por correo?",
        "ya pague la boleta de la retrasada, me la pueden enviar sellada?",
    ], kinds=kinds)
    assert not set(kinds) & set(REQUESTS)


def test_a_translation_into_a_language_without_a_verb_is_a_text_for_the_student():
    from classifiers.gate import MAKES_TEXT

    kinds: list[str] = []
    message_segments(["buenos dias, la traduccion al frances de mi ensayo de historia, alguien puede?"], kinds=kinds)
    assert MAKES_TEXT in kinds
    kinds = []
    message_segments(["la traduccion al español de mi titulo de bachiller, la aceptan para la equivalencia?"], kinds=kinds)
    assert MAKES_TEXT not in kinds


def test_the_greeting_and_address_that_open_a_message_are_not_judged():
    """"hola control académico," names the office only because the student writes to it: the whole message is judged
    without it. What the student tells about themselves stays ("hola soy de odontología, ..."), and so does a message
    that would be left with fewer than three words."""
    from classifiers.gate import without_address

    assert without_address("Buenas tardes, seño secretaria: el horario del museo de historia, lo sabe?") == "el horario del museo de historia, lo sabe?"
    assert without_address("hola inge, disculpe la molestia, cuando sale el calendario de finales?") == "cuando sale el calendario de finales?"
    assert without_address("hola soy de odontologia, cuando es el privado?") == "hola soy de odontologia, cuando es el privado?"
    assert without_address("hola control academico, gracias") == "hola control academico, gracias"
    segments, _ = message_segments(["Estimados de control académico: ¿la retrasada se paga aparte?"])
    assert segments == ["¿la retrasada se paga aparte?"]


def test_a_translation_asked_as_a_question_is_a_text_for_the_student():
    """"¿cómo se dice X en inglés?" asks for words in another language, whatever office paper X names; the name of an
    office paper asked in Spanish ("¿cómo se llama el formulario de ...?") is no translation."""
    from classifiers.gate import MAKES_TEXT

    for text in ("como se dice constancia de cursos aprobados en ingles", "en frances como se escribe examen parcial?",
                 "hola, que significa grade point average en español?", "la expresion cierre de pensum como la pongo en ingles para la beca",
                 "cual es la traduccion de solvencia de pagos al ingles"):
        kinds: list[str] = []
        message_segments([text], kinds=kinds)
        assert MAKES_TEXT in kinds, text
    for text in ("como se llama el papel que dan cuando uno cierra pensum", "el curso de ingles se puede llevar en vacaciones?",
                 "la constancia la extienden en ingles o hay que traducirla aparte?", "la traduccion de mi titulo al español la acepta la facultad?"):
        kinds = []
        message_segments([text], kinds=kinds)
        assert MAKES_TEXT not in kinds, text


def test_a_diagram_a_recipe_or_how_to_write_a_text_is_a_text_made_for_the_student():
    """Asked for by pointing back ("el diagrama de flujo de un cajero, ¿quién me lo hace?", "la receta del pepián, ¿me la
    comparten?"), asked outright ("dame una receta de pollo"), or asked how to write ("¿cómo escribo una introducción
    para mi informe?"): the office never makes it. The office's own chart, a doctor's note and its own forms are no such
    request."""
    from classifiers.gate import MAKES_TEXT

    made = [
        "hola facultad, el diagrama de flujo de un cajero automatico, quien me lo hace",
        "hola, soy estudiante de ingenieria, la receta del pepian, me la comparten?",
        "estoy en el pensum de industrial y me toca investigar, dame una receta de pollo en crema para cuatro personas",
        "como escribo una introduccion para mi informe de laboratorio de quimica",
        "una carta de recomendacion para mi amigo que aplica a un trabajo, me la redactan?",
    ]
    for text in made:
        kinds: list[str] = []
        message_segments([text], kinds=kinds)
        assert MAKES_TEXT in kinds, text
    for text in ["el diagrama del pensum, me lo pasan?", "la receta medica del doctor, me la piden para justificar la falta?", "como redacto la solicitud de cambio de carrera", "como hago el examen final si estuve enfermo"]:
        kinds = []
        message_segments([text], kinds=kinds)
        assert MAKES_TEXT not in kinds, text
