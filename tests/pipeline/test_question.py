"""The question part of a message, bounded before embedding or LLM calls (issue 14)."""

from __future__ import annotations

from pipeline.question import focus_question


def test_a_short_message_is_left_as_it_is():
    assert focus_question("Hola. ¿Cuándo es la asignación?", 2000) == "Hola. ¿Cuándo es la asignación?"


def test_the_asking_sentences_come_first_within_the_budget():
    text = "Les cuento mi situación. " * 200 + "¿Cuándo abre la asignación de cursos? " + "Más contexto. " * 200
    out = focus_question(text, 300)
    assert len(out) <= 300 and "¿Cuándo abre la asignación de cursos?" in out


def test_a_question_at_the_end_of_a_huge_mail_is_found():
    out = focus_question("Relleno. " * 500_000 + "¿Dónde pago la matrícula?", 500)
    assert "¿Dónde pago la matrícula?" in out and len(out) <= 500


def test_one_endless_sentence_is_cut_at_a_word():
    out = focus_question("palabra " * 10_000, 200)
    assert len(out) <= 200 and out.endswith("palabra")
