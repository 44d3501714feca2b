"""PDF pages laid out in boxes and columns are read in layout order (pipeline.loaders.pdf_layout), on PDFs drawn here."""

from __future__ import annotations

from pathlib import Path

from pipeline.loaders import load_document
from pipeline.units import extract_units
from tests.pipeline.pdf_factory import BOXES as _BOXES
from tests.pipeline.pdf_factory import boxes_pdf


def _boxes_pdf(path: Path, boxes: list[tuple[str, str, str]], *, numbers: str = "above", extra: list[tuple[float, float, str]] = ()) -> Path:
    return boxes_pdf(path, [{"boxes": boxes, "numbers": numbers, "extra": list(extra)}])


def test_boxes_in_columns_come_out_as_a_numbered_list_in_order(tmp_path):
    doc = load_document(_boxes_pdf(tmp_path / "cierre.pdf", _BOXES))
    items = [u.text for u in extract_units(doc.text) if u.kind == "item"]
    assert len(items) == 6, doc.text
    assert items[0].startswith("Carta de solicitud: Carta dirigida a la coordinación, firmada por el estudiante y su asesor.")
    assert items[1].startswith("Recibo de pago: Recibo del pago de cierre por Q.75.00 realizado en cualquier agencia del banco.")
    assert items[3].startswith("Historial académico: Historial de cursos aprobados")
    assert items[5].startswith("Formulario firmado: Formulario de datos personales completo y firmado con tinta azul en cada hoja.")
    lines = doc.text.splitlines()
    numbered = [ln.split(".")[0] for ln in lines if ln[:1].isdigit()]
    assert numbered == ["1", "2", "3", "4", "5", "6"]
    assert doc.warnings == []


def test_a_box_body_is_not_interleaved_with_its_neighbours(tmp_path):
    doc = load_document(_boxes_pdf(tmp_path / "cierre.pdf", _BOXES, numbers="none"))
    text = " ".join(doc.text.split())
    # without step numbers the columns are still read one after the other, each box's sentences whole
    assert "Recibo del pago de cierre por Q.75.00 realizado en cualquier agencia del banco." in text
    assert "Copia legible del documento de identidad por ambos lados, en un solo archivo." in text
    assert text.index("Carta dirigida") < text.index("Recibo del pago") < text.index("Copia legible")


def test_a_single_column_page_keeps_the_plain_extraction(tmp_path):
    from tests.pipeline.docs_factory import write_pdf

    page = "Artículo 4. Inscripción\nLa inscripción se hace en el portal durante las fechas que fija el calendario.\nEl estudiante puede asignarse hasta siete cursos por semestre, según su plan."
    doc = load_document(write_pdf(tmp_path / "normativo.pdf", [page]))
    assert "La inscripción se hace en el portal durante las fechas que fija el calendario." in " ".join(doc.text.split())
    assert doc.warnings == []


def test_step_numbers_that_match_no_box_are_warned_with_their_page(tmp_path):
    # a row of step numbers drawn far below the boxes, beside nothing
    extra = [(0.06, 0.1, "7"), (0.37, 0.1, "8"), (0.68, 0.1, "9")]
    doc = load_document(_boxes_pdf(tmp_path / "cierre.pdf", _BOXES[:3], extra=extra))
    assert any(w.startswith("cierre.pdf: page 1 of 1:") and "could not be matched" in w for w in doc.warnings), doc.warnings
    assert "7 8 9" not in doc.text and "Recibo de pago: Recibo del pago" in doc.text


def test_a_sentence_cut_by_a_page_break_is_one_unit(tmp_path):
    from tests.pipeline.docs_factory import write_pdf

    pages = [
        "Artículo 9. Asignación de cursos\nEl estudiante con promedio mayor a ochenta puntos podrá asignarse hasta\n",
        "ocho cursos en el semestre siguiente, previa aprobación de su escuela.\nArtículo 10. Retiro de cursos\nEl retiro se pide antes del primer parcial.",
    ]
    doc = load_document(write_pdf(tmp_path / "normativo.pdf", pages))
    sentences = [u.text for u in extract_units(doc.text) if u.kind == "sentence"]
    assert any("hasta ocho cursos en el semestre siguiente" in s for s in sentences), sentences
    assert doc.page_at(doc.text.index("ocho cursos")) == 2 and doc.page_at(doc.text.index("asignarse hasta")) == 1


def test_a_word_hyphenated_across_a_page_break_is_joined(tmp_path):
    from tests.pipeline.docs_factory import write_pdf

    pages = ["Artículo 12. Equivalencias\nLa escuela resolverá las equivalencias soli-", "citadas y notificará a Registro y Estadística.\nArtículo 13. Plazos\nEl plazo es de un mes."]
    doc = load_document(write_pdf(tmp_path / "normativo.pdf", pages))
    assert "las equivalencias solicitadas y notificará a Registro" in " ".join(doc.text.split())
    assert doc.page_at(doc.text.index("notificará")) == 2
