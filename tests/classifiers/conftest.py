"""Small corpora and datasets for the gate's tests."""

from __future__ import annotations

import pytest

from pipeline.chunking import Chunk

DOCS = {
    "examenes": (
        "Exámenes",
        [
            "Inscripción a exámenes\nLa inscripción a exámenes se realiza por el portal estudiantil hasta cinco días hábiles antes de la fecha del examen.",
            "ARTÍCULO 12. Revisión de exámenes: El estudiante puede solicitar la revisión de su examen dentro de los tres días hábiles siguientes a la publicación de notas.",
            "¿Puedo rendir un examen por suficiencia?\nSí, cuando la suma de créditos del curso no supere el máximo establecido por Junta Directiva.",
        ],
    ),
    "pensum": (
        "Pensum sistemas",
        [
            "SEMESTRE 1\ncodigo: 0101\nnombre: Matemática Básica 1\ncreditos: 9\nprerequisitos: Ninguno\nobligatorio: Sí\n---\ncodigo: 0147\nnombre: Física Básica\ncreditos: 5\nprerequisitos: 0101\nobligatorio: Sí",
            "Créditos CLAR\nLa carrera consta de 300 créditos CLAR, distribuidos en 10 semestres de 30 créditos cada uno.",
        ],
    ),
    "becas": (
        "Becas",
        [
            "Becas de transporte\nLa beca de transporte cubre el boleto de estudiante para quienes viven a más de 20 kilómetros de la Facultad de Ingeniería.",
            "Los estudiantes del interior pueden solicitar la beca de alojamiento en la residencia universitaria presentando la constancia de inscripción.",
        ],
    ),
}


@pytest.fixture
def chunks() -> list[Chunk]:
    out = []
    for doc_id, (title, texts) in DOCS.items():
        out += [Chunk(doc_id=doc_id, doc_title=title, text=t, position=i) for i, t in enumerate(texts)]
    return out


@pytest.fixture
def chunk_vectors(chunks, fake_embedder):
    return fake_embedder.embed_passages([c.embed_text for c in chunks])
