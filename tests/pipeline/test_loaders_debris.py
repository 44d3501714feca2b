"""Stamp and seal debris (short upper-case strings no word of the document) is dropped from converted and extracted text."""

from __future__ import annotations

from pipeline.loaders.debris import StampFilter, drop_debris, drop_debris_pages, without_stamps
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


# A normativo over which a watermark ('... CONSPICUA CAROLINA ...') left whole lines and letters inside body lines.
STAMPED = """TÍTULO XI. DE LAS EVALUACIONES POR SUFICIENCIA
NSPICO
DICUA CAROT
Artículo 49°. Los estudiantes podrán someterse a la evaluación:
a. En los cursos o asio Sodran AROLIN
asignaturas del área básica, hasta 24 créditos.
SPICUA CARO profesionales y de
graduación, según la USAC y el EPS.
CUA CAROLI
AROLINA
La modalidad debe ser uniforme para todos en un examen dado.
n un examen dado.
Artículo 50°. Del procedimiento: CUA CAROLI
El estudiante genera la boleta. Lo revisa la SAE
de la Facultad y la CARTA, según el MAGNA CUM LAUDE del acta.
La Coordinación aprueba según el acta de la zona mini
ONSPIC
Artículo 51°. La nota se logra con 80 puntos."""


def _lines(text: str) -> list[tuple[str, int]]:
    out, pos = [], 0
    for raw in text.splitlines(keepends=True):
        out.append((raw, pos))
        pos += len(raw)
    return out


def test_stamp_letters_inside_lines_go_and_words_names_acronyms_stay():
    f = StampFilter(STAMPED.split("\n"))
    assert f.line("a. En los cursos o asio Sodran AROLIN") == "a. En los cursos o"  # the stamp's capitals and the letters read beside them
    assert f.line("SPICUA CARO profesionales y de") == "profesionales y de"  # at the line's start
    assert f.line("Artículo 50°. Del procedimiento: CUA CAROLI") == "Artículo 50°. Del procedimiento:"
    assert f.line("AROLINApor la actualización del curso") == "por la actualización del curso"  # glued before a word
    assert f.line("Las evaluaNSPICO") == "Las evalua"  # glued after one
    assert f.line("CUA CAROLI") is None and f.line("NSPICO") is None  # whole lines of stamp letters
    # capitals that are no stamp fragment, or that the document uses as words, stay (an acronym, a distinction, a name)
    for kept in ("El estudiante genera la boleta. Lo revisa la SAE", "de la Facultad y la CARTA, según el MAGNA CUM LAUDE del acta.", "graduación, según la USAC y el EPS."):
        assert f.line(kept) == kept


def test_text_without_stamp_lines_is_left_alone():
    text = "Artículo 1. Lo revisa la SAE\nde la Facultad, según el MAGNA CUM LAUDE.\nVer la FIUSAC"
    assert without_stamps(_lines(text)) == _lines(text)


def test_echoed_lines_go_and_a_cut_line_does_not_swallow_the_next_article():
    out = [ln for ln, _ in without_stamps(_lines(STAMPED))]
    text = "".join(out)
    assert "n un examen dado." not in [ln.strip() for ln in out]
    assert "Sodran" not in text and "NSPICO" not in text and "CAROLI" not in text
    i = next(k for k, ln in enumerate(out) if ln.startswith("Artículo 51°"))
    assert out[i - 1].strip() == ""  # the dropped stamp line stood between an unfinished line and an article: a break stays
    starts = dict((at, raw) for raw, at in _lines(STAMPED))
    assert all(ln.strip() in starts[at] for ln, at in without_stamps(_lines(STAMPED)) if ln.strip())  # each line keeps its own offset


def test_units_of_a_stamped_document_read_clean():
    from pipeline.units import extract_units

    units = extract_units(STAMPED)
    texts = " ".join(u.text for u in units)
    contexts = {u.context for u in units}
    assert "AROLIN" not in texts and "Sodran" not in texts and "examen dado. n un" not in texts
    assert not any(c in ("NSPICO", "CUA CAROLI", "ONSPIC") for c in contexts)  # stamp lines are no headings
    assert any(u.text.startswith("Artículo 51°") for u in units)
