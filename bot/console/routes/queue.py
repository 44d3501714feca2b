"""The review queue: pending drafts with what the Slack card shows; approve, edit, reject through review.queue."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse

from bot.console import views
from bot.console.auth import Scope, check_office, scope, staff
from bot.console.errors import spanish
from bot.console.render import page
from review import queue, states
from review.db import session_scope
from review.errors import ConcurrentUpdate, NotFound, ReviewError, UnconfirmedLinks
from review.models import InboundMessage
from review.staff import StaffAccount, actor_of

router = APIRouter()
SET_ASIDE = {"skipped": states.SKIPPED, "acknowledged": states.ACKNOWLEDGED, "quarantined": states.QUARANTINED}


@router.get("/")
def pending(request: Request, page_no: int = 1, me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    svc = request.app.state.services
    size = svc.settings.console.page_size
    page_no = max(1, page_no)
    with session_scope(svc.engine) as session:
        rows = queue.list_drafts(session=session, state=states.DRAFTED, limit=size, offset=(page_no - 1) * size, offices=mine.filter)
        total = queue.count_pending(session=session, offices=mine.filter)
        items = [views.queue_row(d, m) for d, m in rows]
    return page(request, "queue.html", items=items, total=total, page_no=page_no, pages=max(1, -(-total // size)))


@router.get("/drafts/{draft_id}")
def show(request: Request, draft_id: int, me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    _check_draft(request, draft_id, mine)
    return _render_draft(request, draft_id)


def _check_draft(request: Request, draft_id: int, mine: Scope) -> None:
    """403 for a draft of another office's message (404 for none at all)."""
    if mine.offices is None:
        return
    with session_scope(request.app.state.services.engine) as session:
        try:
            _, message = queue.get_draft(session=session, draft_id=draft_id)
        except NotFound:
            raise HTTPException(404) from None
        check_office(mine, message.office)


def _render_draft(request: Request, draft_id: int, *, status_code: int = 200, **extra):
    svc = request.app.state.services
    with session_scope(svc.engine) as session:
        try:
            draft, message = queue.get_draft(session=session, draft_id=draft_id)
        except NotFound:
            raise HTTPException(404) from None
        card = views.draft_card(session, draft, message)
    from bot.wiring.campus import campus_of

    campus = campus_of(svc)
    offices = [n for n in campus.names() if n != (message.office or campus.default)] if campus.is_campus() else []
    card |= {"office": (message.office or campus.default) if campus.is_campus() else None, "route": (draft.context or {}).get("route")}
    return page(request, "draft.html", status_code=status_code, card=card, reasons=queue.REJECT_REASONS, offices=offices, **extra)


