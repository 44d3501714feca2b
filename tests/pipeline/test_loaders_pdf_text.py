"""PDF text repaired at ingestion: furniture, hyphenation, run-together words, headings, checklists, unreadable pages."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.errors import DocumentError
from pipeline.loaders import load_document
from pipeline.loaders.pdf_text import repair_pages
from pipeline.units import extract_units
from tests.pipeline.docs_factory import write_pdf

_BODY = [
    "La inscripción a los cursos se hace por el portal. Cada estudiante elige sus secciones.",
    "Los exámenes finales se programan al terminar el semestre. Las notas se publican en el portal.",
    "La constancia de cursos aprobados se pide en Control Académico. Tiene un costo de cincuenta quetzales.",
    "El estudiante puede pedir revisión de su examen dentro de los tres días hábiles siguientes.",
]


def _paged(bodies: list[str]) -> list[str]:
    """Pages as a printed regulation has them: a running header on top, the page number at the bottom."""
    return [f"FACULTAD DE INGENIERÍA\nNormativo de cursos\n{b}\n{i}" for i, b in enumerate(bodies, start=1)]


def test_running_header_is_kept_once_and_page_numbers_are_dropped():
    out = repair_pages(_paged(_BODY)).pages
    text = "\n".join(out)
    assert text.count("Normativo de cursos") == 1 and text.count("FACULTAD DE INGENIERÍA") == 1
    assert not any(line.strip().isdigit() for page in out for line in page.splitlines())
    assert all(b.split(".")[0] in text for b in _BODY)  # the body is all there


def test_a_word_hyphenated_across_lines_is_joined_and_a_compound_keeps_its_hyphen():
    page = "Para la inscrip-\nción se necesita la carta del Asesor-\nSupervisor y la constancia del servicio técnico-\nprofesional. Ver https://sitios.ingenieria-\nusac.edu.gt/eps/ para más."
    text = repair_pages([page]).pages[0]
    assert "la inscripción se necesita" in text.replace("\n", " ")
    assert "Asesor-Supervisor" in text
    assert "técnico-profesional" in text
    assert "sitios.ingenieria-usac.edu.gt/eps/" in text


def test_run_together_words_are_separated_and_real_words_are_not():
    page = (
        "Presente la constancia deinscripción del ciclo actual.\n"
        "Nombre del archivo: Constancialnscripcion_#carné\n"
        "El Certi ﬁ cado de nacimiento y los méritos extrauniversitarios se evalúan si los ajustaren sin contravenirlo."
    )
    text = repair_pages([page]).pages[0]
    assert "constancia de inscripción del ciclo" in text
    assert "ConstanciaInscripcion_#carné" in text
    assert "Certificado de nacimiento" in text
    for word in ("extrauniversitarios", "ajustaren", "contravenirlo"):
        assert word in text


def test_numbered_checklist_is_restored_from_bare_numbers_and_from_a_run_on_line():
    page = "DOCUMENTOS\n1\nConstancia de inscripción vigente.\n2\nSolvencia general del ciclo.\n3\nPago del examen privado de Q.250.00."
    items = [u for u in extract_units(repair_pages([page]).pages[0]) if u.kind == "item"]
    assert [u.text[:20] for u in items] == ["Constancia de inscri", "Solvencia general de", "Pago del examen priv"]
    run_on = "Documentos requeridos: 1 Constancia de inscripción 2 Solvencia General 3 Pago de Examen Privado de Q.250.00."
    text = repair_pages([run_on]).pages[0]
    assert text.splitlines() == ["Documentos requeridos:", "1. Constancia de inscripción", "2. Solvencia General", "3. Pago de Examen Privado de Q.250.00."]


def test_headings_are_separated_from_body_text():
    page = "La beca se paga cada mes.\nPlazos\nLa renovación se pide antes del 30 de marzo de cada año.\nRequisitos La solicitud se presenta con la escolaridad al día y la constancia de ingresos."
    units = extract_units(repair_pages([page]).pages[0])
    headings = [u.text for u in units if u.kind == "heading"]
    assert headings == ["Plazos", "Requisitos"]
    renewal = next(u for u in units if u.text.startswith("La renovación"))
    assert renewal.context == "Plazos"
    assert any(u.text.startswith("La solicitud se presenta") and u.context == "Requisitos" for u in units)


def test_a_page_of_unreadable_text_is_left_out_with_a_warning_naming_its_range():
    garbage = "ÿþ ¤¤ Ðñ ¿¿ §§ ®®\n" * 6 + "xqzt vbnrk plmqw zxcvb qwrtp lkjhg mnbvc"
    out = repair_pages([_BODY[0], garbage, garbage, _BODY[1]], name="raro.pdf")
    assert out.pages[1] == out.pages[2] == ""
    assert out.warnings == ["raro.pdf: pages 2-3 of 4: unreadable text (a font without a usable encoding); left out"]
    assert out.pages[0].startswith("La inscripción") and out.pages[3].startswith("Los exámenes")


def test_text_that_needs_no_repair_is_left_as_it_is():
    page = "Artículo 5. La inscripción es anual.\nArtículo 6. Las reválidas se piden en Bedelía."
    assert repair_pages([page]).pages[0] == page


def _scan_pages(path, pages: list[str | None]):
    """A PDF where None pages are scans (an image, no text layer)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path) as pdf:
        for text in pages:
            fig = plt.figure(figsize=(8.27, 11.69))
            if text is None:
                fig.figimage(np.random.default_rng(0).integers(0, 255, (60, 80)), cmap="gray")
            else:
                fig.text(0.05, 0.95, text, va="top", fontsize=9, family="DejaVu Sans")
            pdf.savefig(fig)
            plt.close(fig)
    return path


