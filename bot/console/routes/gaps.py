"""The week's content gaps (clustered) and FAQ entries made from them: edited here, then saved as a document and indexed."""

from __future__ import annotations

from datetime import datetime, timezone

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse

from bot.console.auth import OfficePick, lead, office_pick, staff
from bot.console.render import page
from bot.ops import library
from review.digest import build_digest
from review.db import session_scope
from review.staff import StaffAccount, actor_of
from review.weeks import iso_week, parse_week, previous_week

router = APIRouter()


def _week(week: str | None) -> str:
    week = week or iso_week(datetime.now(timezone.utc))
    try:
        parse_week(week)
    except ValueError:
        week = iso_week(datetime.now(timezone.utc))
    return week


@router.get("/gaps")
def gaps(request: Request, week: str = "", me: StaffAccount = Depends(staff), pick: OfficePick = Depends(office_pick)):
    week = _week(week)
    with session_scope(request.app.state.services.engine) as session:
        digest = build_digest(session=session, week=week, trend_weeks=0, offices=pick.filter)  # the picked office's gaps, else all the account's
    return page(request, "gaps.html", week=week, previous=previous_week(week), gaps=digest.content_gaps, suggestions=digest.faq_suggestions, pick=pick)


@router.post("/gaps/faq")
def make_faq(request: Request, question: str = Form(...), answer: str = Form(...), me: StaffAccount = Depends(lead)):
    """Save the entry as a Markdown document and index it in the background (lead: it adds a document)."""
    svc, jobs = request.app.state.services, request.app.state.jobs
    if not question.strip() or not answer.strip():
        return page(request, "error.html", status_code=400, message="La entrada necesita una pregunta y una respuesta.")

    def work(job) -> str:
        change = library.write_faq(svc, slug=question[:60], question=question, answer=answer, actor=actor_of(me), progress=jobs.progress(job))
        svc._gate = None
        return f"{change.doc_id}: {change.report.chunks if change.report else 0} fragmentos"

    jobs.submit("Entrada de FAQ", actor_of(me), work)
    return RedirectResponse("/documents?aviso=faq_started", status_code=303)
