"""Redaction: typed placeholders for cédula (check digit), DNI/NIE, phones, e-mails and student numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.redaction import cedula_check_digit, redact, valid_cedula, valid_dni

EXAMPLES = [json.loads(line) for line in (Path(__file__).parent / "data" / "redaction_examples.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e["text"][:40])
def test_every_personal_item_is_replaced_by_its_type(example):
    result = redact(example["text"])
    for kind, values in example["items"].items():
        for value in values:
            assert value not in result.text
        assert result.counts.get(kind, 0) == len(values), result
    assert sum(result.counts.values()) == sum(len(v) for v in example["items"].values()), result
    if not example["items"]:
        assert result.text == example["text"]


def test_placeholders_keep_the_sentence_readable():
    text = "Soy Lucía, cédula 4.567.890-5, número de estudiante 123456. Mi correo es lu@example.org."
    assert redact(text).text == "Soy [NOMBRE], cédula [CEDULA], número de estudiante [NUM_ESTUDIANTE]. Mi correo es [EMAIL]."


def test_cedula_check_digit():
    assert cedula_check_digit("4567890") == 5
    assert valid_cedula("4.567.890-5") and not valid_cedula("4.567.890-4")


def test_bare_number_is_a_cedula_only_with_a_valid_check_digit():
    assert redact("mi número es 12345672").text == "mi número es [CEDULA]"
    assert redact("el código es 12345670").text == "el código es 12345670"


def test_dni_control_letter():
    assert valid_dni("12345678Z") and valid_dni("X1234567L") and not valid_dni("12345678A")
    assert redact("dni 12345678a").text == "dni 12345678a"  # lower-case letter: only when the control letter matches


def test_strip_placeholders_leaves_only_the_words():
    from pipeline.redaction import redact, strip_placeholders

    red = redact("Soy Ana, cédula 4.567.890-5, celular 099 123 456: ¿puedo pedir inscripción tardía?")
    assert "[CEDULA]" in red.text and "[TELEFONO]" in red.text
    stripped = strip_placeholders(red.text)
    assert "[" not in stripped and "¿puedo pedir inscripción tardía?" in stripped
