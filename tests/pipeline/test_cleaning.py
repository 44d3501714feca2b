"""Cleaning: quoted threads (Spanish/English/Outlook/mobile), signatures, greetings and closings go; the question stays."""

from __future__ import annotations

import pytest

from pipeline.cleaning import clean_text

Q = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"

CASES = {
    "gmail_es_quote": f"Hola,\n\n{Q}\n\nGracias!\nJuan\n\nEl lun, 16 nov 2026 a las 10:02, Bedelía <bedelia@x.edu.uy> escribió:\n> Hola Juan:\n> La inscripción es en enero.\n",
    "gmail_es_quote_wrapped": f"{Q}\n\nEl lun, 16 nov 2026 a las 10:02, Bedelía de la Facultad de Ingeniería <bedelia@x.edu.uy>\nescribió:\n> texto citado\n",
    "english_quote": f"Hi,\n\n{Q}\n\nThanks,\nJohn\n\nOn Mon, Nov 16, 2026 at 10:02 AM Bedelia <bedelia@x.edu.uy> wrote:\n> Hello John\n",
    "outlook_es_block": f"Buenos días:\n\n{Q}\n\nSaludos cordiales,\nMaría Gómez\n\n________________________________\nDe: Bedelía <bedelia@x.edu.uy>\nEnviado: lunes, 16 de noviembre de 2026 10:02\nPara: María Gómez <maria@x.com>\nAsunto: Inscripciones\n\nHola María, la inscripción...\n",
    "outlook_en_block": f"{Q}\n\nFrom: Bedelia <bedelia@x.edu.uy>\nSent: Monday, November 16, 2026 10:02 AM\nTo: Maria\nSubject: RE: Inscripciones\n\nOld text\n",
    "outlook_original_message": f"{Q}\n\n-----Mensaje original-----\nDe: Bedelía\nEnviado el: lunes\nPara: Juan\n\nviejo\n",
    "iphone_es": f"{Q}\n\nEnviado desde mi iPhone\n\n> El 16 nov 2026, a las 10:02, Bedelía <bedelia@x.edu.uy> escribió:\n> \n> Hola\n",
    "android_outlook_signature": f"{Q}\n\nObtener Outlook para Android\n",
    "bottom_posted": f"El lun, 16 nov 2026 a las 10:02, Bedelía <b@x.edu.uy> escribió:\n> ¿Algo más?\n\n{Q}\n",
    "interleaved_quote_marks": f">> muy viejo\n> viejo\n{Q}\n",
    "dash_signature": f"Buenas tardes\n\n{Q}\n\n-- \nJuan Pérez\nEstudiante de Ingeniería Civil\nTel 099 123 456\n",
    "closing_and_name": f"Hola, ¿qué tal?\n\n{Q}\n\nMuchas gracias,\nCamila",
    "besos": f"Hola!\n\n{Q}\n\nBesos,\nMica",
    "trailing_name_only": f"Buenas tardes\n\n{Q}\n\nDiego",
    "inline_greeting": f"hola, {Q}",
    "inline_buenas": f"buenas! {Q}",
    "che": f"che, {Q}",
    "estimados": f"Estimados:\n\n{Q}\n\nQuedo a la espera de su respuesta.\nAtentamente,\nIng. Pedro Rodríguez",
    "french_quote": f"{Q}\n\nLe lun. 16 nov. 2026 à 10:02, Bedelía <b@x.edu.uy> a écrit :\n> Bonjour\n",
    "crlf": f"Hola\r\n\r\n{Q}\r\n\r\nSaludos\r\nAna\r\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_question_survives_and_boilerplate_goes(name):
    assert clean_text(CASES[name]) == Q


def test_forwarded_message_without_own_text_keeps_the_forwarded_question():
    text = f"---------- Forwarded message ---------\nDe: Ana <ana@x.com>\nDate: lun, 16 nov 2026\nSubject: consulta\nTo: <consultas@x.edu.uy>\n\n{Q}\n"
    assert clean_text(text) == Q


def test_forwarded_message_with_own_text_keeps_only_that():
    text = f"{Q}\n\n---------- Forwarded message ---------\nDe: Ana <ana@x.com>\n\nOtro texto\n"
    assert clean_text(text) == Q


def test_multiparagraph_question_is_kept_intact():
    text = "Hola\n\nCursé Física 1 en otra universidad.\n\n¿Cómo la revalido? ¿Cuánto sale?\n\nGracias\nAna"
    assert clean_text(text) == "Cursé Física 1 en otra universidad.\n\n¿Cómo la revalido? ¿Cuánto sale?"


def test_greeting_only_text_is_not_emptied():
    assert clean_text("holaaa, ¿cómo andan? 👋") == "holaaa, ¿cómo andan? 👋"


def test_a_question_in_the_last_line_is_not_taken_for_a_name():
    text = "Tengo una duda.\n\n¿Cuándo abre Bedelía?"
    assert clean_text(text) == text


def test_empty_text_stays_empty():
    assert clean_text("  \n\n ") == ""


# ---------------------------------------------------------------- cleaning never removes a line that says something (issue 22)
@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Gracias\nMe falta el comprobante del depósito para el lunes", "Me falta el comprobante del depósito para el lunes"),
        ("Muchas gracias\n\nEl formulario de reincorporación da error al enviar.\n\nSaludos", "El formulario de reincorporación da error al enviar."),
        ("Gracias. Requiero la constancia de materias aprobadas.", "Requiero la constancia de materias aprobadas."),
        ("Saludos\nPerdí el recibo y necesito otro", "Perdí el recibo y necesito otro"),
    ],
)
def test_a_closing_formula_followed_by_a_sentence_is_not_a_signature(text, kept):
    assert kept in clean_text(text)


def test_a_closing_at_the_end_with_a_signature_block_is_still_stripped():
    text = "¿Dónde retiro el diploma?\n\nMuchas gracias,\nCamila Ferreyra\nTécnica en Laboratorio\nLegajo 20231877"
    assert clean_text(text) == "¿Dónde retiro el diploma?"


@pytest.mark.parametrize("text", ["Muchas gracias!\n\nRodrigo", "Gracias por todo.\n--\nValentina Ruiz\nAbogacía", "Saludos cordiales,\nMartín"])
def test_a_message_that_is_only_thanks_keeps_its_words(text):
    cleaned = clean_text(text)
    assert cleaned and ("gracias" in cleaned.lower() or "saludos" in cleaned.lower())
    assert "Ruiz" not in cleaned and "Abogacía" not in cleaned  # the signature block still goes
