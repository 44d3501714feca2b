"""Who is asking: the session cookie, the staff account behind it and its role (FastAPI dependencies)."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Scope:
    """The offices an account may see and act on: `offices` None means every office (a single office, or the campus
    lead); otherwise office names, None among them standing for the default office (messages with no office)."""

    offices: tuple[str | None, ...] | None

    def allows(self, office: str | None) -> bool:
        return self.offices is None or office in self.offices

    @property
    def filter(self) -> list[str | None] | None:
        return None if self.offices is None else list(self.offices)


def scope_of(services, account: StaffAccount) -> Scope:
    """Campus mode: the offices of `account` (a lead with none: the campus lead, all of them; a reviewer with none: the
    default office). A single-office deployment: everything."""
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    campus = campus_of(services)
    if not campus.is_campus() or accounts.is_campus_lead(account):
        return Scope(None)
    names: list[str | None] = []
    for name in account.offices or [campus.default]:
        try:
            office = campus.info(name)
        except UnknownOffice:  # an office since removed: nothing of it to see
            continue
        names.append(None if office.default else office.name)
    return Scope(tuple(dict.fromkeys(names)))


def scope(request: Request, account: StaffAccount = Depends(staff)) -> Scope:
    """The offices the signed-in account belongs to."""
    return scope_of(request.app.state.services, account)


def campus_lead(request: Request, account: StaffAccount = Depends(lead)) -> StaffAccount:
    """A lead who sees every office (any lead for one office): staff accounts are the campus lead's business."""
    if scope_of(request.app.state.services, account).offices is not None:
        raise Forbidden()
    return account


def current_office(request: Request, office: str = "", mine: Scope = Depends(scope)) -> str | None:
    """The office whose documents, gaps and digests a page shows: the `office` asked for when the account belongs to
    it (else 403), or the account's first office; None: the default office (also for one office and the campus lead)."""
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    if office:
        try:
            info = campus_of(request.app.state.services).info(office)
        except UnknownOffice:
            raise Forbidden() from None
        name = None if info.default else info.name
        if not mine.allows(name):
            raise Forbidden()
        return name
    return mine.offices[0] if mine.offices else None


@dataclass(frozen=True)
class OfficePick:
    """Pages that cover offices (gaps, digests): the offices the account may pick from and what the page then covers.
    `options` is empty for one office (no picker); `filter` None means every office (the campus lead, nothing picked)."""

    options: tuple[str, ...]  # office names, in campus order
    picked: str | None  # the office name picked (None: all the account's offices)
    filter: list[str | None] | None  # for queries: office names, None standing for the default office

    @property
    def query(self) -> str:
        from urllib.parse import urlencode

        return "?" + urlencode({"office": self.picked}) if self.picked else ""


def office_pick(request: Request, office: str = "", mine: Scope = Depends(scope)) -> OfficePick:
    """The `office` asked for (403 when it is unknown or not the account's), else all the account's offices. The campus
    lead may pick any office; a reviewer only theirs (the picker lists only those)."""
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    campus = campus_of(request.app.state.services)
    if not campus.is_campus():
        return OfficePick(options=(), picked=None, filter=mine.filter)
    options = tuple(o.name for o in campus.offices() if mine.allows(None if o.default else o.name))
    if not office:
        return OfficePick(options=options, picked=None, filter=mine.filter)
    try:
        info = campus.info(office)
    except UnknownOffice:
        raise Forbidden() from None
    name = None if info.default else info.name
    if not mine.allows(name):
        raise Forbidden()
    return OfficePick(options=options, picked=info.name, filter=[name])


def office_services(request: Request, office: str | None):
    """The services of `office` (None: the default office's, the app's own)."""
    svc = request.app.state.services
    if office is None:
        return svc
    from bot.wiring.campus import campus_of

    return campus_of(svc).office_services(office)


def check_office(mine: Scope, office: str | None) -> None:
    """Refuse (403) what concerns another office's message or answer."""
    if not mine.allows(office):
        raise Forbidden()


def secure_cookies(request: Request) -> bool:
    """Cookies are Secure behind TLS (the proxy's X-Forwarded-Proto reaches request.url through uvicorn's proxy headers)."""
    configured = request.app.state.services.settings.console.secure_cookies
    return configured if configured is not None else request.url.scheme == "https"
