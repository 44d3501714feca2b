"""The judge against the local Messages API server: valid, malformed and refused outputs, repeated runs."""

from __future__ import annotations

import json
import math

import pytest
from sqlmodel import Session, select

from pipeline.llm import AnthropicLLM
from review.db import init_db, make_engine, session_scope
from review.evaluation_models import CORRECTNESS, FAITHFULNESS, RELEVANCE, JudgeScore
from review.judge import Judge
from review.scoring import score_drafts
from tests.fake_batches import FakeBatchRunner
from tests.pipeline.claude_rules import assert_valid
from tests.review.digest_week import build_week



@pytest.fixture(params=["claude-haiku-5-5", "claude-haiku-4-5"])
def judge(request, anthropic_server):
    """The default judge model and an older one; every request either sends must be one the real API accepts."""
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model=request.param, effort="low", max_retries=0, timeout_s=10)
    yield Judge(llm=llm, prices={"input": 1.0, "output": 5.0}, retries=2)
    assert_valid(anthropic_server)


def structured(server, data) -> None:
    server.enqueue_text(json.dumps(data, ensure_ascii=False))


def always(data):
    return lambda req: json.dumps(data, ensure_ascii=False)


def _score(score, why="Coinciden los hechos."):
    return {"justificacion": why, "puntaje": score}


def test_valid_score_and_request_shape(judge, anthropic_server):
    structured(anthropic_server, _score(4, "Es verdadera pero omite el plazo."))
    v = judge.correctness(question="¿Cuándo cierran?", answer="El 10 de marzo.", reference="Cierran el 10 de marzo a las 18 h.")
    assert (v.status, v.score, v.justification, v.attempts) == ("scored", 4.0, "Es verdadera pero omite el plazo.", 1)
    assert v.cost_usd > 0
    body = anthropic_server.last_request.json
    assert "tool_choice" not in body and "temperature" not in body
    schema = body["output_config"]["format"]["schema"]
    assert list(schema["properties"]) == ["justificacion", "puntaje"] and schema["additionalProperties"] is False  # the justification comes first
    assert "contradice la referencia" in body["system"][0]["text"]  # the Spanish rubric
    assert "<referencia>\nCierran el 10 de marzo a las 18 h.\n</referencia>" in body["messages"][0]["content"]


def test_malformed_output_is_retried(judge, anthropic_server):
    anthropic_server.enqueue_text("Le pongo un 4.")  # no JSON
    structured(anthropic_server, {"justificacion": "x", "puntaje": 9})  # out of range (minimum/maximum are not enforced by the API)
    structured(anthropic_server, _score(5))
    v = judge.relevance(question="¿Cuándo cierran?", answer="El 10 de marzo.")
    assert (v.status, v.score, v.attempts) == ("scored", 5.0, 3)
    assert len(anthropic_server.message_requests) == 3


def test_never_parsed_is_not_scored_never_nan(judge, anthropic_server):
    for _ in range(3):  # schema-valid JSON (the range lives in the description) that the judge still cannot use
        anthropic_server.enqueue_text(json.dumps({"justificacion": "No sé.", "puntaje": 9}))
    v = judge.correctness(question="q", answer="a", reference="r")
    assert v.status == "not_scored" and v.score is None and v.error.startswith("unparseable")
    assert not any(isinstance(x, float) and math.isnan(x) for x in json.loads(json.dumps(v.as_dict())).values() if x is not None)


def test_refusal_and_api_errors_are_not_scored(judge, anthropic_server):
    for _ in range(3):
        anthropic_server.enqueue_text("No puedo ayudar con eso.", stop_reason="refusal")
    v = judge.correctness(question="q", answer="a", reference="r")
    assert v.status == "not_scored" and v.error.startswith("refused") and v.attempts == 3
    for _ in range(3):
        anthropic_server.enqueue_error(529, "overloaded_error", "Overloaded")
    v = judge.relevance(question="q", answer="a")
    assert v.status == "not_scored" and "Overloaded" in v.error


def test_faithfulness_counts_supported_claims(judge, anthropic_server):
    claims = [{"texto": "cierra el 10 de marzo", "respaldada": True}, {"texto": "cuesta 100 Q", "respaldada": False}]
    structured(anthropic_server, {"justificacion": "Una de dos.", "afirmaciones": claims})
    v = judge.faithfulness(answer="Cierra el 10 de marzo y cuesta 100 Q.", chunks=["La inscripción cierra el 10 de marzo."])
    assert (v.status, v.score, len(v.claims)) == ("scored", 0.5, 2)
    assert "[1] La inscripción cierra el 10 de marzo." in anthropic_server.last_request.json["messages"][0]["content"]


def test_repeated_runs_report_median_and_spread(anthropic_server):
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", max_retries=0)
    judge = Judge(llm=llm, runs=3, retries=0)
    for s in (3, 5, 4):
        structured(anthropic_server, _score(s))
    v = judge.correctness(question="q", answer="a", reference="r")
    assert (v.score, v.runs, v.spread) == (4.0, [3.0, 5.0, 4.0], 2.0)


