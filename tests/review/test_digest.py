"""The digest of a synthetic week, every figure worked out by hand."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from sqlmodel import Session

from review.db import session_scope
from review.digest import build_digest, record_run, write_report
from review.models import DigestRun
from tests.review.digest_week import DOCS, GAP_A, GAP_B, WEEK, build_week

AFTER = datetime(2026, 12, 1, tzinfo=timezone.utc)


@pytest.fixture
def db(engine):
    """The synthetic week in a fresh database (SQLite, and PostgreSQL when reachable: tests/review/conftest.py)."""
    with session_scope(engine) as session:
        build_week(session)
    return engine


@pytest.fixture
def digest(db):
    with Session(db) as session:
        return build_digest(session=session, week=WEEK, documents=DOCS, now=AFTER)


def test_counts_rates_and_reasons(digest):
    f = digest.as_dict()
    assert {k: f[k] for k in ("received", "skipped", "quarantined", "out_of_domain", "drafted", "approved", "edited", "rejected", "sent")} == {
        "received": 10, "skipped": 1, "quarantined": 1, "out_of_domain": 1, "drafted": 8, "approved": 1, "edited": 2, "rejected": 3, "sent": 3,
    }
    assert f["by_channel"] == {"email": 7, "slack": 3}
    assert f["rates"] == {"skipped": 0.1, "quarantined": 0.1, "out_of_domain": 0.1, "approve": 1 / 6, "edit": 2 / 6, "reject": 3 / 6}
    assert f["reject_reasons"] == {"incorrect": 1, "missing_info": 1, "out_of_domain": 1}
    assert f["reviewers"] == {"ana": {"approve": 1, "edit": 1, "reject": 2, "total": 4}, "bruno": {"edit": 1, "reject": 1, "total": 2}}


def test_review_times_backlog_and_edit_sizes(digest):
    # waits 10, 20, 30, 60, 90, 120 min: median 45, p90 = 90 + 0.5 * 30
    assert digest.time_to_review == {"p50": 45.0, "p90": 105.0, "n": 6}
    # pending drafts from Tue 09:00 (135 h before the week ends) and Wed 09:00 (111 h)
    assert digest.backlog == {"pending": 2, "oldest_hours": 135.0, "p50_hours": 123.0}
    # edits: 1 character in 35 (small) and nothing in common (large)
    assert digest.edit_sizes["small"] == 1 and digest.edit_sizes["large"] == 1
    assert digest.edit_sizes["values"] == [round(1 / 35, 3), 1.0]
    assert digest.edit_sizes["p50"] == round((1 / 35 + 1) / 2, 3)


def test_offline_measures(digest):
    # approve (distance 0, F1 1), small edit (1/35, F1 5/6), large edit (1, F1 0)
    assert digest.offline["n"] == 3
    assert digest.offline["unchanged_rate"] == round(1 / 3, 3)
    assert digest.offline["token_f1_mean"] == round((1 + 5 / 6 + 0) / 3, 3)
    assert digest.offline["edit_distance_mean"] == round((0 + 1 / 35 + 1) / 3, 3)


def test_judge_and_agreement(digest):
    f = digest.as_dict()
    assert f["judge"]["scored"] == 4 and f["judge"]["not_scored"] == 1
    assert f["judge"]["distribution"] == {"1": 0, "2": 1, "3": 1, "4": 1, "5": 1}
    assert f["acceptable_rate"] == 0.75
    # staff levels 4,3,2,1 against judge levels 4,2,3,1: quadratic weights give
    # observed disagreement (1/9 + 1/9)/4 = 1/18, expected 40/9/16 = 5/18, kappa = 1 - 1/5
    assert f["kappa"] == 0.8
    # ranks 4,2,3,1 vs 4,3,2,1: sum d^2 = 2, rho = 1 - 6*2/(4*15)
    assert f["spearman"] == 0.8
    assert f["agreement"]["n"] == 4
    assert f["agreement"]["confusion"] == {"both_acceptable": 3, "staff_only": 0, "judge_only": 0, "both_unacceptable": 1}


def test_cost_documents_gaps_gate(digest):
    f = digest.as_dict()
    assert f["cost_usd"] == pytest.approx(0.035)  # drafts 0.01 + 0.02, five judge calls at 0.001
    assert f["llm"]["judge_cost_usd"] == pytest.approx(0.005)
    # the canned out-of-domain draft is not generated: 100..600 ms and 800 ms; p90 at position 5.4 = 600 + 0.4 * 200
    assert f["llm"]["latency_ms"] == {"p50": 400.0, "p90": 680.0}
    assert f["documents"]["cited"] == [{"doc_id": "inscripciones", "title": "Inscripciones", "count": 2}, {"doc_id": "becas", "title": "Becas", "count": 1}]
    assert f["documents"]["never"] == [{"doc_id": "titulos", "title": "Títulos"}]
    assert len(f["content_gaps"]) == 1
    assert f["content_gaps"][0]["size"] == 2 and set(f["content_gaps"][0]["examples"]) == {GAP_A, GAP_B}
    assert f["gate_errors"]["missed"] == 1 and f["gate_errors"]["false_alarm"] == 0
    assert f["gate_errors"]["missed_examples"] == ["¿Dónde queda la pizzería?"]


def test_cache_hit_rate_and_cost_per_answer(digest):
    f = digest.as_dict()
    # two drafts carry usage: 100 fresh + 900 written, then 100 fresh + 900 read -> 900 / 2000
    assert f["llm"]["cache"] == {"read_tokens": 900, "write_tokens": 900, "prompt_tokens": 2000, "hit_rate": 0.45}
    assert f["cache_hit_rate"] == 0.45
    # generation cost 0.03 over the 7 drafted answers (the canned out-of-domain reply is not one)
    assert f["llm"]["answers"] == 7
    assert f["cost_per_answer_usd"] == pytest.approx(0.03 / 7, abs=1e-6)
    assert f["llm"]["by_model"]["claude-test"]["cache_hit_rate"] == 0.45
    assert f["trend"][-1]["cache_hit_rate"] == 0.45 and f["trend"][-1]["cost_per_answer_usd"] == f["cost_per_answer_usd"]


def test_empty_week_has_no_cache_rate_or_cost_per_answer(db):
    with Session(db) as session:
        f = build_digest(session=session, week="2026-W10").as_dict()
    assert f["cache_hit_rate"] is None and f["cost_per_answer_usd"] is None and f["llm"]["cache"]["prompt_tokens"] == 0


def test_empty_week_has_no_nan(db):
    with Session(db) as session:
        f = build_digest(session=session, week="2026-W10").as_dict()
    assert f["received"] == 0 and f["kappa"] is None and f["acceptable_rate"] is None and f["time_to_review"]["p50"] is None
    assert "NaN" not in json.dumps(f)


def test_reports_and_trend(db, tmp_path, digest):
    md, html = write_report(digest, tmp_path / "reports")
    page = html.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") >= 1 and "http://" not in page and "https://" not in page
    assert "0.80" in page and "¿Hay becas de posgrado" in page
    text = md.read_text(encoding="utf-8")
    assert "| Recibidos | 10 |" in text and "kappa ponderado 0.80" in text
    assert "aciertos de la caché de prompts 45.0 %" in text and "por respuesta US$ 0.0043" in text
    assert "45.0 %" in page and "US$ 0.0043" in page
    with session_scope(db) as session:
        record_run(session=session, digest=digest, md=md, html=html)
    with Session(db) as session:
        assert session.get(DigestRun, WEEK).figures["kappa"] == 0.8
        nxt = build_digest(session=session, week="2026-W48")
    assert [p["week"] for p in nxt.trend] == [WEEK, "2026-W48"]
    assert nxt.trend[0]["received"] == 10 and nxt.trend[0]["kappa"] == 0.8


def test_messages_set_aside_are_listed_with_their_reason_and_the_way_back(digest, tmp_path):
    listed = digest.as_dict()["set_aside"]
    assert sorted((i["state"], i["reason"]) for i in listed) == [("quarantined", "malformed: no body"), ("skipped", "auto-reply")]
    assert all(isinstance(i["message_id"], int) and i["channel"] == "email" for i in listed)
    md, html = write_report(digest, tmp_path)
    text = md.read_text(encoding="utf-8")
    assert "## Mensajes sin borrador" in text and "orienta review needs-reply" in text
    assert all(f"| {i['message_id']} |" in text for i in listed) and "| omitido | email | auto-reply |" in text
    assert "Mensajes sin borrador" in html.read_text(encoding="utf-8")


def test_an_offices_digest_counts_only_its_messages_and_the_campus_leads_all(db):
    """Campus mode: three of the week's messages move to «becas»; its digest holds those three, the default office's the
    other seven, and the campus lead's (no filter) all ten."""
    from sqlmodel import col, select

    from review.models import InboundMessage

    with session_scope(db) as session:
        ids = [m.id for m in session.exec(select(InboundMessage).order_by(col(InboundMessage.id))).all()][:3]
        for mid in ids:
            session.get(InboundMessage, mid).office = "becas"
    with Session(db) as session:
        becas = build_digest(session=session, week=WEEK, now=AFTER, offices=["becas"]).as_dict()
        default = build_digest(session=session, week=WEEK, now=AFTER, offices=[None]).as_dict()
        campus = build_digest(session=session, week=WEEK, now=AFTER).as_dict()
    assert (becas["received"], default["received"], campus["received"]) == (3, 7, 10)
    assert sum(becas["by_channel"].values()) == 3 and becas["drafted"] + default["drafted"] == campus["drafted"]