def test_pdf_with_scanned_pages_is_ingested_with_a_warning_per_page_range(tmp_path):
    bodies = _paged(_BODY)
    p = _scan_pages(tmp_path / "normativo.pdf", [bodies[0], None, None, bodies[1], bodies[2], bodies[3]])
    doc = load_document(p)
    assert doc.warnings == ["normativo.pdf: pages 2-3 of 6: no text layer (scanned images need OCR first); left out"]
    assert doc.text.count("Normativo de cursos") == 1
    assert doc.page_at(doc.text.index("Los exámenes finales")) == 4


def test_a_wholly_scanned_pdf_is_refused_with_its_page_count(tmp_path):
    p = _scan_pages(tmp_path / "escaneado.pdf", [None, None, None])
    with pytest.raises(DocumentError, match="no text layer on any of its 3 pages"):
        load_document(p)


def test_pdf_checklist_and_hyphenation_survive_ingestion(tmp_path):
    page = "Documentos para el examen privado:\n1\nConstancia de inscrip-\nción del ciclo actual.\n2\nSolvencia general vigente.\n3\nOrden de pago del examen."
    doc = load_document(write_pdf(tmp_path / "guia.pdf", [page]))
    items = [u.text for u in extract_units(doc.text) if u.kind == "item"]
    assert items == ["Constancia de inscripción del ciclo actual.", "Solvencia general vigente.", "Orden de pago del examen."]


def test_converted_pdf_text_with_page_markers_is_repaired_too(tmp_path):
    p = tmp_path / "guia.md"
    p.write_text("--- Página 1 ---\nPresente la constancia deinscripción.\n--- Página 2 ---\nY la solvencia general.", encoding="utf-8")
    doc = load_document(p)
    assert "constancia de inscripción" in doc.text
    assert doc.page_at(doc.text.index("solvencia")) == 2


def test_two_words_glued_at_a_box_edge_are_separated_and_names_in_camel_case_are_not():
    out = repair_pages(["Pago de ExamenGeneral del ciclo.\nSubir el archivo ConstanciaPago_#carné por el PortalEstudiantil en línea.\nUse PowerPoint o iPhone."]).pages[0]
    assert "Pago de Examen General del ciclo." in out
    assert "ConstanciaPago_#carné" in out  # a file name keeps its CamelCase
    assert "Portal Estudiantil" in out
    assert "iPhone" in out


