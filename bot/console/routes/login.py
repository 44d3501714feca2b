"""Sign in and out."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from bot.console import texts
from bot.console.auth import COOKIE, secure_cookies
from bot.console.render import page
from review import staff as accounts
from review.db import session_scope

router = APIRouter()


def _safe_next(target: str | None) -> str:
    """Only a path of this site (never //host or a scheme): no open redirect."""
    return target if target and target.startswith("/") and not target.startswith("//") and "\\" not in target else "/"


@router.get("/login")
def login_form(request: Request, next: str = "/"):
    return page(request, "login.html", next=_safe_next(next))


@router.post("/login")
def login(request: Request, name: str = Form(""), password: str = Form(""), next: str = Form("/")):
    svc = request.app.state.services
    cfg = svc.settings.console
    ip = request.client.host if request.client else None
    try:
        with session_scope(svc.engine) as session:
            account = accounts.authenticate(session=session, name=name, password=password, ip=ip, max_failures=cfg.login_max_failures, window=timedelta(minutes=cfg.login_window_minutes))
            token = accounts.open_session(session=session, account=account, hours=cfg.session_hours) if account else None
    except accounts.LoginThrottled as exc:
        return page(request, "login.html", status_code=429, error=str(exc), next=_safe_next(next))
    if token is None:
        return page(request, "login.html", status_code=401, error=texts.t("login_failed"), next=_safe_next(next))
    response = RedirectResponse(_safe_next(next), status_code=303)
    response.set_cookie(COOKIE, token, max_age=int(cfg.session_hours * 3600), httponly=True, samesite="lax", secure=secure_cookies(request), path="/")
    return response


@router.post("/logout")
def logout(request: Request):
    with session_scope(request.app.state.services.engine) as session:
        accounts.close_session(session=session, token=request.cookies.get(COOKIE))
    response = RedirectResponse("/login?aviso=logged_out", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response
