"""Redaction for a Guatemalan office (issue 14): DPI, carné, names, addresses, IBAN, phones, obfuscated e-mail, health data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.redaction import dpi_check_digit, redact, valid_dpi, valid_iban
from pipeline.redaction_eval import fiusac_false_positives, leaked

REPO = Path(__file__).resolve().parents[2]
CASES = [
    json.loads(line)
    for name in ("redaction_cases.jsonl", "redaction_holdout_gt.jsonl")
    for line in (Path(__file__).parent / "data" / name).read_text(encoding="utf-8").splitlines()
    if line.strip()
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["text"][:48])
def test_each_case_leaves_no_personal_part_and_no_extra_placeholder(case):
    result = redact(case["text"], names=case.get("names", []))
    for kind, values in case["items"].items():
        for value in values:
            assert not leaked(value, kind, result.text), (value, result.text)
        assert result.counts.get(kind, 0) == len(values), result
    assert sum(result.counts.values()) == sum(len(v) for v in case["items"].values()), result
    if not case["items"]:
        assert result.text == case["text"]


def test_the_set_has_at_least_100_cases_and_covers_every_new_type():
    kinds = {k for c in CASES for k in c["items"]}
    assert len(CASES) >= 100
    assert {"DPI", "NUM_ESTUDIANTE", "NOMBRE", "DIRECCION", "IBAN", "TELEFONO", "EMAIL", "SALUD"} <= kinds


def test_dpi_check_digit_and_place_code():
    assert dpi_check_digit("19834441") == 4 and valid_dpi("1983 44414 2215")
    assert not valid_dpi("1983 44413 2215")  # wrong check digit
    assert not valid_dpi("1983 44414 2399")  # department 23 does not exist
    assert redact("el número 1983444132215 del expediente").text == "el número 1983444132215 del expediente"


def test_iban_mod97_in_compact_and_spaced_form():
    assert valid_iban("GT82TRAJ01020000001210029690") and valid_iban("GT82 TRAJ 0102 0000 0012 1002 9690")
    assert not valid_iban("GT83TRAJ01020000001210029690")


def test_a_labelled_student_number_leaves_no_digits_behind():
    assert redact("carné 2019-04567").text == "carné [NUM_ESTUDIANTE]"


def test_the_code_of_a_procedure_is_not_a_cedula():
    text = "código 1023456-7 del trámite"
    assert redact(text).text == text


def test_the_sender_name_is_redacted_wherever_it_reappears():
    red = redact("Gracias por todo. Att. Fernanda\n\nFernanda Cifuentes, Civil", names=["Fernanda Cifuentes"])
    assert "Fernanda" not in red.text and "Cifuentes" not in red.text and red.counts["NOMBRE"] >= 2


@pytest.mark.skipif(not (REPO.parent / "shared" / "corpora" / "fiusac" / "text").is_dir(), reason="FIUSAC corpus not available at ../shared")
def test_course_codes_and_dates_of_the_fiusac_documents_are_left_alone():
    found = fiusac_false_positives(REPO.parent / "shared" / "corpora" / "fiusac" / "text")
    assert found["snippets"] > 100 and found["changed"] == 0, found["examples"]
