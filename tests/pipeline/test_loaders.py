"""Each loader on a real file of its format, and the bad inputs an office really has."""

from __future__ import annotations

import pytest

from pipeline.errors import DocumentError
from pipeline.loaders import LOADERS, html_to_text, load_document, read_text
from tests.pipeline.docs_factory import write_docx, write_pdf


def test_markdown_title_url_and_id(tmp_path):
    p = tmp_path / "becas.md"
    p.write_text("# Becas de la Facultad\n\nFuente: https://fing.example.edu/becas\n\nHay becas de transporte.", encoding="utf-8")
    doc = load_document(p)
    assert (doc.id, doc.title, doc.url) == ("becas", "Becas de la Facultad", "https://fing.example.edu/becas")
    assert "becas de transporte" in doc.text


def test_plain_text_first_line_is_title_and_page_markers_become_pages(tmp_path):
    p = tmp_path / "guia.txt"
    p.write_text("--- Página 1 ---\nGuía de egreso\nTexto uno.\n--- Página 2 ---\nTexto dos.", encoding="utf-8")
    doc = load_document(p)
    assert doc.title == "Guía de egreso"
    assert doc.page_at(doc.text.index("Texto dos")) == 2
    assert doc.page_at(doc.text.index("Texto uno")) == 1


def test_html_drops_boilerplate_and_keeps_links_as_urls():
    html = """<html><head><title>T</title></head><body>
    <nav><a href="/">Inicio</a> Menú principal</nav><header>Cabezal del sitio</header>
    <main><h1>Reválidas</h1><p>Iniciá el trámite en <a href="https://bedelia.example.edu/revalidas">Bedelía</a>.</p></main>
    <div class="cookie-banner">Usamos cookies</div><footer>© Facultad</footer></body></html>"""
    text, title, _ = html_to_text(html)
    assert title == "Reválidas"
    assert "Bedelía (https://bedelia.example.edu/revalidas)" in text
    for junk in ("Menú principal", "Cabezal", "cookies", "©"):
        assert junk not in text


def test_pdf_text_with_page_numbers(tmp_path):
    p = write_pdf(tmp_path / "reglamento.pdf", ["Artículo 1. La inscripción es anual.", "Artículo 2. Las reválidas cuestan 500 pesos."])
    doc = load_document(p)
    assert doc.id == "reglamento"
    assert doc.page_at(doc.text.index("reválidas")) == 2
    assert doc.page_at(doc.text.index("inscripción")) == 1


_SEAL = "ORBIS SIGILLUM ACADEM"
_HEADER = "UNIVERSIDAD DEL VALLE CENTRAL"


def _ocr_pages(title_lines: list[str]) -> list[str]:
    """Pages as an OCR'd brochure has them: a seal, a running header, the title wrapped over lines, then the body."""
    body = [
        "Artículo 1. El Programa de Prácticas de la Facultad de Ingeniería organiza las prácticas del estudiante.",
        "Artículo 2. Las prácticas se aprueban con un informe; la Facultad de Ingeniería publica los plazos.",
        "Artículo 3. El normativo del Programa de Prácticas rige desde su aprobación.",
    ]
    return [f"{_SEAL}\n{_HEADER}\n" + "\n".join(title_lines) + f"\n{body[0]}"] + [f"{_HEADER}\n{b}" for b in body[1:]]


def test_an_ocr_title_is_the_wrapped_heading_written_as_the_document_writes_it(tmp_path):
    p = tmp_path / "normativo_practicas.txt"
    p.write_text("\n".join(f"--- Página {i} ---\n{t}" for i, t in enumerate(_ocr_pages(["NORMATIVO DEL PROGRAMA DE PRÁCTICAS DE LA", "FACULTAD DE INGENIERIA"]), 1)), encoding="utf-8")
    assert load_document(p).title == "Normativo del Programa de Prácticas de la Facultad de Ingeniería"  # not the seal, not the running header


