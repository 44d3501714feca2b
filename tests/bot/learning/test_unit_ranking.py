"""Training the unit ranker from the office's index and approved answers: adopted only when it beats the hand score on held-out questions."""

from __future__ import annotations

from bot.learning.unit_ranking import approved_questions, load_ranker, ranker_path, train_unit_ranker
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from review.answer_models import CuratedAnswer
from review.db import session_scope


def test_training_reports_held_out_precision_and_adopts_only_a_better_model(settings):
    services = Services(settings)
    ingest_documents(services)
    with session_scope(services.engine) as session:
        session.add(CuratedAnswer(question="¿Cuánto paga la Beca de Apoyo Económico?", text="Paga $ 8.500 por mes durante diez meses.", approved_by="ana"))
        session.add(CuratedAnswer(question="¿Se usa todavía?", text="Sí.", approved_by="ana", state="retired"))
    assert [x.question for x in approved_questions(services)] == ["¿Cuánto paga la Beca de Apoyo Económico?"]  # active ones only
    report = train_unit_ranker(services, per_document=8)
    assert report["sources"]["synthetic"] > 0 and report["sources"]["approved"] == 1
    assert 0.0 <= report["precision_at_1_hand"] <= 1.0 and 0.0 <= report["precision_at_1_learned"] <= 1.0
    assert report["real_held_out_counted"] <= 1 and not report["adopted"]  # one approved answer cannot show a ranker is better
    assert report["reason"] == "pocas respuestas aprobadas para medirlo"
    assert ranker_path(services).exists() == report["adopted"]
    assert (load_ranker(services) is not None) == report["adopted"]
    assert (services.generator().ranker is not None) == report["adopted"]  # the drafter uses what was adopted, at once
    services.close()
