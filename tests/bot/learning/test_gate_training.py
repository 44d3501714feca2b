"""Gate operations: train from the index, staleness, learning from staff decisions, evaluation, the CLI."""

from __future__ import annotations

import json

import pytest

from bot.learning import gate_retraining
from bot.learning.gate_retraining import train_with_feedback
from bot.learning.gate_training import TrainOptions, evaluate_gate, feedback_examples, train, train_gate_offline
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from classifiers.gate import Gate
from review import queue
from review.db import session_scope
from tests.review.factories import make_drafted

IN = ["¿Hasta cuándo me puedo inscribir a los exámenes?", "¿Qué becas hay para estudiantes del interior?", "¿Cómo pido una escolaridad?"]
OUT = ["¿Dónde queda la pizzería?", "escribime un poema sobre el mar", "¿Quién ganó el clásico de fútbol?"]


@pytest.fixture
def services(settings):
    svc = Services(settings)
    ingest_documents(svc)
    yield svc
    svc.close()


def test_train_stores_a_fresh_gate_that_services_use(services, settings):
    gate = train_gate_offline(services)
    assert (settings.paths.gate_dir / "gate.json").exists()
    assert gate.meta["generator"] == "offline" and gate.meta["corpus_hash"] and gate.meta["n_in"] > 50 and gate.meta["n_out"] > 400
    assert (settings.paths.gate_dir / "datasets").is_dir() and any((settings.paths.gate_dir / "datasets").glob("offline-*.jsonl"))
    services.close()  # the local index is single-process
    again = Services(settings)
    try:
        loaded = again.gate_or_none()
        assert loaded is not None and loaded.threshold == gate.threshold
    finally:
        again.close()


def test_options_override_settings(services):
    gate = train(services, TrainOptions(features="similarity+lexical", model="svm", balanced=True))
    assert (gate.model, gate.features, gate.meta["balanced"]) == ("svm", "similarity+lexical", True)
    assert gate.meta["n_in"] == gate.meta["n_out"]


def test_a_corpus_change_marks_the_gate_stale(services, settings, tmp_path):
    train_gate_offline(services)
    extra = tmp_path / "docs"
    extra.mkdir()
    (extra / "comedor.md").write_text("# Comedor universitario\nEl comedor abre de 11 a 15 horas y el menú cuesta 90 pesos.\n", encoding="utf-8")
    ingest_documents(services, [extra])
    services.close()
    fresh = Services(settings)
    try:
        assert isinstance(fresh.gate, Gate)  # still loadable…
        assert fresh.gate_or_none() is None  # …but not used for decisions
        assert evaluate_gate(fresh, IN, OUT)["stale"] is True
    finally:
        fresh.close()


def test_staff_decisions_become_examples_and_retraining_uses_them(services, monkeypatch):
    rejected_text = "¿Cuándo abre la inscripción al torneo de fútbol de la Facultad?"  # office-like words: the gate alone lets it in
    with session_scope(services.engine) as session:
        d1, _ = make_drafted(session, question=rejected_text)
        queue.reject(session=session, draft_id=d1.id, actor="ana", reason="out_of_domain")
        d2, _ = make_drafted(session, question="¿Cuándo cierra la inscripción a cursos?")
        queue.approve(session=session, draft_id=d2.id, actor="ana")
        d3, _ = make_drafted(session, question="¿Me pasan el horario de la cantina?", in_domain=False)
        d3.out_of_domain = True  # the gate's canned reply, approved by staff: they agree it is out of scope
        session.add(d3)
        session.flush()
        queue.approve(session=session, draft_id=d3.id, actor="ana")
        d4, _ = make_drafted(session, question="¿Cuánto cuesta la reválida?")
        queue.reject(session=session, draft_id=d4.id, actor="ana", reason="incorrect")  # says nothing about the domain
    labels = {e.text: e.label for e in feedback_examples(services)}
    assert labels == {rejected_text: 0, "¿Cuándo cierra la inscripción a cursos?": 1, "¿Me pasan el horario de la cantina?": 0}
    offline = train_gate_offline(services)
    before = offline.probabilities([rejected_text], services.embedder)[0]
    assert before >= offline.threshold
    kept = train_with_feedback(services, TrainOptions())
    # three decisions cannot show a gain out of fold (each is judged by a model that did not see it): below the minimum
    # number of decisions the classifier is not retrained, and the corrections act through the staff memory alone
    assert kept.meta["feedback_examples"] == 0 and kept.meta["staff_learning"]["adopted"], kept.meta["staff_learning"]
    assert "fewer than" in kept.meta["staff_learning"]["reason"] and len(kept.memory) == 3
    assert kept.probabilities([rejected_text], services.embedder, memory=False)[0] == pytest.approx(before)  # the classifier is the documents' one
    d = kept.decide(rejected_text, services.embedder)  # the rejected message itself: the memory decides, and says so
    assert not d.in_domain and d.remembered and d.remembered["label"] == 0
    lenient = gate_retraining._options(services)
    lenient.require_gain, lenient.min_decisions = (), 0
    # the learning is under test here, not adoption (tests/classifiers/test_retraining.py holds adoption to its rules):
    # on this small hashed-embedding fixture the retrained classifier may cost a few synthetic held-out errors
    lenient.tolerance = {"staff_decisions": 0.0, "synthetic_heldout": 0.02}
    lenient.protected_surely, lenient.max_protected_rise = (), {"staff_decisions": 0.02, "synthetic_heldout": 0.02}
    monkeypatch.setattr(gate_retraining, "_options", lambda _services: lenient)
    gate = train_with_feedback(services, TrainOptions())  # the retraining itself: the corrections are examples
    after = gate.probabilities([rejected_text], services.embedder, memory=False)[0]
    assert gate.meta["staff_learning"]["adopted"] and gate.meta["feedback_examples"] == 3
    assert after < before


def test_evaluate_reports_per_class_scores_and_plots(services, tmp_path):
    train_gate_offline(services)
    report = evaluate_gate(services, IN, OUT, plot=tmp_path / "pca.png")
    assert {"precision_in", "recall_in", "f1_in", "precision_out", "recall_out", "f1_out", "accuracy", "confusion", "n_in", "n_out"} <= set(report)
    assert (report["n_in"], report["n_out"]) == (3, 3) and sum(map(sum, report["confusion"])) == 6
    assert (tmp_path / "pca.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_train_and_eval_json(settings, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bot.cli import app

    monkeypatch.setenv("ORIENTA_EMBEDDING__BACKEND", "hashing")
    monkeypatch.setenv("ORIENTA_DATA_DIR", str(settings.paths.data_dir))
    runner = CliRunner()
    assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
    res = runner.invoke(app, ["gate", "train", "--offline", "--model", "knn", "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["model"] == "knn"
    ins, outs = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    ins.write_text("".join(json.dumps({"question": q}) + "\n" for q in IN), encoding="utf-8")
    outs.write_text("".join(json.dumps({"question": q}) + "\n" for q in OUT), encoding="utf-8")
    res = runner.invoke(app, ["gate", "eval", "--in-domain", str(ins), "--out-of-domain", str(outs), "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["n_in"] == 3 and report["n_out"] == 3 and 0.0 <= report["f1_in"] <= 1.0
    bad = runner.invoke(app, ["gate", "train", "--llm"])
    assert bad.exit_code != 0 and "ANTHROPIC_API_KEY" in bad.output
