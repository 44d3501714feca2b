"""A long message is judged by its best question, and redaction placeholders carry no signal."""

from __future__ import annotations

from classifiers.gate import message_segments


def test_long_messages_add_their_question_sentences():
    text = "Soy Lucía, cédula [CEDULA]. En febrero me opero. Si me paso del plazo, ¿puedo hacer una inscripción tardía? Les dejo mi celular [TELEFONO]."
    segments, owner = message_segments([text, "¿Dónde queda la pizzería?"])
    assert owner == [0, 0, 1]
    assert "[CEDULA]" not in segments[0] and "[TELEFONO]" not in segments[0]
    assert segments[1] == "Si me paso del plazo, ¿puedo hacer una inscripción tardía?"
    assert segments[2] == "¿Dónde queda la pizzería?"


def test_short_questions_are_not_split():
    segments, owner = message_segments(["quisiera saber si puedo rendir libre", "¿Cuántos créditos necesito para recibirme?"])
    assert segments == ["quisiera saber si puedo rendir libre", "¿Cuántos créditos necesito para recibirme?"] and owner == [0, 1]
