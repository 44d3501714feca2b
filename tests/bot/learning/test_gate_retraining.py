"""Weekly retraining from staff decisions: corrections weigh more, held-out figures before/after, adopted only if not worse."""

from __future__ import annotations

import json

import pytest

import numpy as np

from bot.learning.gate_retraining import figures_moved, retrain_from_feedback, train_with_feedback
from bot.learning.gate_training import TrainOptions, train_gate_offline
from bot.ops.documents import ingest_documents
from bot.loop.scheduler import RETRAIN_JOB_ID, retrain_gate_weekly, start_scheduler
from bot.wiring.services import Services
from review import queue
from review.db import session_scope
from tests.review.factories import make_drafted

OUTSIDE = [
    "¿Qué piden para inscribirse a exámenes en la Facultad de Derecho?", "¿Cuánto cuesta la matrícula de la Universidad Católica?",
    "redactame la introducción de mi proyecto de fin de carrera", "¿Cuánto gana un ingeniero civil recién recibido?",
    "hazme en Python el obligatorio de Programación 1", "¿Qué opinás de la inteligencia artificial para estudiar?",
    "¿Las becas de la Universidad de Montevideo son para todos?", "¿Me resolvés este límite de Cálculo 1?",
]
INSIDE = ["¿Hasta cuándo me inscribo a los exámenes de febrero?", "¿Qué becas hay para estudiantes del interior?", "¿Cómo pido una escolaridad en Bedelía?", "¿Dónde queda el salón 214?"]


@pytest.fixture
def services(settings):
    svc = Services(settings)
    ingest_documents(svc)
    yield svc
    svc.close()


def _decide(services):
    with session_scope(services.engine) as session:
        for text in OUTSIDE:  # the gate let these in; staff say "fuera de dominio"
            d, _ = make_drafted(session, question=text, in_domain=True, score=0.9)
            queue.reject(session=session, draft_id=d.id, actor="ana", reason="out_of_domain")
        for i, text in enumerate(INSIDE):  # approvals; the last one the gate doubted
            d, _ = make_drafted(session, question=text, in_domain=True, score=0.95 if i < 3 else 0.4)
            queue.approve(session=session, draft_id=d.id, actor="ana")


def test_gate_train_include_feedback_learns_from_staff_as_retrain_does(services, settings):
    """One code path: `gate train --include-feedback` trains from the documents, then learns from staff exactly as
    `gate retrain` does (weighted corrections, staff memory, the adoption decision), not by repeating corrections."""
    _decide(services)
    via_train = train_with_feedback(services, TrainOptions())
    report = json.loads((settings.paths.gate_dir / "retraining.json").read_text(encoding="utf-8"))
    assert report["n_feedback"] == len(OUTSIDE) + len(INSIDE) and report["n_corrections"] == len(OUTSIDE) + 1
    assert via_train.meta["staff_learning"]["adopted"] == report["adopted"] and via_train.meta["staff_learning"]["reason"] == report["reason"]
    train_gate_offline(services)
    via_retrain = retrain_from_feedback(services)
    assert via_retrain.adopted == report["adopted"] and via_retrain.reason == report["reason"]
    assert services.gate.threshold == pytest.approx(via_train.threshold)
    assert np.allclose(services.gate.coef, via_train.coef)
    if report["adopted"]:
        assert len(via_train.memory) == report["n_feedback"] and via_train.meta["retraining"]["n_feedback"] == report["n_feedback"]
        assert not via_train.decide(OUTSIDE[0], services.embedder).in_domain


