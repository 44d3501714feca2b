"""Rules answers that go on with how and by when to ask for what the student wants to do (pipeline.generation.requesting)."""

from __future__ import annotations

from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.requesting import wants
from tests.pipeline.generation_helpers import hit

URL = "https://x.example/prorroga"
TITLE = "Prórroga de entrega del proyecto"
WHO = (
    "## ¿Quién puede pedir prórroga?\n\n"
    "Pueden pedir una prórroga de la entrega del proyecto los estudiantes que:\n\n"
    "- tienen aprobado al menos el 70 % del proyecto según su tutor;\n"
    "- no recibieron otra prórroga en el mismo año lectivo.\n\n"
    "La prórroga no cambia la nota mínima de aprobación."
)
HOW = (
    "## Cómo se solicita\n\n"
    "1. Completá el formulario PR-2 en la web del Departamento de Proyectos.\n"
    "2. El plazo es de diez días hábiles antes de la fecha de entrega original.\n"
    "3. La Coordinación responde por correo en una semana."
)
WINDOWS = (
    "## Plazos de presentación\n\n"
    "Las solicitudes se reciben en dos períodos por año:\n\n"
    "- del 2 al 20 de abril;\n"
    "- del 1 al 19 de octubre.\n\n"
    "Una solicitud fuera de esos períodos pasa al siguiente."
)
STEPS = (
    "## Documentación necesaria\n\n"
    "Para la convalidación hay que presentar los siguientes documentos:\n\n"
    "- Formulario CV-3 completo.\n"
    "- Certificado de notas de la institución de origen.\n"
    "- Programa firmado de cada asignatura."
)


def body(answer) -> str:
    return answer.text.split("\n\n", 1)[1].split("\n\nReferencias:")[0]


def prorroga_hits():
    return [hit("proyectos", TITLE, WHO, URL, "¿Quién puede pedir prórroga?", pos=1), hit("proyectos", TITLE, HOW, URL, "Cómo se solicita", pos=2, score=0.7)]


def test_what_the_question_implies_is_read_from_its_ask():
    assert wants("¿Puedo pedir prórroga del proyecto?", "yes_no") == ("how", "when")
    assert wants("¿Hay alguna forma de no recursar?", "yes_no") == ("how", "when")
    assert wants("¿Qué becas hay para estudiantes del interior?", "other") == ("how", "when")
    assert wants("¿Cómo convalido una materia?", "procedure") == ("when",)
    assert wants("¿Es obligatoria la práctica?", "yes_no") == ()  # whether it is required: nothing to ask for
    assert wants("¿Cuándo cierra la inscripción?", "date") == ()


def test_a_may_i_answer_goes_on_with_the_form_and_the_deadline_of_the_next_section():
    text = body(ExtractiveGenerator().generate("Tengo el 80 % del proyecto aprobado. ¿Puedo pedir prórroga de la entrega del proyecto?", prorroga_hits()))
    assert text.startswith("Sí"), text
    assert "70 %" in text and "PR-2" in text and "diez días hábiles" in text, text
    assert "Cómo se solicita:" in text, text  # the other section is named by its heading
    assert "responde por correo" not in text  # the how and the when, not the whole section


def test_a_procedure_goes_on_with_its_application_windows_said_whole():
    hits = [hit("conv", "Convalidaciones", STEPS, URL, "Documentación necesaria", pos=2), hit("conv", "Convalidaciones", WINDOWS, URL, "Plazos de presentación", pos=1, score=0.6)]
    text = body(ExtractiveGenerator().generate("¿Cómo convalido una asignatura de otra universidad?", hits))
    assert "CV-3" in text and "20 de abril" in text and "19 de octubre" in text, text


def test_another_article_of_a_regulation_is_not_taken_as_the_how():
    rules = (
        "Artículo 30. El estudiante que haya reprobado una asignatura tres veces podrá cursarla una vez más si tiene el 60 % de los créditos.\n\n"
    )
    other = "Artículo 31. La solicitud de revisión de examen se presenta con una nota a la Coordinación dentro de los tres días hábiles."
    hits = [hit("normativo", "Normativo", rules, URL, "Artículo 30. El estudiante que haya reprobado una asignatura tres veces podrá", pos=5),
            hit("normativo", "Normativo", other, URL, "Artículo 31. La solicitud de revisión de examen se presenta con una nota", pos=6, score=0.6)]
    text = body(ExtractiveGenerator().generate("Reprobé Física tres veces, ¿puedo cursarla otra vez?", hits))
    assert "60 %" in text and "revisión de examen" not in text, text


def test_nothing_is_added_to_a_no():
    deny = "## ¿Quién puede pedir prórroga?\n\nEl estudiante no puede pedir prórroga de la entrega del proyecto final después de la defensa."
    hits = [hit("proyectos", TITLE, deny, URL, "¿Quién puede pedir prórroga?", pos=1), hit("proyectos", TITLE, HOW, URL, "Cómo se solicita", pos=2, score=0.7)]
    text = body(ExtractiveGenerator().generate("¿Puedo pedir prórroga de la entrega del proyecto después de la defensa?", hits))
    assert text.startswith("No"), text
    assert "PR-2" not in text, text


def test_the_request_sections_of_the_best_documents_come_with_the_support_chunks():
    from pipeline.retrieval import request_chunks

    ranked = [hit("ice", "ICE", "Qué es", URL, "¿Qué es la ICE?", pos=1, score=0.9), hit("regl", "Reglamento", "Art", URL, "Artículo 5. (Evaluación). Cada curso…", pos=5, score=0.8),
              hit("otro", "Otro", "x", URL, "Cómo se solicita", pos=2, score=0.7), hit("ice", "ICE", "Escala", URL, "Escala y resultado", pos=4, score=0.6),
              hit("ice", "ICE", "Formulario", URL, "Cómo se solicita", pos=3, score=0.3), hit("regl", "Reglamento", "Art", URL, "Artículo 9. Del procedimiento de solicitud de…", pos=9, score=0.2)]
    top = ranked[:3]
    more = request_chunks(ranked, top[:2], top, support=3)
    assert [(h.chunk.doc_id, h.chunk.position) for h in more] == [("ice", 3)]  # not another document's, nor an article titled by its opening line
    assert request_chunks(ranked, top[:2], top, support=0) == []  # no support chunks asked: the hits are left as they are
