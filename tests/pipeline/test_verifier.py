"""The step verifier: entity, containment and novelty checks, and its quality on the labelled set."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.derivation import Step
from pipeline.verifier import StepVerifier, entities, new_entities

DATA = Path(__file__).parent / "data" / "verifier_steps.jsonl"
PREMISE = "La solicitud de revisión se presenta dentro de los tres días hábiles siguientes a la publicación de la nota, por correo a examenes@ingenieria.example.edu.uy."


def check(rule: str, premises: list[str], conclusion: str, question: str = "") -> list[str]:
    step = Step(id="s1", rule=rule, premises=[str(i + 1) for i in range(len(premises))], conclusion=conclusion)
    return StepVerifier().check(step, premises, question)


def test_entities_are_found():
    e = entities("Escribí a Bedelía (bedelia@x.edu.uy) o entrá a https://sige.example.edu.uy/. Cierra el viernes 22 de enero; son cinco exámenes.")
    assert e["email"] == {"bedelia@x.edu.uy"} and e["url"] == {"https://sige.example.edu.uy/"}
    assert {"22", "5"} <= e["number"] and {"viernes", "enero"} <= e["date"] and "bedelia" in e["name"]


def test_faithful_steps_are_not_flagged():
    assert check("Extract", [PREMISE], "La solicitud de revisión se presenta dentro de los tres días hábiles siguientes a la publicación de la nota.") == []
    assert check("Refine", [PREMISE], "Tenés tres días hábiles desde que se publica la nota; escribí a examenes@ingenieria.example.edu.uy.") == []


def test_new_email_url_number_and_name_are_flagged():
    flags = check("Refine", [PREMISE], "Tenés cinco días hábiles; escribí a revisiones@ingenieria.example.edu.uy o a la profesora Laura Benítez en https://x.example.com.")
    text = " ".join(flags)
    for needle in ("revisiones@ingenieria.example.edu.uy", "https://x.example.com", "«5»", "«laura»", "«benitez»"):
        assert needle in text


def test_entities_from_the_question_are_allowed_in_instantiate():
    premise = "Pueden solicitar la ICE quienes sumaron entre 20 y 24 puntos."
    assert check("Instantiate", [premise], "Con 22 puntos podés pedir la ICE.", "Quedé con 22 puntos en Física 2") == []
    assert check("Instantiate", [premise], "Con 22 puntos podés pedir la ICE.") != []


def test_refine_that_adds_a_claim_is_flagged():
    premise = "Cualquier estudiante con inscripción vigente en una carrera de grado de la Facultad puede pedir la reválida."
    assert check("Refine", [premise], "Con 5º año de biología aprobado alcanza para inscribirte y pedir la reválida.")


def test_concat_must_contain_every_part():
    a, b = "La pasantía vale 10 créditos.", "Se gestiona con la Unidad de Pasantías por correo."
    assert check("Concat", [a, b], f"{a} {b}") == []
    assert any("premisa 2" in f for f in check("Concat", [a, b], a))


def test_verify_stores_flags_on_the_steps_and_resolves_step_premises():
    steps = [
        Step("s1", "Extract", ["1"], "La solicitud de revisión se presenta dentro de los tres días hábiles."),
        Step("s2", "Refine", ["s1"], "Tenés diez días hábiles para pedir la revisión.", is_final=True),
        Step("s3", "NoInfo", [], "No hay información."),
    ]
    StepVerifier().verify(steps, [PREMISE], "¿hasta cuándo puedo pedir revisión?")
    assert steps[0].flags == [] and steps[2].flags == []
    assert any("«10»" in f for f in steps[1].flags)


def test_precision_and_recall_on_the_labelled_set():
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 60 and {r["rule"] for r in rows} >= {"Extract", "Refine", "Concat", "Instantiate", "Compose"}
    tp = fp = fn = 0
    for r in rows:
        flagged = bool(check(r["rule"], r["premises"], r["conclusion"], r["question"]))
        tp += flagged and not r["faithful"]
        fp += flagged and r["faithful"]
        fn += not flagged and not r["faithful"]
    assert tp / (tp + fp) >= 0.9 and tp / (tp + fn) >= 0.85


def test_new_entities_ignores_sentence_initial_capitals():
    assert new_entities("Sí. Podés pedirla.", "podés pedirla") == []