@router.post("/drafts/{draft_id}/move")
def move_office(request: Request, draft_id: int, office: str = Form(...), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    """Campus mode: pass a pending message to another office's queue (audited; it teaches the router). A reviewer of the
    message's office may do it; sending it back to an office it already left is refused (a loop)."""
    from bot.wiring.campus import campus_of
    from review.errors import OfficeError, RoutingLoop, UnknownOffice
    from review.offices import MOVED_BY_STAFF, move

    _check_draft(request, draft_id, mine)
    svc = request.app.state.services
    campus = campus_of(svc)
    try:
        with session_scope(svc.engine) as session:
            _, message = queue.get_draft(session=session, draft_id=draft_id)
            if message.state != states.DRAFTED:
                return _render_draft(request, draft_id, status_code=409, error="Este mensaje ya no está pendiente: no se puede pasar a otra oficina.")
            move(session=session, message_id=message.id, to_office=office, actor=actor_of(me), default=campus.default, known=campus.names(), by=MOVED_BY_STAFF, reason="reviewer")  # type: ignore[arg-type]
    except NotFound:
        raise HTTPException(404) from None
    except RoutingLoop as exc:
        return _render_draft(request, draft_id, status_code=400, error=f"El mensaje ya pasó por la oficina «{exc.target}» ({' → '.join(exc.path[:-1])}): devolverlo haría un bucle. Respondelo desde acá, o pedí a la coordinación del campus que lo fuerce.")
    except UnknownOffice:
        return _render_draft(request, draft_id, status_code=400, error=f"No existe la oficina «{office}».")
    except OfficeError:
        return _render_draft(request, draft_id, status_code=400, error=f"El mensaje ya está en la oficina «{office}».")
    return RedirectResponse("/?aviso=moved", status_code=303)


def _decide(request: Request, draft_id: int, fn, notice: str, *, text: str | None = None, **kwargs):
    svc = request.app.state.services
    try:
        with session_scope(svc.engine) as session:
            fn(session=session, draft_id=draft_id, **kwargs, **({} if text is None else {"text": text}))
    except NotFound:
        raise HTTPException(404) from None
    except UnconfirmedLinks as exc:
        return _render_draft(request, draft_id, status_code=409, error=f"La respuesta lleva enlaces que no están en los documentos: {', '.join(exc.links)}. Marcá «Confirmo los enlaces» para enviarla igual.", need_confirm=True, edited_text=text)
    except ConcurrentUpdate as exc:
        who = (exc.actor or "otra persona").removeprefix("console:").removeprefix("cli:")
        return _render_draft(request, draft_id, status_code=409, error=f"Este mensaje ya fue atendido por {who}: no se hizo nada.")
    except ReviewError as exc:
        return _render_draft(request, draft_id, status_code=400, error=spanish(exc), edited_text=text)
    return RedirectResponse(f"/drafts/{draft_id}?aviso={notice}", status_code=303)


def _version(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


@router.post("/drafts/{draft_id}/approve")
def approve(request: Request, draft_id: int, version: str = Form(""), confirm_links: bool = Form(False), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    _check_draft(request, draft_id, mine)
    return _decide(request, draft_id, queue.approve, "approved", actor=actor_of(me), expected_version=_version(version), confirm_links=confirm_links)


@router.post("/drafts/{draft_id}/edit")
def edit(request: Request, draft_id: int, text: str = Form(...), version: str = Form(""), confirm_links: bool = Form(False), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    _check_draft(request, draft_id, mine)
    return _decide(request, draft_id, queue.edit, "edited", text=text, actor=actor_of(me), expected_version=_version(version), confirm_links=confirm_links)


@router.post("/drafts/{draft_id}/reject")
def reject(request: Request, draft_id: int, reason: str = Form(...), comment: str = Form(""), version: str = Form(""), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    _check_draft(request, draft_id, mine)
    return _decide(request, draft_id, queue.reject, "rejected", actor=actor_of(me), reason=reason, comment=comment.strip() or None, expected_version=_version(version))


@router.get("/messages")
def set_aside(request: Request, state: str = "quarantined", me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    """Messages that got no draft (skipped, acknowledged, quarantined): listed for staff, with their reason."""
    if state not in SET_ASIDE:
        raise HTTPException(404)
    svc = request.app.state.services
    with session_scope(svc.engine) as session:
        rows = [views.message_row(m) for m in queue.messages_in_state(session=session, state=SET_ASIDE[state], limit=svc.settings.console.page_size, offices=mine.filter)]
    return page(request, "messages.html", rows=rows, state=state, states=list(SET_ASIDE))


@router.post("/messages/{message_id}/needs-reply")
def needs_reply(request: Request, message_id: int, state: str = Form("quarantined"), me: StaffAccount = Depends(staff), mine: Scope = Depends(scope)):
    """«Necesita respuesta»: a message set aside goes back to drafting (the same queue action as Slack and the CLI)."""
    svc = request.app.state.services
    try:
        with session_scope(svc.engine) as session:
            found = session.get(InboundMessage, message_id)
            if found is not None:
                check_office(mine, found.office)
            queue.needs_reply(session=session, message_id=message_id, actor=actor_of(me))
    except NotFound:
        raise HTTPException(404) from None
    except (ReviewError, states.InvalidTransition) as exc:
        return page(request, "error.html", status_code=400, message=spanish(exc))
    back = state if state in SET_ASIDE else "quarantined"
    return RedirectResponse(f"/messages?state={back}&aviso=needs_reply", status_code=303)
