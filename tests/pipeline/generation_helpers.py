"""Hits over the sample office's documents, for generator tests."""

from __future__ import annotations

from pipeline.chunking import Chunk
from pipeline.index import Hit

EXAMENES = "https://ingenieria.example.edu.uy/estudiantes/examenes"
BECAS = "https://ingenieria.example.edu.uy/bienestar/becas"


def hit(doc_id: str, title: str, text: str, url: str, section: str | None = None, pos: int = 0, score: float = 0.9) -> Hit:
    return Hit(Chunk(doc_id=doc_id, doc_title=title, text=text, position=pos, url=url, section=section), score)


def exam_hits() -> list[Hit]:
    return [
        hit("examenes", "Exámenes: períodos e inscripción", "Inscripción: desde el lunes 11 de enero de 2027 (10:00) hasta el viernes 22 de enero de 2027 a las 23:59, únicamente a través del SIGE.", EXAMENES, "Período de febrero de 2027"),
        hit("becas", "Becas para estudiantes de grado", "Nuevas solicitudes: del 1 al 28 de febrero de 2027.", BECAS, "Plazos de la convocatoria 2027", pos=3, score=0.8),
    ]


def derivation_input(final_text: str = "Te podés inscribir hasta el viernes 22 de enero de 2027 a las 23:59 por el SIGE.") -> dict:
    return {
        "steps": [
            {"id": "s1", "rule": "Extract", "premises": ["1"], "conclusion": "Inscripción: hasta el viernes 22 de enero de 2027 a las 23:59, únicamente a través del SIGE.", "is_final": False},
            {"id": "s2", "rule": "Refine", "premises": ["s1"], "conclusion": final_text, "is_final": True},
        ]
    }