def test_retraining_reports_the_held_out_movement_and_adopts_a_gate_that_is_not_worse(services, settings):
    train_gate_offline(services)
    _decide(services)
    report = retrain_from_feedback(services)
    # every staff decision is judged out of fold (cross-validation), not a fixed quarter of them
    assert report.n_feedback == len(OUTSIDE) + len(INSIDE) and report.n_heldout == report.n_feedback
    assert {"f1_in", "f1_out", "confusion"} <= set(report.after) and report.before and report.synthetic_after
    for name in ("staff_decisions", "synthetic_heldout"):
        c = report.comparison[name]
        assert c["interval"][0] <= c["error_rate_change"] <= c["interval"][1]
    assert report.threshold["moved"] or report.threshold["after"] == report.threshold["before"]
    assert set(report.flips) >= {"in_to_out", "out_to_in"} and "->" in figures_moved(report)
    assert json.loads(json.dumps(report.as_dict()))["comparison"]  # what `gate retrain --json` prints: plain JSON
    assert json.loads((settings.paths.gate_dir / "retraining.json").read_text(encoding="utf-8"))["reason"] == report.reason  # for the digest
    stored = json.loads((settings.paths.gate_dir / "gate.json").read_text(encoding="utf-8"))
    printed = json.loads(json.dumps(report.as_dict()))
    assert printed["min_decisions"] == 30 and {"staff_decided", "staff_broken", "synthetic_broken"} <= set(printed["memory"]["reach_out_of_fold"][0])
    if report.n_feedback < report.min_decisions:  # too few to retrain the classifier: only the memory can be adopted, and the report says so
        assert printed["adopted_kind"] in ("memory", "") and (not report.adopted or "fewer than 30 decisions" in report.reason)
    if report.adopted:
        assert stored["retraining"]["n_feedback"] == report.n_feedback and services.gate.meta["retraining"]["adopted"]
        assert len(services.gate.memory) == report.n_feedback
        d = services.gate.decide(OUTSIDE[1], services.embedder)  # a message staff marked out of domain: the memory decides
        assert not d.in_domain and any("que el equipo marcó fuera de dominio" in r for r in d.reasons)
    else:
        assert "retraining" not in stored and ("worse" in report.reason or "turns more" in report.reason or "no gain" in report.reason)


def test_a_retrain_on_wrong_labels_is_not_adopted_and_the_gate_stays(services, settings):
    gate = train_gate_offline(services)
    with session_scope(services.engine) as session:  # every office question rejected as out of domain
        for text in INSIDE:
            d, _ = make_drafted(session, question=text, in_domain=True, score=0.9)
            queue.reject(session=session, draft_id=d.id, actor="eva", reason="out_of_domain")
        for text in OUTSIDE:
            d, _ = make_drafted(session, question=text, in_domain=False, score=0.1)
            queue.approve(session=session, draft_id=d.id, actor="eva")
    before = (settings.paths.gate_dir / "gate.json").read_text(encoding="utf-8")
    report = retrain_from_feedback(services)
    # eva is the only reviewer and the gate keeps disagreeing with her: she is set aside and nothing is learnt (or, had she
    # not been flagged, the candidate learnt from her is refused as worse)
    assert not report.adopted and ("keeps disagreeing" in report.reason or "worse" in report.reason or "turns more" in report.reason or "no gain" in report.reason), report.reason
    assert (settings.paths.gate_dir / "gate.json").read_text(encoding="utf-8") == before and services.gate.threshold == gate.threshold


def test_weekly_job_skips_without_a_gate_or_new_decisions_and_is_scheduled(services, settings):
    assert retrain_gate_weekly(services) is None  # no trained gate: nothing to retrain
    train_gate_offline(services)
    _decide(services)
    first = retrain_gate_weekly(services)
    assert first is not None and first["n_feedback"] == len(OUTSIDE) + len(INSIDE)
    if first["adopted"]:
        assert retrain_gate_weekly(services) is None  # nothing new since
    scheduler = start_scheduler(services, deliver=lambda *a: None, catch_up=False)
    try:
        job = scheduler.get_job(RETRAIN_JOB_ID)
        assert job is not None and job.next_run_time.hour == 3
    finally:
        scheduler.shutdown(wait=False)


def test_a_message_judged_by_the_gate_is_not_embedded_again_when_the_gate_learns_from_its_decision(services, monkeypatch):
    from bot.learning.gate_training import CachedQueries
    from bot.loop.drafting import draft_message
    from classifiers.gate import message_segments
    from review.models import InboundMessageCreate

    train_gate_offline(services)
    text = "Hola, buenas tardes. ¿Hasta cuándo me inscribo a los exámenes de febrero? Gracias"
    with session_scope(services.engine) as session:
        message, _ = queue.store_inbound(session=session, data=InboundMessageCreate(channel="email", source_key="t:1", sender="e@x.example", subject="consulta", cleaned_text=text, redacted_text=text))
        draft_message(services, session, message)
    embedded: list[str] = []
    inner = services.embedder.embed_queries
    monkeypatch.setattr(services.embedder, "embed_queries", lambda texts: embedded.extend(texts) or inner(texts))
    segments = message_segments([text])[0]
    assert len(segments) > 1  # the whole text and its question
    vecs = CachedQueries(services).embed_queries(segments)  # what retraining asks for this message
    assert embedded == [] and vecs.shape == (len(segments), services.embedder.dim)  # all from the gate step's cache
    CachedQueries(services).embed_queries(segments + ["¿Cuánto cuesta la reválida de un curso?"])
    assert embedded == ["¿Cuánto cuesta la reválida de un curso?"]  # only a text never seen is embedded
