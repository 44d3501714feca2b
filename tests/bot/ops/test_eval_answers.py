"""`orienta eval answers`: a grid over the sample office, cached and resumable, offline measures and the judge."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from bot.ops.answer_eval import Config, answer_body, evaluate_answers, summarise
from bot.cli import app
from bot.ops.documents import ingest_documents
from bot.wiring.services import Services
from review.evaluation_models import AnswerEvalCache

QA = [
    {"question": "¿Cuánto paga por mes la Beca de Apoyo Económico?", "answer": "La Beca de Apoyo Económico paga $ 8.500 por mes durante diez meses.", "doc": "becas"},
    {"question": "¿Hasta cuándo puedo pedir una beca nueva en 2027?", "answer": "Las nuevas solicitudes van del 1 al 28 de febrero de 2027.", "doc": "becas"},
    {"question": "¿Cuál es el horario del gimnasio municipal?", "answer": "No tenemos información sobre eso.", "doc": None},
]


@pytest.fixture
def qa_file(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in QA), encoding="utf-8")
    return path


def test_answer_body_strips_the_frame():
    text = "Hola:\n\nSegún la documentación:\n- paga $ 8.500\n\nReferencias:\n- Becas: https://x\n\nSaludos cordiales,\nOrientación Estudiantil — Facultad de Ingeniería"
    assert answer_body(text) == "Según la documentación:\n- paga $ 8.500"


def test_grid_offline_cached_and_resumable(settings):
    services = Services(settings)
    ingest_documents(services)
    configs = [Config("rag", 3, settings.retrieval.chunking), Config("derivation", 3, settings.retrieval.chunking)]
    first = evaluate_answers(services, QA, configs)
    # offline both methods run the same extractive engine, so the second configuration reuses the first's answers
    assert (first["computed"], first["cached"]) == (3, 3) and first["note"]
    rows = {r["method"]: r for r in first["configs"]}
    for r in rows.values():
        assert r["ran"] == ["extractive (sin LLM)"] and r["judged"] is False and r["acceptable_rate"] is None
        assert r["n"] == 3 and 0 < r["answered_rate"] <= 1 and r["doc_hit_rate"] == 1.0
        assert r["total"] == pytest.approx(r["correctness"] * r["answered_rate"])
    assert rows["rag"]["token_f1"] == rows["derivation"]["token_f1"]  # offline both run the same engine
    again = evaluate_answers(services, QA, configs)
    assert (again["computed"], again["cached"]) == (0, 6) and again["configs"] == first["configs"]
    # an interrupted run resumes: drop two cached answers, only those are recomputed
    with Session(services.engine) as session:
        for row in session.exec(select(AnswerEvalCache).limit(2)).all():
            session.delete(row)
        session.commit()
    resumed = evaluate_answers(services, QA, configs)
    assert (resumed["computed"], resumed["cached"]) == (2, 4)
    services.close()


def test_a_new_chunking_is_indexed_in_its_own_collection(settings):
    services = Services(settings)
    ingest_documents(services)
    other = "fixed" if settings.retrieval.chunking != "fixed" else "sentence"
    report = evaluate_answers(services, QA[:1], [Config("rag", 2, other)])
    assert report["computed"] == 1 and report["configs"][0]["chunking"] == other
    services.close()


def test_summary_with_judge_verdicts():
    def res(answered, score, faith, status="scored"):
        v = {"status": status, "score": score if status == "scored" else None, "spread": 0.0}
        return {"answered": answered, "ran": "rag (claude)", "latency_ms": 10.0, "cost_usd": 0.01, "doc_hit": True, "token_f1": 0.5, "edit_distance": 0.5, "grounding": 1.0, "judge": {"correctness": v, "faithfulness": {"status": "scored", "score": faith, "spread": 0.0}}}

    rows = [res(True, 5, 1.0), res(True, 2, 0.5), res(False, 3, 1.0), res(True, None, 1.0, status="not_scored")]
    s = summarise(Config("rag", 5, "structure"), rows, judged=True)
    assert s["answered_rate"] == 0.75 and s["not_scored"] == 1
    assert s["distribution"] == {"1": 0, "2": 1, "3": 1, "4": 0, "5": 1}
    assert s["acceptable_rate"] == pytest.approx(2 / 3)  # 5 and 3 of the three scored
    assert s["correctness"] == 0.5  # among answered and scored: 5 yes, 2 no
    assert s["total"] == pytest.approx(0.5 * 0.75)
    assert s["faithfulness"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)
    assert s["cost_usd"] == 0.04


def test_cli_json_and_chart(cli_env, tmp_path, monkeypatch, qa_file):
    runner = CliRunner()
    assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
    result = runner.invoke(app, ["eval", "answers", "--qa", str(qa_file), "--method", "rag,derivation", "--k", "2,4", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [c["label"].rsplit(" ", 1)[0] for c in report["configs"]] == ["rag k=2", "rag k=4", "derivation k=2", "derivation k=4"]
    assert (report["computed"], report["cached"]) == (6, 6) and open(report["chart"], "rb").read(4) == b"\x89PNG"
    table = runner.invoke(app, ["eval", "answers", "--qa", str(qa_file), "--method", "rag", "--k", "2"], catch_exceptions=False)
    assert table.exit_code == 0 and "0 calculadas, 3 en caché" in table.stdout
    bad = runner.invoke(app, ["eval", "answers", "--qa", str(qa_file), "--k", "x"])
    assert bad.exit_code == 1


def test_impossible_cells_are_reported_never_sent():
    from bot.ops.answer_eval import grid, impossible
    from pipeline.llm import AnthropicLLM

    current = AnthropicLLM(api_key="k", base_url="http://127.0.0.1:9", model="claude-sonnet-5-5")
    older = AnthropicLLM(api_key="k", base_url="http://127.0.0.1:9", model="claude-haiku-4-5")
    cells = grid(methods=["rag"], ks=[3], chunkings=["structure"], efforts=[None, "low"], temperatures=[None, 0.5])
    assert [c.label for c in cells] == ["rag k=3 structure", "rag k=3 structure T=0.5", "rag k=3 structure effort=low", "rag k=3 structure effort=low T=0.5"]
    assert [impossible(current, c) is None for c in cells] == [True, False, True, False]
    assert [impossible(older, c) is None for c in cells] == [True, True, False, False]
    assert "sampling" in impossible(current, cells[1]) and "no effort parameter" in impossible(older, cells[2])
    assert all(impossible(None, c) is None for c in cells)  # offline nothing is sent


def test_grid_against_the_stand_in_batches_the_judge_and_skips_impossible_cells(settings, anthropic_server):
    from pydantic import SecretStr

    from tests.fake_batches import FakeBatchRunner
    from tests.pipeline.claude_rules import assert_valid

    settings.gate.enabled = False
    settings.llm.provider, settings.llm.api_key, settings.llm.base_url = "anthropic", SecretStr("k"), anthropic_server.url
    settings.llm.method, settings.llm.batch_min_items = "rag", 2
    runners = []
    services = Services(settings, batch_runner_factory=lambda llm: runners.append(FakeBatchRunner(client=llm.client)) or runners[-1])
    ingest_documents(services)

    def respond(req):
        if (req.get("output_config") or {}).get("format"):
            props = req["output_config"]["format"]["schema"]["properties"]
            return json.dumps({"justificacion": "ok", "puntaje": 4} if "puntaje" in props else {"justificacion": "ok", "afirmaciones": []})
        return "La Beca de Apoyo Económico paga $ 8.500 por mes."

    anthropic_server.set_responder(respond)
    cells = [Config("rag", 3, settings.retrieval.chunking, effort="low"), Config("rag", 3, settings.retrieval.chunking, temperature=0.3)]
    report = evaluate_answers(services, QA, cells)
    assert [r["label"] for r in report["configs"]] == [cells[0].label] and report["configs"][0]["judged"]
    assert report["impossible"] == [{"label": cells[1].label, **cells[1].as_dict(), "status": "impossible", "reason": "claude-sonnet-5-5 does not accept sampling parameters (temperature)"}]
    assert len(runners) == 1 and len(runners[0].jobs) == 1 and len(runners[0].jobs[0][1]) == 2 * len(QA)  # correctness + faithfulness per question
    drafts = [r.json for r in anthropic_server.message_requests if r.json["model"] == "claude-sonnet-5-5"]
    assert drafts and all(d["output_config"]["effort"] == "low" and "temperature" not in d for d in drafts)
    assert_valid(anthropic_server)
    services.close()


def test_cli_details_writes_one_line_per_question_with_its_draft(cli_env, qa_file, tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
    out = tmp_path / "details.jsonl"
    for _ in range(2):  # computed, then from the cache: the same lines
        result = runner.invoke(app, ["eval", "answers", "--qa", str(qa_file), "--k", "3", "--details", str(out), "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
        assert [x["question"] for x in lines] == [q["question"] for q in QA]
        first = lines[0]
        assert first["expected_doc"] == "becas" and "becas" in first["references"] and first["method"] == "extractive"
        assert "8.500" in first["draft"] and not first["draft"].startswith("Hola") and {"token_f1", "doc_hit", "latency_ms"} <= set(first)


def test_figures_are_reported_per_question_kind_with_the_readiness_of_each_draft(settings):
    services = Services(settings)
    ingest_documents(services)
    rows = [dict(r, kind="course_plan" if i == 0 else "rules_procedures") for i, r in enumerate(QA)]
    report = evaluate_answers(services, rows, [Config("rag", 3, settings.retrieval.chunking)])
    row = report["configs"][0]
    assert set(row["by_kind"]) == {"course_plan", "rules_procedures"}
    assert row["by_kind"]["course_plan"]["n"] == 1 and row["by_kind"]["rules_procedures"]["n"] == 2
    assert row["ready_rate"] is not None and 0.0 <= row["ready_rate"] <= 1.0  # every offline draft carries a readiness label
    services.close()


def test_from_approved_evaluates_the_drafter_against_what_staff_sent(cli_env):
    from review.answer_models import CuratedAnswer
    from review.db import session_scope

    runner = CliRunner()
    assert runner.invoke(app, ["ingest"], catch_exceptions=False).exit_code == 0
    empty = runner.invoke(app, ["eval", "answers", "--from-approved"])
    assert empty.exit_code != 0 and "no hay respuestas aprobadas" in empty.output
    both = runner.invoke(app, ["eval", "answers"])
    assert both.exit_code != 0 and "--from-approved" in both.output
    from pipeline.settings import load_settings

    services = Services(load_settings())
    with session_scope(services.engine) as session:
        session.add(CuratedAnswer(question=QA[0]["question"], text=QA[0]["answer"], approved_by="ana", references=[{"doc_id": "becas", "title": "Becas"}]))
    services.close()
    result = runner.invoke(app, ["eval", "answers", "--from-approved", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{"):])
    row = report["configs"][0]
    assert report["n_questions"] == 1 and row["n"] == 1 and row["doc_hit_rate"] == 1.0
    assert row["token_f1"] < 1.0  # drafted by the pipeline, not copied from the approved answer it is measured against
