"""Course-plan lookups: the asked attribute of the asked course, first and alone; a shared code never read as one course silently."""

from __future__ import annotations

from pipeline.generation.course_plan import asked_attributes, career_areas, code_label, code_names, polarity_of
from pipeline.generation.extractive import ExtractiveGenerator
from pipeline.generation.readiness import readiness_of
from tests.pipeline.generation_helpers import hit

PLAN = (
    "Ingeniería Minera\n"
    "La carrera está administrada por tres áreas académicas, siendo estas: Geología, Procesos y Gestión Minera.\n"
    "Un curso optativo lleva la marca obligatorio: No.\n\n"
    "SEMESTRE 3\n"
    "codigo: 0410\nnombre: Mineralogía 1\ncreditos: 5\narea: No especificada\nprerequisitos: 0402\nobligatorio: Sí\n---\n"
    "codigo: 0402\nnombre: Geología General\ncreditos: 4\narea: No especificada\nprerequisitos: Ninguno\nobligatorio: Sí\n---\n"
    "codigo: 0430\nnombre: Voladuras\ncreditos: 3\narea: Procesos\nprerequisitos: 0402\nobligatorio: No\n---\n"
    "SEMESTRE 4\n"
    "codigo: 0412\nnombre: Mineralogía 2\ncreditos: 5\narea: No especificada\nprerequisitos: 0410\nobligatorio: Sí\n---\n"
    "codigo: 0412\nnombre: Petrografía\ncreditos: 4\narea: No especificada\nprerequisitos: 0402\nobligatorio: Sí\n---\n"
    "codigo: 0420\nnombre: Yacimientos\ncreditos: 6\narea: No especificada\nprerequisitos: 0410, 0412\nobligatorio: Sí\n---\n"
)


def _draft(question: str):
    answer = ExtractiveGenerator().generate(question, [hit("pensum_minas", "Ingeniería Minera", PLAN, "https://x.example/minas", "SEMESTRE 3")])
    from bot.ops.answer_eval import answer_body

    return answer_body(answer.text), (readiness_of(answer.flags) or {})


def test_the_asked_attribute_is_read_from_the_question():
    assert asked_attributes("¿A qué área pertenece el curso Mineralogía 1?") == ["area"]
    assert asked_attributes("¿Es obligatorio el curso Voladuras?") == ["mandatory"]
    assert asked_attributes("¿Qué cursos requieren Geología General?") == ["postrequisites"]
    assert asked_attributes("¿Para qué cursos es prerrequisito Geología General?") == ["postrequisites"]
    assert asked_attributes("¿Cuáles son los prerrequisitos de Yacimientos?") == ["prerequisites"]
    assert asked_attributes("en que semestre me toca Yacimientos") == ["semester"]
    assert asked_attributes("¿Cuántos créditos vale Voladuras?") == ["credits"]
    assert asked_attributes("¿Cuántos créditos tiene la carrera en total?") == []  # the career's total, not a course's
    assert asked_attributes("¿Qué me podés contar de Voladuras?") == []  # the whole record


def test_each_attribute_is_answered_alone_and_first():
    assert _draft("¿Cuántos créditos vale Voladuras?")[0] == "Voladuras (0430) tiene 3 créditos."
    assert _draft("¿En qué semestre se lleva Yacimientos?")[0] == "Yacimientos (0420) va en el semestre 4."
    assert _draft("¿A qué área pertenece Voladuras?")[0] == "Voladuras (0430) pertenece al área Procesos."
    assert _draft("¿Cuál es el código de Yacimientos?")[0] == "Yacimientos tiene el código 0420."
    assert _draft("¿Mineralogía 1 tiene prerrequisitos?")[0] == "El prerrequisito de Mineralogía 1 (0410) es Geología General (0402)."
    assert _draft("¿Geología General tiene algún prerrequisito?")[0] == "Geología General (0402) no tiene prerrequisitos."


