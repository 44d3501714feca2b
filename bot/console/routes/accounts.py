"""Staff accounts (lead only): who can sign in, with which role; disable one (its sessions end)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import RedirectResponse

from bot.console.auth import campus_lead
from bot.console.render import page
from review import staff as accounts
from review.db import session_scope
from review.errors import NotFound
from review.staff import StaffAccount, actor_of

router = APIRouter()


@router.get("/staff")
def staff_list(request: Request, me: StaffAccount = Depends(campus_lead)):
    with session_scope(request.app.state.services.engine) as session:
        rows = [{"name": a.name, "role": "coordinación" if a.role == accounts.LEAD else "revisión", "active": a.active, "created_at": a.created_at, "created_by": a.created_by} for a in accounts.list_staff(session=session)]
    return page(request, "staff.html", rows=rows)


@router.post("/staff/{name}/disable")
def disable(request: Request, name: str, me: StaffAccount = Depends(campus_lead)):
    try:
        with session_scope(request.app.state.services.engine) as session:
            accounts.disable_staff(session=session, name=name, actor=actor_of(me))
    except NotFound:
        raise HTTPException(404) from None
    return RedirectResponse("/staff?aviso=staff_disabled", status_code=303)