def test_step_numbers_printed_apart_from_their_boxes_are_left_out_not_given_to_the_wrong_box():
    page = ("2\nSolvencia\nGeneral\nSolvencia general vigente del ciclo.\n3\nPago de Examen\nOrden de pago de Q.250.00.\n"
            "Trabajo de\nGraduación\nTrabajo completo.\n4\nCertificado de\nNacimiento\nEmitido por RENAP.\n5\nA\nConstancia de\nExpediente\n6")
    out = repair_pages(["Portada del documento.", page, "Fin."], name="guia.md")
    text = out.pages[1]
    assert "4. Certificado" not in text and "5. A" not in text and "\n4\n" not in text  # no step number on the wrong box
    assert "- Certificado de\nNacimiento" in text and "## Solvencia General\n- Solvencia general" in text and out.stats["step_numbers_dropped"] == 5  # boxes kept apart, unnumbered
    assert any("page 2 of 3" in w and "could not be matched" in w for w in out.warnings)
    aligned = repair_pages(["Portada.", "1\nLingüística\nAutorización.\n2\nControl Académico\nCarga de documentos.\n3\nSecretaría\nProgramación.", "Fin."])
    assert "1. Lingüística" in aligned.pages[1] and "3. Secretaría" in aligned.pages[1] and not aligned.warnings


def test_checklist_boxes_become_a_heading_and_a_list_item_each_rather_than_run_on_text():
    page = (
        "REQUISITOS PARA LA INSCRIPCIÓN\n"
        "Carta de\nAceptación\nCarta de aceptación firmada por el\ncoordinador de la carrera.\nNombre del archivo en PDF:\nCarta_#carné\n"
        "Boleta de\nPago del Trámite\nOrden de pago y boleta de Q.75.00\ngenerada desde el portal.\nNombre del archivo en PDF:\nBoleta_#carné\n"
    )
    out = repair_pages([page])
    text = out.pages[0]
    assert "## Carta de Aceptación\n- Carta de aceptación firmada" in text
    assert "## Boleta de Pago del Trámite\n- Orden de pago y boleta de Q.75.00" in text  # after the file name closing the box before
    assert out.stats["box_titles"] == 2
    units = extract_units(text)
    items = [u for u in units if u.kind == "item"]
    assert [u.context for u in items] == ["Carta de Aceptación", "Boleta de Pago del Trámite"]
    assert items[0].text.startswith("Carta de aceptación firmada por el coordinador") and "Boleta" not in items[0].text
    assert not any("Aceptación Carta" in u.text or "Trámite Orden" in u.text for u in units)  # no title run into its body


def test_icon_glyphs_are_dropped():
    page = "Requisitos del trámite\n\uf0fc Constancia de inscripción vigente del ciclo.\n☑ Solvencia general del ciclo actual.\nΟ\n!\nConsultar el procedimiento en la ventanilla de Registro."
    text = repair_pages([page]).pages[0]
    assert "\uf0fc" not in text and "☑" not in text and "Ο" not in text.split() and "\n!\n" not in text
    assert "Constancia de inscripción vigente del ciclo." in text and "Solvencia general del ciclo actual." in text
    assert "Consultar el procedimiento en la ventanilla de Registro." in text


def test_a_phrase_doubled_across_a_line_break_is_said_once():
    page = "Presentar la orden de pago y la boleta de pago de\npago de Alquiler de Toga de Q.50.00 en la ventanilla.\nLa toga se recoge de\nde lunes a viernes."
    out = repair_pages([page])
    text = out.pages[0].replace("\n", " ")
    assert "la boleta de pago de Alquiler de Toga de Q.50.00" in text  # undone once: 'pago de' is said once
    assert "se recoge de de lunes" in text  # a short word said twice is left alone (it may be meant)
    assert out.stats["doubled_words"] == 1
    from pipeline.loaders.pdf_layout import _join  # a box's lines joined in layout order

    assert _join(["Orden de pago y boleta de pago de", "Pago de Alquiler de Toga Q.70.00"]) == "Orden de pago y boleta de pago de Alquiler de Toga Q.70.00"
