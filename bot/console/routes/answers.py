"""Approved answers: list and search, edit the text (a new version), mark standard, retire, list the stale ones."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse

from bot.console.auth import Scope, check_office, scope, staff
from bot.console.errors import spanish
from bot.console.render import page
from bot.console.views import who
from review import answer_memory as answers
from review.answer_models import ANSWER_STATES
from review.db import session_scope
from review.errors import NotFound, ReviewError
from review.staff import StaffAccount, actor_of

router = APIRouter()
STATE_LABELS = {"active": "activa", "stale": "desactualizada", "retired": "retirada"}
EVENTS = {"edited": "texto editado", "standard": "marcada como estándar", "unstandard": "ya no es estándar", "retired": "retirada", "stale": "desactualizada",
          "active": "activa de nuevo", "saved": "guardada", "confirmed": "confirmada para otra pregunta"}


@router.get("/answers")
def list_answers(request: Request, q: str = "", state: str = "", page_no: int = 1, me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    svc = request.app.state.services
    size = svc.settings.console.page_size
    with session_scope(svc.engine) as session:
        rows = answers.search_answers(session=session, query=q[:200], state=state if state in ANSWER_STATES else None, limit=size, offset=(max(1, page_no) - 1) * size, offices=mine.filter)
        items = [answers.as_public(a) | {"state_label": STATE_LABELS.get(a.state, a.state), "by": who(a.approved_by)} for a in rows]
    return page(request, "answers.html", items=items, q=q, state=state, states=STATE_LABELS, page_no=max(1, page_no), more=len(items) == size)


def _answer_page(request: Request, answer_id: int, *, status_code: int = 200, **extra):
    with session_scope(request.app.state.services.engine) as session:
        try:
            row = answers.as_public(answers.get_answer(session=session, answer_id=answer_id))
        except NotFound:
            raise HTTPException(404) from None
        history = [{"event": EVENTS.get(e.event.removeprefix("curated_answer_"), e.event.removeprefix("curated_answer_")), "who": who(e.actor), "at": e.at, "details": e.details or {}} for e in answers.answer_history(session=session, answer_id=answer_id)]
    row |= {"state_label": STATE_LABELS.get(row["state"], row["state"]), "by": who(row["approved_by"])}
    return page(request, "answer.html", status_code=status_code, answer=row, history=history, **extra)


@router.get("/answers/{answer_id}")
def show(request: Request, answer_id: int, me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    _check_answer(request, answer_id, mine)
    return _answer_page(request, answer_id)


def _check_answer(request: Request, answer_id: int, mine: Scope) -> None:
    """403 for another office's approved answer (404 for none)."""
    with session_scope(request.app.state.services.engine) as session:
        try:
            check_office(mine, answers.get_answer(session=session, answer_id=answer_id).office)
        except NotFound:
            raise HTTPException(404) from None


def _act(request: Request, answer_id: int, notice: str, fn, *, mine: Scope, **kwargs):
    _check_answer(request, answer_id, mine)
    try:
        with session_scope(request.app.state.services.engine) as session:
            fn(session=session, answer_id=answer_id, **kwargs)
    except NotFound:
        raise HTTPException(404) from None
    except ReviewError as exc:
        return _answer_page(request, answer_id, status_code=400, error=spanish(exc))
    return RedirectResponse(f"/answers/{answer_id}?aviso={notice}", status_code=303)


@router.post("/answers/{answer_id}/edit")
def edit(request: Request, answer_id: int, text: str = Form(...), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    from bot.learning.answer_memory import current_hashes

    return _act(request, answer_id, "answer_saved", answers.edit_text, mine=mine, text=text, actor=actor_of(me), current=current_hashes(request.app.state.services))


@router.post("/answers/{answer_id}/standard")
def standard(request: Request, answer_id: int, me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    return _act(request, answer_id, "answer_standard", answers.set_standard, mine=mine, actor=actor_of(me))


@router.post("/answers/{answer_id}/retire")
def retire(request: Request, answer_id: int, reason: str = Form(""), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    return _act(request, answer_id, "answer_retired", answers.retire, mine=mine, actor=actor_of(me), reason=reason.strip() or None)
