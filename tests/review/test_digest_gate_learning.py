"""The digest reports the last gate retraining: adopted or not, past decisions that flip each way, and a reviewer
whose decisions the gate keeps disagreeing with."""

from __future__ import annotations

from sqlmodel import Session

from review.digest import build_digest, write_report
from tests.review.digest_week import DOCS, WEEK, build_week
from review.db import session_scope

REPORT = {
    "adopted": False,
    "reason": "worse on synthetic_heldout: 40 -> 61 errors of 900",
    "n_feedback": 130,
    "n_corrections": 41,
    "before": {"f1_in": 0.91, "f1_out": 0.9},
    "after": {"f1_in": 0.95, "f1_out": 0.94},
    "threshold": {"before": 0.343, "after": 0.343, "moved": False},
    "flips": {
        "in_to_out": [{"message_id": 12, "text": "¿Me resolvés la integral de Cálculo 2?", "staff_label": "out", "agrees_with_staff": True}],
        "out_to_in": [{"message_id": 15, "text": "necesito la constancia de inscripción", "staff_label": "in", "agrees_with_staff": True}, {"message_id": 16, "text": "otra", "staff_label": "in", "agrees_with_staff": True}],
    },
    "reviewers": {"ana": {"decisions": 100, "disagreements": 9, "flagged": False}, "mallory": {"decisions": 30, "disagreements": 29, "flagged": True}},
}


def test_digest_names_the_disagreeing_reviewer_and_the_flips(engine, tmp_path):
    with session_scope(engine) as session:
        build_week(session)
    with Session(engine) as session:
        digest = build_digest(session=session, week=WEEK, documents=DOCS, gate_retraining=REPORT)
    g = digest.as_dict()["gate_learning"]
    assert g["adopted"] is False and g["n_in_to_out"] == 1 and g["n_out_to_in"] == 2
    assert g["disagreeing_reviewers"] == [{"reviewer": "mallory", "disagreements": 29, "decisions": 30}]
    md, html = write_report(digest, tmp_path)
    text, page = md.read_text(encoding="utf-8"), html.read_text(encoding="utf-8")
    for out in (text, page):
        assert "discrepa seguido con las decisiones de" in out and "mallory" in out and "ana" not in out.split("discrepa")[1][:60]
        assert "no adoptado" in out and "#12" in out and "resolvés la integral" in out
    assert "de dentro a fuera 1, de fuera a dentro 2" in text and "0.910/0.900 → 0.950/0.940" in text


def test_without_a_retraining_the_digest_says_nothing_about_it(engine, tmp_path):
    with session_scope(engine) as session:
        build_week(session)
    with Session(engine) as session:
        digest = build_digest(session=session, week=WEEK, documents=DOCS)
    assert digest.gate_learning == {}
    md, _ = write_report(digest, tmp_path)
    assert "Último reentrenamiento" not in md.read_text(encoding="utf-8")


def test_a_memory_only_adoption_says_the_classifier_did_not_change(engine, tmp_path):
    with session_scope(engine) as session:
        build_week(session)
    report = {**REPORT, "adopted": True, "adopted_kind": "memory", "n_feedback": 4, "n_corrections": 1,
              "reason": "fewer than 30 decisions: the classifier is not retrained, the staff memory alone (the gate in use, unchanged, consults it first) is no worse"}
    with Session(engine) as session:
        digest = build_digest(session=session, week=WEEK, documents=DOCS, gate_retraining=report)
    assert digest.as_dict()["gate_learning"]["adopted_kind"] == "memory"
    md, html = write_report(digest, tmp_path)
    assert "adoptado (solo la memoria del equipo: el clasificador no cambia)" in md.read_text(encoding="utf-8")
    assert "adoptado (solo la memoria del equipo)" in html.read_text(encoding="utf-8")
