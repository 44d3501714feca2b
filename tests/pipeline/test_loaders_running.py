"""Running headers and footers in text converted from a PDF without page markers: cut out, the split sentences joined."""

from __future__ import annotations

from pipeline.loaders import load_document
from pipeline.loaders.running import furniture_blocks, strip_running

FOOTER = "APROBADO POR JUNTA DIRECTIVA\nSegún Punto Noveno, Inciso 9.4, del Acta 33-2021\n{n}\n\nNormativo de Evaluación de los\nEstudiantes de Pregrado"


def _normativo() -> str:
    pages = [
        "Artículo 17°. El estudiante podrá asignarse cursos en el período establecido.",
        "Artículo 18°. El estudiante que así lo desee puede realizar la desasignación una sola vez. El estudiante no puede",
        "realizar la desasignación de todos los cursos asignados en un mismo semestre, a excepción de los casos del artículo 21.\nArtículo 19°. El estudiante deberá:",
        "a. Presentar la solicitud.\nb. Pagar la soli-",
        "citud en la agencia bancaria.",
    ]
    return "\n".join(p + "\n" + FOOTER.format(n=i + 1) for i, p in enumerate(pages[:-1])) + "\n" + pages[-1]


def test_a_sentence_cut_by_a_page_break_and_its_footer_is_joined():
    text, cut = strip_running(_normativo())
    assert cut == 4 and "APROBADO" not in text and "Normativo de Evaluación" not in text
    assert "El estudiante no puede\nrealizar la desasignación de todos los cursos" in text  # one sentence again
    assert "deberá:\na. Presentar la solicitud.\nb. Pagar la solicitud en la agencia bancaria." in text  # a list across pages, a hyphenated word rejoined


def test_repeated_lines_that_are_content_stay():
    records = "\n".join(f"---\ncodigo: {i:04d}\nnombre: Curso {i}\nobligatorio: Sí\narea: No especificada" for i in range(8))
    assert furniture_blocks(records.split("\n")) == [] and strip_running(records) == (records, 0)
    heading = "DEPARTAMENTO DE EPS\nArtículo 9. Estructura.\n" * 2 + "CAPÍTULO III\nDEPARTAMENTO DE EPS\nArtículo 10. Funciones."
    assert strip_running(heading)[1] == 0  # one repeated line without a page number is a heading, not furniture


def test_the_text_loader_joins_what_the_page_furniture_split(tmp_path):
    path = tmp_path / "normativo.md"
    path.write_text(_normativo(), encoding="utf-8")
    doc = load_document(path)
    assert "no puede\nrealizar la desasignación de todos los cursos" in doc.text and "APROBADO" not in doc.text
