"""The digest says how many «listo» drafts, and drafts made from approved answers, staff sent unchanged, with a 95% interval."""

from __future__ import annotations

from sqlmodel import Session

from pipeline.generation.readiness import NEEDS_REVIEW, READY, READINESS_FLAG
from review import queue
from review.answer_memory import CURATED_FLAG, CURATED_METHOD
from review.db import session_scope
from review.digest import build_digest, write_report
from review.models import utcnow
from review.report import summary_lines
from review.weeks import iso_week
from tests.review.factories import make_drafted


def _flag(label: str) -> list[dict]:
    return [{"kind": READINESS_FLAG, "flag": label, "label": label, "missing": None, "passages": [], "evidence": {}}]


def test_digest_reports_the_precision_of_the_readiness_label_with_its_interval(engine, tmp_path):
    with session_scope(engine) as session:
        for i in range(8):  # 6 of 8 «listo» drafts sent unchanged
            d, _ = make_drafted(session, method="extractive", flags=_flag(READY))
            if i < 6:
                queue.approve(session=session, draft_id=d.id, actor="ana")
            else:
                queue.edit(session=session, draft_id=d.id, actor="ana", text="Otra respuesta, escrita por el equipo, más completa.")
        d, _ = make_drafted(session, method="extractive", flags=_flag(NEEDS_REVIEW))
        queue.reject(session=session, draft_id=d.id, actor="ana", reason="incorrect")
        make_drafted(session, method="extractive", flags=_flag(READY))  # not decided yet: not counted
        flag = {"kind": CURATED_FLAG, "answer_id": 1, "approved_at": "2026-11-01T10:00:00", "approved_by": "ana", "similarity": 0.97, "lexical": 0.6}
        d, _ = make_drafted(session, method=CURATED_METHOD, flags=[flag])
        queue.approve(session=session, draft_id=d.id, actor="ana")
    with Session(engine) as session:
        digest = build_digest(session=session, week=iso_week(utcnow()))
    c = digest.as_dict()["claims"]
    assert (c["readiness"]["claimed"], c["readiness"]["claimed_sent_unchanged"], c["readiness"]["not_claimed"]) == (8, 6, 1)
    lo, hi = c["readiness"]["interval"]
    assert lo < 0.75 < hi <= 1.0
    assert (c["reuse"]["claimed"], c["reuse"]["claimed_sent_unchanged"]) == (1, 1)
    line = f"«listo»: 6 de 8 enviados sin cambios (IC 95% {lo:.2f}–{hi:.2f})"
    md, html = write_report(digest, tmp_path)
    assert line in md.read_text(encoding="utf-8") and line in html.read_text(encoding="utf-8")
    assert line in summary_lines(digest)
    assert "reutilizadas: 1 de 1 enviadas sin cambios" in md.read_text(encoding="utf-8")


def test_a_week_without_decided_ready_drafts_says_so(engine, tmp_path):
    with Session(engine) as session:
        digest = build_digest(session=session, week=iso_week(utcnow()))
    md, _ = write_report(digest, tmp_path)
    assert "ningún borrador «listo» decidido todavía" in md.read_text(encoding="utf-8")
    assert not any("«listo»" in line for line in summary_lines(digest))