def test_without_a_heading_the_file_name_agrees_with_the_title_is_the_prettified_file_name(tmp_path):
    p = tmp_path / "guia_de_egreso_2027.txt"
    p.write_text("\n".join(_ocr_pages(["SOLO", "ARTES"])), encoding="utf-8")
    assert load_document(p).title == "Guia de egreso 2027"


def test_a_pdf_with_a_word_processor_title_gets_its_heading(tmp_path):
    p = write_pdf(tmp_path / "normativo.pdf", _ocr_pages(["NORMATIVO DEL PROGRAMA DE PRÁCTICAS DE LA", "FACULTAD DE INGENIERIA"]), metadata={"Title": "Microsoft Word - normprac2019.doc"})
    assert load_document(p).title == "Normativo del Programa de Prácticas de la Facultad de Ingeniería"
    p = write_pdf(tmp_path / "reglamento_general.pdf", ["Artículo 1. La inscripción es anual."], metadata={"Title": "reglamento_general"})
    assert load_document(p).title == "Reglamento general"
    p = write_pdf(tmp_path / "x.pdf", ["Artículo 1. La inscripción es anual."], metadata={"Title": "REGLAMENTO DE INSCRIPCIÓN"})
    assert load_document(p).title == "Reglamento de inscripción"  # a real title, in the document's own capitals


def test_docx_headings_and_tables(tmp_path):
    p = write_docx(tmp_path / "tramites.docx", "Trámites de Bedelía", [("Escolaridad", "Se pide en el SIGE.")], table=[["Trámite", "Costo"], ["Escolaridad", "Gratis"]])
    doc = load_document(p)
    assert doc.title == "Trámites de Bedelía"
    assert "## Escolaridad" in doc.text and "Se pide en el SIGE." in doc.text
    assert "Escolaridad | Gratis" in doc.text


def test_csv_of_handmade_chunks(tmp_path):
    p = tmp_path / "faq_manual.csv"
    p.write_text('title,url,text\nHorario,https://x.example/h,"Atendemos de 9 a 13, de lunes a viernes."\nLockers,,No hay lockers.\n', encoding="utf-8")
    doc = load_document(p)
    assert doc.handmade == [("Horario", "https://x.example/h", "Atendemos de 9 a 13, de lunes a viernes."), ("Lockers", None, "No hay lockers.")]


def test_csv_without_required_columns_is_rejected(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="title,url,text"):
        load_document(p)


def test_non_utf8_text_is_read_as_windows_1252_with_a_warning(tmp_path):
    p = tmp_path / "constancia.txt"
    p.write_bytes("Constancia de inscripción — año lectivo".encode("cp1252"))
    doc = load_document(p)
    assert doc.text == "Constancia de inscripción — año lectivo"
    assert doc.warnings and "windows-1252" in doc.warnings[0]
    assert read_text(p) == doc.text


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("corrupto.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage without xref", "PDF"),
        ("vacio.md", b"", "empty file"),
        ("binario.txt", bytes(range(256)) * 40, "binary"),
        ("planilla.xlsx", b"PK\x03\x04 not really", "unsupported file type .xlsx"),
        ("espacios.md", b"   \n\n  ", "no text"),
    ],
)
def test_bad_inputs_raise_a_clear_document_error(tmp_path, name, content, reason):
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(DocumentError) as exc:
        load_document(p)
    assert name in str(exc.value) and reason in str(exc.value)


def test_a_50_mb_document_is_refused_before_reading(tmp_path):
    p = tmp_path / "enorme.txt"
    with p.open("wb") as fh:  # sparse file: 50 MB on paper, nothing written
        fh.truncate(50 * 1024 * 1024)
    with pytest.raises(DocumentError, match="too large"):
        load_document(p)


def test_every_advertised_format_has_a_loader():
    load_document.__globals__["_register_builtin"]()
    assert {".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx", ".csv"} <= set(LOADERS)
