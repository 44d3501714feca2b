"""The offices of a campus deployment: create, find, remove, move a message between them, list what no office holds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, func, select

from review import states
from review.errors import NotFound, OfficeError, RoutingLoop, UnknownOffice
from review.models import AuditEvent, InboundMessage, utcnow
from review.office_models import Office, OfficeCreate

PENDING = (states.RECEIVED, states.CLASSIFIED, states.DRAFTED, states.QUARANTINED)
MOVED_BY_STAFF, MOVED_BY_ROUTER = "staff", "router"
ADDRESSED = "address"  # the reason of the first move of a message written to an office's own mailbox or channel


def _slug(name: str) -> str:
    from pipeline.settings import office_slug

    return office_slug(name)


def find_office(*, session: Session, name: str, include_removed: bool = False) -> Office | None:
    """The office called `name` (or with that slug)."""
    stmt = select(Office).where((func.lower(Office.name) == name.strip().lower()) | (Office.slug == _slug(name)))
    if not include_removed:
        stmt = stmt.where(col(Office.removed_at).is_(None))
    return session.exec(stmt).first()


def list_offices(*, session: Session, include_removed: bool = False) -> list[Office]:
    stmt = select(Office).order_by(col(Office.id))
    if not include_removed:
        stmt = stmt.where(col(Office.removed_at).is_(None))
    return list(session.exec(stmt).all())


def add_office(*, session: Session, data: OfficeCreate, actor: str, reserved: Iterable[str] = ()) -> Office:
    """Create an office (a removed one of the same name comes back with the new settings); `reserved`: names of offices
    that exist outside the database (the default office, offices declared in settings)."""
    name = data.name.strip()
    if not name:
        raise OfficeError("an office needs a name")
    slug = _slug(name)
    if any(_slug(r) == slug for r in reserved):
        raise OfficeError(f"office {name!r} already exists (declared in the settings or the default office)")
    existing = find_office(session=session, name=name, include_removed=True)
    if existing is not None and existing.removed_at is None:
        raise OfficeError(f"office {existing.name!r} already exists")
    if existing is None:
        existing = Office(name=name, slug=slug)
    existing.sqlmodel_update(data.model_dump(exclude={"name", "slug"}))
    existing.name, existing.slug, existing.removed_at, existing.created_at = name, slug, None, utcnow()
    session.add(existing)
    session.flush()
    session.add(AuditEvent(actor=actor, event="office_added", details={"office": name, "documents": list(data.documents)}))
    session.flush()
    return existing


def remove_office(*, session: Session, name: str, actor: str) -> tuple[Office, int]:
    """Mark an office removed; its pending messages stay where they are, listed for the campus lead. Returns (office, pending)."""
    office = find_office(session=session, name=name)
    if office is None:
        raise UnknownOffice(f"no office {name!r}")
    office.removed_at = utcnow()
    session.add(office)
    pending = count_pending(session=session, office=office.name)
    session.add(AuditEvent(actor=actor, event="office_removed", details={"office": office.name, "pending_messages": pending}))
    session.flush()
    return office, pending


def count_pending(*, session: Session, office: str | None) -> int:
    """Messages of `office` (None: the default office) that nobody decided yet."""
    return session.exec(select(func.count()).select_from(InboundMessage).where(InboundMessage.office == office, col(InboundMessage.state).in_(PENDING))).one()


def route_of(*, session: Session, message: InboundMessage, default: str) -> list[str]:
    """The offices the message has been at, in order (its first office included, the current one last)."""
    events = session.exec(
        select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == "routed").order_by(col(AuditEvent.id))
    ).all()
    if not events:
        return [message.office or default]
    first = events[0].details or {}
    # A message written to an office's own address starts there: it was never at the default office.
    path = [] if first.get("reason") == ADDRESSED else [first.get("from_office") or default]
    path += [(e.details or {}).get("to_office") or default for e in events]
    return path


def move(
    *,
    session: Session,
    message_id: int,
    to_office: str,
    actor: str,
    default: str,
    known: Sequence[str],
    by: str = MOVED_BY_STAFF,
    reason: str | None = None,
    score: float | None = None,
    force: bool = False,
) -> InboundMessage:
    """Send a pending message to another office's queue (drafted again there), audited; a move back to an office the
    message already left is refused (unless `force`, the campus lead's override). `known`: the offices that exist now."""
    message = session.get(InboundMessage, message_id)
    if message is None:
        raise NotFound(f"no message #{message_id}")
    target = next((k for k in known if _slug(k) == _slug(to_office)), None)
    if target is None:
        raise UnknownOffice(f"no office {to_office!r}; offices: {', '.join(known)}")
    current = message.office or default
    if _slug(target) == _slug(current):
        raise OfficeError(f"message {message_id} is already at office {target!r}")
    path = route_of(session=session, message=message, default=default)
    if not force and any(_slug(p) == _slug(target) for p in path[:-1]):
        raise RoutingLoop(message_id, path + [target], target)
    details = {"by": by, "reason": reason, "route": path + [target]}
    if score is not None:
        details["score"] = score
    return states.reassign(session, message, None if target == default else target, actor=actor, details=details)


@dataclass(frozen=True)
class Unrouted:
    """A pending message whose office cannot take it, with the reason (for the campus lead)."""

    message_id: int
    office: str
    state: str
    reason: str
    received_at: datetime


def unrouted(*, session: Session, known: Sequence[str], limit: int = 200) -> list[Unrouted]:
    """Pending messages addressed to an office that does not exist or was removed: nobody else lists them."""
    slugs = {_slug(k) for k in known}
    removed = {o.name: o.removed_at for o in list_offices(session=session, include_removed=True) if o.removed_at is not None}
    rows = session.exec(
        select(InboundMessage.id, InboundMessage.office, InboundMessage.state, InboundMessage.received_at)
        .where(col(InboundMessage.office).is_not(None), col(InboundMessage.state).in_(PENDING))
        .order_by(col(InboundMessage.id))
    ).all()
    out = []
    for mid, office, state, received_at in rows:
        if _slug(office) in slugs:
            continue
        when = removed.get(office)
        reason = f"office_removed: la oficina {office!r} se quitó el {when:%Y-%m-%d}" if when else f"office_unknown: no existe la oficina {office!r}"
        out.append(Unrouted(message_id=mid, office=office, state=state, reason=reason, received_at=received_at))
        if len(out) >= limit:
            break
    return out