def test_scoring_a_week_is_stored_once(tmp_path, judge, anthropic_server):
    engine = make_engine(f"sqlite:///{tmp_path / 'j.db'}")
    init_db(engine)
    with session_scope(engine) as session:
        drafts = build_week(session)
        for s in session.exec(select(JudgeScore)).all():
            session.delete(s)
    anthropic_server.set_responder(always(_score(4)))
    with session_scope(engine) as session:
        items = [(drafts["small"], _decision(session, drafts["small"].message_id), "¿Cuándo cierran?")]
        assert score_drafts(session=session, judge=judge, items=items, chunk_text=None) == 2  # correctness + relevance
    with session_scope(engine) as session:
        items = [(drafts["small"], _decision(session, drafts["small"].message_id), "¿Cuándo cierran?")]
        assert score_drafts(session=session, judge=judge, items=items) == 0  # cached
    with Session(engine) as session:
        kinds = {s.kind: s for s in session.exec(select(JudgeScore)).all()}
    assert set(kinds) == {CORRECTNESS, RELEVANCE} and FAITHFULNESS not in kinds
    assert kinds[CORRECTNESS].score == 4 and kinds[CORRECTNESS].reference_hash
    sent = anthropic_server.message_requests[0].json["messages"][0]["content"]
    assert "Inscripciones hasta el 12 de marzo." in sent  # the reference is the edited text staff sent


def _decision(session, message_id):
    from review.queue import decision_for

    return decision_for(session=session, message_id=message_id)


def test_digest_with_a_judge_scores_the_week(tmp_path, judge, anthropic_server):
    from datetime import datetime, timezone

    from review.digest import build_digest
    from tests.review.digest_week import WEEK

    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    init_db(engine)
    with session_scope(engine) as session:
        build_week(session)
        for s in session.exec(select(JudgeScore)).all():
            session.delete(s)
    anthropic_server.set_responder(always(_score(4)))
    with session_scope(engine) as session:
        f = build_digest(session=session, week=WEEK, judge=judge, now=datetime(2026, 12, 1, tzinfo=timezone.utc)).as_dict()
    # correctness needs a reference: approved, two edits, and the incorrect rejection with its comment
    assert f["judge"]["scored"] == 4 and f["judge"]["distribution"]["4"] == 4 and f["acceptable_rate"] == 1.0
    assert f["judge"]["relevance"] == 4.0  # every draft but the canned out-of-domain one
    assert len(anthropic_server.message_requests) == 4 + 7
    assert f["agreement"]["n"] == 4 and f["kappa"] == 0.0  # a judge that always says 4 carries no information
    assert f["llm"]["judge_cost_usd"] > 0


def test_truncated_judgement_is_retried_not_scored(judge, anthropic_server):
    anthropic_server.enqueue_text('{"justificacion": "Coinc', stop_reason="max_tokens")
    structured(anthropic_server, _score(3))
    v = judge.relevance(question="q", answer="a")
    assert (v.status, v.score, v.attempts) == ("scored", 3.0, 2)


def test_many_judgements_go_through_one_batch_at_batch_prices(anthropic_server):
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", effort="low", max_retries=0)
    runner = FakeBatchRunner(client=llm.client)
    prices = {"input": 0.10, "output": 0.50}
    judge = Judge(llm=llm, prices=prices, batch_prices={"input": 0.05, "output": 0.25}, retries=1, batch=runner, batch_min=3)
    anthropic_server.set_responder(always(_score(4)))
    calls = [judge.relevance_call(question=f"q{i}", answer=f"a{i}") for i in range(5)]
    assert judge.prefetch(calls) == 5
    (job, items), = runner.jobs
    assert job.startswith("judge-") and len({i.custom_id for i in items}) == 5
    assert all(i.params["output_config"]["format"]["schema"]["additionalProperties"] is False and i.params["model"] == "claude-haiku-5-5" for i in items)
    sent = len(anthropic_server.message_requests)
    verdicts = [judge.judge(c) for c in calls]
    assert len(anthropic_server.message_requests) == sent  # answered from the batch, no synchronous call
    assert all(v.score == 4.0 for v in verdicts)
    sync = Judge(llm=llm, prices=prices).judge(calls[0])
    assert verdicts[0].cost_usd == pytest.approx(sync.cost_usd / 2)  # half price
    assert_valid(anthropic_server)


def test_batch_items_that_fail_are_judged_synchronously(anthropic_server):
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", max_retries=0)
    calls = [Judge.relevance_call(question=f"q{i}", answer="a") for i in range(4)]
    runner = FakeBatchRunner(client=llm.client, fail={f"{calls[0].key}-0"})
    judge = Judge(llm=llm, batch=runner, batch_min=2)
    anthropic_server.set_responder(always(_score(2)))
    assert judge.prefetch(calls) == 3
    sent = len(anthropic_server.message_requests)
    assert judge.judge(calls[0]).score == 2.0 and len(anthropic_server.message_requests) == sent + 1


def test_few_judgements_stay_synchronous(anthropic_server):
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", max_retries=0)
    runner = FakeBatchRunner(client=llm.client)
    judge = Judge(llm=llm, batch=runner, batch_min=20)
    assert judge.prefetch([judge.relevance_call(question="q", answer="a")]) == 0 and runner.jobs == []


def test_a_weeks_scoring_is_batched_when_large(tmp_path, anthropic_server):
    llm = AnthropicLLM(api_key="test", base_url=anthropic_server.url, model="claude-haiku-5-5", max_retries=0)
    runner = FakeBatchRunner(client=llm.client)
    judge = Judge(llm=llm, batch=runner, batch_min=2)
    engine = make_engine(f"sqlite:///{tmp_path / 'b.db'}")
    init_db(engine)
    with session_scope(engine) as session:
        drafts = build_week(session)
        for s in session.exec(select(JudgeScore)).all():
            session.delete(s)
    anthropic_server.set_responder(always(_score(4)))
    with session_scope(engine) as session:
        items = [(d, _decision(session, d.message_id), "¿pregunta?") for d in drafts.values()]
        n = score_drafts(session=session, judge=judge, items=items)
    batched = len(runner.jobs[0][1])
    assert n > 2 and len(runner.jobs) == 1 and 0 < batched <= n  # identical judgements (same question and draft) are asked once
    assert len(anthropic_server.message_requests) == batched  # nothing judged synchronously
