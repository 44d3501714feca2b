"""Closings and acknowledgements versus messages that carry a new question."""

from __future__ import annotations

import pytest

from pipeline.acknowledgement import classify, clauses, is_closing


@pytest.mark.parametrize("text", ["¡Muchas gracias!", "ok, perfecto", "listo, ya lo hice", "Dale, gracias!\n\nSaludos,\n[NOMBRE]", "👍", "Recibido, gracias."])
def test_closings_without_a_question_need_no_reply(text):
    assert is_closing(text), classify(text)


@pytest.mark.parametrize(
    "text",
    [
        "Gracias! ¿Y para Sistemas es igual?",
        "ok perfecto. ¿Y si ya pasó la fecha?",
        "Muchas gracias. Necesito saber también el horario de Bedelía.",  # a request without a question mark
        "Gracias, pero sigo sin poder entrar al SIGE.",  # a new problem
        "dale gracias, y las becas de transporte cuando abren",  # a question without accents or marks
        "holaaa, ¿cómo andan? 👋",
        "",
    ],
)
def test_a_closing_with_a_new_question_or_problem_is_not_an_acknowledgement(text):
    assert not is_closing(text), classify(text)


def test_a_long_message_is_never_taken_for_a_closing():
    text = "Gracias por todo. " + "Les cuento que este semestre estuve trabajando mucho y cursando dos materias a la vez. " * 5
    assert not is_closing(text) and classify(text).reason.startswith("long")


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        ("Gracias! y para Sistemas es igual", False),  # a question typed without "?" after the thanks
        ("perfecto, todavía hay cupos en el curso de verano", False),
        ("dale, y el certificado de estudios lo retiro en bedelía", False),
        ("gracias, tengo un problema con la inscripción", False),
        ("Listo, lo hice sin problema, mil gracias", True),  # "sin problema" is not a problem
        ("listo, gracias y buen finde", True),
    ],
)
def test_a_question_without_question_mark_after_thanks_is_not_a_closing(text, closing):
    assert classify(text).closing is closing, classify(text).reason


# ---------------------------------------------------------------- every clause must close (issue 22)
@pytest.mark.parametrize(
    "text",
    [
        "Gracias. Requiero que me sellen la planilla de prácticas.",
        "Listo, gracias. Me duplicaron el cobro del seminario.",
        "Perfecto!! Extravié la libreta y ocupo un duplicado.",
        "Ok, recibido. El campus no me abre desde la compu del laburo.",
        "Genial. Reenvíenme el acta porque la borré sin querer.",
        "Dale, gracias. Me urge la nota para presentarla en el trabajo.",
        "Mil gracias. El sistema me marca la cursada como abandonada.",
        "Gracias, ya me inscribí. Pero el aula asignada no existe.",
        "Excelente, gracias.\nNecesitaría también el certificado en inglés.",
        "Muchas gracias. Me podrían pasar el mail de la coordinadora",
    ],
)
def test_a_closing_shaped_request_is_drafted(text):
    verdict = classify(text)
    assert not verdict.closing, verdict.reason


@pytest.mark.parametrize(
    "text",
    [
        "Muchísimas gracias, ya pude sacar el turno.",
        "Perfecto, ya quedó cargado. Saludos!",
        "Okey, entendido. Un abrazo",
        "Gracias por la mano, ya está todo en orden 🙌",
        "Listo, ya descargué el comprobante. Gracias!",
        "Recibido, muchas gracias por la ayuda.",
    ],
)
def test_a_message_whose_every_clause_closes_is_a_closing(text):
    verdict = classify(text)
    assert verdict.closing, verdict.reason


def test_the_reason_names_the_clause_that_says_something():
    verdict = classify("Gracias, muy amables. Mándenme el recibo de nuevo.")
    assert not verdict.closing and "mandenme el recibo de nuevo" in verdict.reason


def test_clauses_split_sentences_and_commas_and_drop_placeholders():
    assert clauses("Gracias, [NOMBRE]. Ya lo subí!\n\n👍") == ["gracias", "ya lo subi", "👍"]
