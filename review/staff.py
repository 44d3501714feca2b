"""Staff accounts of the office console: roles, argon2 passwords, server-side sessions and a login throttle; every change audited."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import JSON, Column
from sqlmodel import Field, Session, SQLModel, col, func, select

from review.errors import NotFound, ReviewError
from review.models import AuditEvent, utcnow

LEAD, REVIEWER = "lead", "reviewer"
ROLES = (LEAD, REVIEWER)
MIN_PASSWORD = 10
_hasher = PasswordHasher()  # argon2id with the library's current parameters
_DUMMY_HASH = _hasher.hash("not a password: keeps unknown names as slow as known ones")


class StaffError(ReviewError):
    """An account operation that cannot be done (bad name, weak password, unknown account)."""


class LoginThrottled(StaffError):
    """Too many failed sign-ins for this name or address: wait before trying again."""


class StaffAccount(SQLModel, table=True):
    __tablename__ = "staff_account"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True, index=True)
    role: str = Field(max_length=16, description="lead | reviewer")
    password_hash: str = Field(max_length=256)
    active: bool = Field(default=True)
    created_at: datetime = Field(default_factory=utcnow)
    created_by: str = Field(max_length=128)
    disabled_at: datetime | None = None
    offices: list[str] | None = Field(default=None, sa_column=Column(JSON), description="Campus mode: the offices this account works for (none: a lead is the campus lead, a reviewer works for the default office).")


class StaffSession(SQLModel, table=True):
    __tablename__ = "staff_session"

    token_hash: str = Field(primary_key=True, max_length=64, description="sha256 of the cookie's token (the token itself is never stored).")
    account_id: int = Field(foreign_key="staff_account.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def actor_of(account: StaffAccount) -> str:
    """How a console user appears in the audit and on decisions."""
    return f"console:{account.name}"


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 64 or not all(c.isalnum() or c in "._-@" for c in name):
        raise StaffError(f"nombre de cuenta inválido {name!r}: letras, números y . _ - @ (hasta 64)")
    return name


def add_staff(*, session: Session, name: str, role: str, password: str, actor: str, offices: Sequence[str] = ()) -> StaffAccount:
    """A new account (the password hashed with argon2id); audited. `offices`: campus mode, the offices it works for."""
    name = _check_name(name)
    if role not in ROLES:
        raise StaffError(f"rol desconocido {role!r}: elegí {' o '.join(ROLES)}")
    if len(password) < MIN_PASSWORD:
        raise StaffError(f"la contraseña debe tener al menos {MIN_PASSWORD} caracteres")
    if session.exec(select(StaffAccount).where(StaffAccount.name == name)).first() is not None:
        raise StaffError(f"ya existe una cuenta {name!r}")
    account = StaffAccount(name=name, role=role, password_hash=_hasher.hash(password), created_by=actor, offices=list(offices) or None)
    session.add(account)
    session.flush()
    session.add(AuditEvent(actor=actor, event="staff_added", details={"account": name, "role": role, **({"offices": list(offices)} if offices else {})}))
    session.flush()
    return account


def set_offices(*, session: Session, name: str, offices: Sequence[str], actor: str) -> StaffAccount:
    """Campus mode: the offices an account works for (none: a lead becomes the campus lead, a reviewer the default
    office's); audited."""
    account = get_staff(session=session, name=name)
    before = list(account.offices or [])
    account.offices = list(dict.fromkeys(offices)) or None
    session.add(account)
    session.add(AuditEvent(actor=actor, event="staff_offices", details={"account": account.name, "from": before, "to": list(account.offices or [])}))
    session.flush()
    return account


def is_campus_lead(account: StaffAccount) -> bool:
    """A lead bound to no office sees and acts on every office."""
    return account.role == LEAD and not account.offices


def get_staff(*, session: Session, name: str) -> StaffAccount:
    account = session.exec(select(StaffAccount).where(StaffAccount.name == name.strip())).first()
    if account is None:
        raise NotFound(f"no existe la cuenta {name!r}")
    return account


def list_staff(*, session: Session) -> list[StaffAccount]:
    return list(session.exec(select(StaffAccount).order_by(col(StaffAccount.name))).all())


def disable_staff(*, session: Session, name: str, actor: str) -> StaffAccount:
    """Disable an account: it can no longer sign in and its open sessions end now."""
    account = get_staff(session=session, name=name)
    if account.active:
        account.active, account.disabled_at = False, utcnow()
        session.add(account)
    for row in session.exec(select(StaffSession).where(StaffSession.account_id == account.id)).all():
        session.delete(row)
    session.add(AuditEvent(actor=actor, event="staff_disabled", details={"account": account.name}))
    session.flush()
    return account


def failed_logins(*, session: Session, name: str, ip: str | None, since: datetime) -> int:
    """Failed sign-ins for this name, or from this address, since `since`."""
    rows = session.exec(select(AuditEvent.details).where(AuditEvent.event == "staff_login_failed", col(AuditEvent.at) >= since)).all()
    return sum(1 for d in rows if (d or {}).get("account") == name or (ip and (d or {}).get("ip") == ip))


def authenticate(*, session: Session, name: str, password: str, ip: str | None, max_failures: int = 5, window: timedelta = timedelta(minutes=15)) -> StaffAccount | None:
    """The account when the name and password match and it is active; None otherwise (audited). Raises LoginThrottled after `max_failures` in `window`."""
    name = name.strip()[:64]
    if failed_logins(session=session, name=name, ip=ip, since=utcnow() - window) >= max_failures:
        session.add(AuditEvent(actor=f"console:{name or '?'}", event="staff_login_throttled", details={"account": name, "ip": ip}))
        session.flush()
        raise LoginThrottled("demasiados intentos fallidos: esperá unos minutos antes de volver a intentar")
    account = session.exec(select(StaffAccount).where(StaffAccount.name == name)).first()
    try:
        ok = _hasher.verify(account.password_hash if account else _DUMMY_HASH, password) and account is not None and account.active
    except (VerificationError, InvalidHashError):
        ok = False
    if not ok:
        session.add(AuditEvent(actor=f"console:{name or '?'}", event="staff_login_failed", details={"account": name, "ip": ip}))
        session.flush()
        return None
    assert account is not None
    if _hasher.check_needs_rehash(account.password_hash):
        account.password_hash = _hasher.hash(password)
        session.add(account)
    session.add(AuditEvent(actor=actor_of(account), event="staff_login", details={"ip": ip}))
    session.flush()
    return account


def open_session(*, session: Session, account: StaffAccount, hours: float) -> str:
    """A new random session token for `account` (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    session.add(StaffSession(token_hash=_digest(token), account_id=account.id, expires_at=utcnow() + timedelta(hours=hours)))  # type: ignore[arg-type]
    session.flush()
    return token


def session_account(*, session: Session, token: str | None) -> StaffAccount | None:
    """The active account a session token belongs to, or None (unknown, expired, or the account was disabled)."""
    if not token:
        return None
    row = session.get(StaffSession, _digest(token))
    if row is None or _aware(row.expires_at) <= utcnow():
        return None
    account = session.get(StaffAccount, row.account_id)
    return account if account is not None and account.active else None


def close_session(*, session: Session, token: str | None) -> None:
    if token:
        row = session.get(StaffSession, _digest(token))
        if row is not None:
            session.delete(row)
            session.flush()


def count_staff(*, session: Session) -> int:
    return session.exec(select(func.count()).select_from(StaffAccount)).one()
