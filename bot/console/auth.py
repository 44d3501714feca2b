"""Who is asking: the session cookie, the staff account behind it and its role (FastAPI dependencies)."""

from __future__ import annotations

from fastapi import Depends, Request

from review import staff as accounts
from review.db import session_scope
from review.staff import LEAD, StaffAccount

COOKIE = "orienta_session"


class LoginRequired(Exception):
    """No valid session: pages redirect to the login, actions answer 401."""


class Forbidden(Exception):
    """Signed in, but the role does not allow this."""


def services(request: Request):
    return request.app.state.services


def staff(request: Request) -> StaffAccount:
    """The signed-in, active account; a disabled account's session ends here."""
    token = request.cookies.get(COOKIE)
    if not token:
        raise LoginRequired()
    with session_scope(request.app.state.services.engine) as session:
        account = accounts.session_account(session=session, token=token)
    if account is None:
        raise LoginRequired()
    request.state.staff = account
    return account


def lead(account: StaffAccount = Depends(staff)) -> StaffAccount:
    """Only the office lead: documents, accounts, gate, health."""
    if account.role != LEAD:
        raise Forbidden()
    return account


def current_office(request: Request) -> str | None:
    """The office whose queue, documents and answers a page shows (None: the single office). Campus mode plugs in here."""
    return None


def secure_cookies(request: Request) -> bool:
    """Cookies are Secure behind TLS (the proxy's X-Forwarded-Proto reaches request.url through uvicorn's proxy headers)."""
    configured = request.app.state.services.settings.console.secure_cookies
    return configured if configured is not None else request.url.scheme == "https"