def test_a_yes_no_about_being_compulsory_says_yes_or_no_first():
    assert _draft("¿Es obligatorio el curso Mineralogía 1?")[0] == "Sí, Mineralogía 1 (0410) es un curso obligatorio."
    assert _draft("¿Es obligatorio el curso Voladuras?")[0] == "No, Voladuras (0430) no es obligatorio."
    assert _draft("¿Mineralogía 1 es optativo?")[0] == "No, Mineralogía 1 (0410) es un curso obligatorio."  # 'No' answers the option asked
    assert polarity_of("¿Puedo saltarme Química Ambiental?") == "optional" and polarity_of("¿Es obligatorio X?") == "mandatory"
    assert _draft("¿Voladuras es obligatorio o es optativo?")[0] == "Voladuras (0430) no es un curso obligatorio."  # either-or: the fact alone


def test_the_courses_that_need_a_course_are_read_from_the_other_records():
    text, label = _draft("¿Para qué cursos es prerrequisito Mineralogía 1?")
    assert text == "Mineralogía 1 (0410) es prerrequisito de Mineralogía 2 (0412) y Yacimientos (0420).", text
    assert label.get("flag") == "listo"


def test_an_area_the_plan_does_not_give_is_said_so_with_the_careers_areas_and_not_ready():
    text, label = _draft("¿A qué área pertenece Mineralogía 1?")
    assert text.startswith("El pénsum de "), text
    assert "no indica el área de Mineralogía 1 (0410)." in text and "Las áreas de la carrera son: Geología, Procesos y Gestión Minera." in text
    assert "prerrequisit" not in text  # never another field instead of the asked one
    assert label.get("flag") != "listo" and "el área" in (label.get("missing") or "")


def test_a_code_the_plan_gives_two_courses_is_never_read_as_one_of_them_silently():
    text, _ = _draft("¿Cuáles son los prerrequisitos de Yacimientos?")
    assert text == "Los prerrequisitos de Yacimientos (0420) son Mineralogía 1 (0410) y el curso que el pénsum lista como Mineralogía 2 y como Petrografía (0412).", text
    assert code_names(["Principios de Metrología", "Termodinámica 1"], "Termodinámica 2") == ["Termodinámica 1"]  # the course's own chain decides
    assert code_names(["Topografía 1", "Topografía 2"], "Topografía 3") == ["Topografía 1", "Topografía 2"]  # both share its name: both said
    assert code_names(["Principios de Metrología", "Termodinámica 1"], "Motores de Combustión") == ["Principios de Metrología", "Termodinámica 1"]
    assert code_label(["Topografía 1", "Topografía 2"], "en") == "the course the plan lists as Topografía 1 and as Topografía 2"
    assert code_label(["Topografía 1"]) == "Topografía 1"
    at = {"Teoría Electromagnética 2": 7, "Conversión de Energía 2": 8, "Transmisión": 8}
    assert code_names(["Teoría Electromagnética 2", "Conversión de Energía 2"], "Transmisión", at) == ["Teoría Electromagnética 2"]  # a prerequisite comes earlier


def test_the_careers_areas_are_the_list_after_the_colon_cut_before_another_clause():
    said = ["La carrera consta de tres Áreas y dos Departamentos: Área de Estructuras, Departamento de Hidráulica, en donde se realiza la gestión."]
    assert career_areas(said) == "Área de Estructuras, Departamento de Hidráulica"
    assert career_areas(["El área de prácticas: inicial, intermedia y final, se asignan en la Unidad de EPS."]) == ""  # not a list of areas


def test_programmes_that_agree_are_worded_by_the_plan_that_names_a_shared_code_once():
    other = PLAN.replace("Ingeniería Minera", "Ingeniería Geológica").replace("codigo: 0412\nnombre: Petrografía\ncreditos: 4\narea: No especificada\nprerequisitos: 0402\nobligatorio: Sí\n---\n", "")
    hits = [hit("pensum_minas", "Ingeniería Minera", PLAN, "https://x.example/minas", "SEMESTRE 3"), hit("pensum_geologia", "Ingeniería Geológica", other, "https://x.example/geologia", "SEMESTRE 3")]
    from bot.ops.answer_eval import answer_body

    text = answer_body(ExtractiveGenerator().generate("¿Cuáles son los prerrequisitos de Yacimientos?", hits).text)
    assert "Mineralogía 2 (0412)" in text and "lista como" not in text, text  # the same codes: the plan without the doubt names them
