"""Stamp and seal debris (short upper-case strings no word of the document) is dropped from converted and extracted text."""

from __future__ import annotations

from pipeline.loaders.debris import drop_debris, drop_debris_pages
from pipeline.loaders.pdf_text import repair_pages

TEXT = """TÍTULO I. DISPOSICIONES GENERALES
CONSIDERANDO
Que el EPS y la USAC requieren normas claras para la promoción estudiantil al curso o unidad
inmediata superior. INI
SISETENE
TÍTULO II. DE LOS PRINCIPIOS DE LA EVALUACIÓN
Artículo 2º. De la evaluación. El estudiante presenta su tesis al final.
ISC
ACA
Artículo 3º. Las modalidades son Tesis o
EPS
según lo establecido por la USAC.
TESIS
CET"""


def test_seal_strings_go_and_words_acronyms_headings_stay():
    text, cut = drop_debris(TEXT)
    lines = text.split("\n")
    for gone in ("SISETENE", "ISC", "ACA", "CET"):
        assert gone not in lines
    assert "inmediata superior." in lines  # the string glued after the sentence's end is cut, the sentence kept
    assert cut == 5
    # a Spanish word, an acronym the text uses, a word it writes in lower case, a line going on with the sentence above
    for kept in ("CONSIDERANDO", "TESIS", "EPS", "TÍTULO II. DE LOS PRINCIPIOS DE LA EVALUACIÓN"):
        assert kept in lines
    assert drop_debris("Sin sellos.\nNada que cortar.") == ("Sin sellos.\nNada que cortar.", 0)


def test_pages_are_judged_by_the_whole_document_and_the_pdf_repairs_count_them():
    pages = ["La Unidad de EPS atiende consultas.", "EPS\nPOTERASS\nArtículo 5º. Los requisitos son tres.", "MIA SCOA\nFin del normativo."]
    out, cut = drop_debris_pages(pages)
    assert cut == 2 and out[1].split("\n")[0] == "EPS" and "POTERASS" not in out[1] and "MIA SCOA" not in out[2]
    repaired = repair_pages(pages, name="n.pdf")
    assert repaired.stats["seal_debris"] == 2 and "POTERASS" not in "\n".join(repaired.pages)
