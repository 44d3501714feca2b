"""Each chunking strategy: sizes, coverage, overlap, and what makes it different."""

from __future__ import annotations

import re

import pytest

from pipeline.chunking import CHUNKERS, chunk_document
from pipeline.documents import Document

SENTENCES = [f"La oración número {i} habla del trámite {i} con algunos detalles." for i in range(60)]
PLAIN = Document(id="plain", title="Trámites", text=" ".join(SENTENCES), source="plain.md")


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


@pytest.mark.parametrize("strategy", ["fixed", "sentence", "recursive", "structure"])
def test_every_strategy_respects_size_covers_the_text_and_carries_title_and_position(strategy):
    chunks = chunk_document(PLAIN, strategy, size=300, overlap=50)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 for c in chunks)
    assert words(PLAIN.text) == set().union(*(words(c.text) for c in chunks))
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert all(c.embed_text.startswith("Trámites") for c in chunks)


def test_fixed_windows_overlap():
    chunks = chunk_document(PLAIN, "fixed", size=300, overlap=80)
    for a, b in zip(chunks, chunks[1:]):
        tail = a.text[-40:]
        assert tail.split()[-1] in b.text[:120]


def test_sentence_chunks_hold_whole_sentences():
    chunks = chunk_document(PLAIN, "sentence", size=300, overlap=0)
    for c in chunks:
        assert c.text.startswith("La oración") and c.text.endswith("detalles.")


def test_recursive_prefers_paragraph_breaks():
    paras = ["Primer párrafo " + "uno " * 30, "Segundo párrafo " + "dos " * 30, "Tercer párrafo " + "tres " * 30]
    doc = Document(id="r", title="R", text="\n\n".join(p.strip() for p in paras), source="r.md")
    chunks = chunk_document(doc, "recursive", size=200, overlap=0)
    assert [c.text.split()[0] for c in chunks] == ["Primer", "Segundo", "Tercer"]


REGLAMENTO = """# Reglamento de estudiantes

CAPÍTULO I
DISPOSICIONES GENERALES
ARTÍCULO 1. Ámbito: este reglamento rige para todos los estudiantes de grado.
ARTÍCULO 2. Inscripción: la inscripción a cursos se hace cada semestre en el portal.
Artículo 12 - Reválidas: las materias aprobadas en otra universidad pueden revalidarse.

## Preguntas frecuentes

1. ¿Cómo obtengo acceso al portal?
Con tu número de registro y tu DPI.
2. ¿Tengo correo institucional?
Sí, todos los estudiantes inscritos tienen uno.
"""


def test_structure_splits_at_articles_faq_items_and_headings():
    doc = Document(id="reg", title="Reglamento", text=REGLAMENTO, source="reg.md")
    chunks = chunk_document(doc, "structure", size=800, overlap=0)
    firsts = [c.text.splitlines()[0] for c in chunks]
    assert any(f.startswith("ARTÍCULO 2.") for f in firsts)
    assert any(f.startswith("Artículo 12") for f in firsts)
    assert any(f.startswith("1. ¿Cómo obtengo") for f in firsts) and any(f.startswith("2. ¿Tengo correo") for f in firsts)
    art12 = next(c for c in chunks if c.text.startswith("Artículo 12"))
    assert "Preguntas frecuentes" not in art12.text and "¿Cómo obtengo" not in art12.text
    assert "Reválidas" in art12.embed_text.splitlines()[0]  # the section heads the embedded text
    assert len(chunk_document(doc, "fixed", size=800, overlap=0)) == 1  # a fixed window would mix them all


def test_structure_uses_capitalised_pdf_headings_and_keeps_pages():
    text = "GUÍA DE GRADUACIÓN\n\nREQUISITOS DEL EXAMEN PRIVADO\n" + "Presentar la solvencia general vigente. " * 12 + "\n\nDOCUMENTOS A ENTREGAR\n" + "Constancia de inscripción y fotografía. " * 12
    doc = Document(id="g", title="Guía", text=text, source="g.pdf", pages=[(0, 1), (text.index("DOCUMENTOS"), 2)])
    chunks = chunk_document(doc, "structure", size=600, overlap=0)
    sections = {c.section: c.page for c in chunks}
    assert sections.get("DOCUMENTOS A ENTREGAR") == 2
    assert any(s and s.startswith("REQUISITOS") for s in sections)


def test_handmade_chunks_are_kept_whatever_the_strategy():
    doc = Document(id="m", title="Manual", text="x", source="m.csv", handmade=[("Horario", None, "De 9 a 13."), ("Lockers", "https://l", "No hay.")])
    for strategy in CHUNKERS:
        chunks = chunk_document(doc, strategy, size=100, overlap=0)
        assert [(c.section, c.text, c.url) for c in chunks] == [("Horario", "De 9 a 13.", None), ("Lockers", "No hay.", "https://l")]


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="unknown chunking strategy"):
        chunk_document(PLAIN, "magic")
    with pytest.raises(ValueError, match="overlap"):
        chunk_document(PLAIN, "fixed", size=100, overlap=100)
