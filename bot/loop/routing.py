"""Loop step "route": which office drafts a message — its own, another office whose business it is (the message moves
to that office's queue, audited), or, when its office does not exist, none (quarantined with the reason, listed for
the campus lead)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

from sqlmodel import Session

from bot.wiring.campus import campus_of
from bot.learning.routing import router_or_none
from bot.wiring.services import Services
from review import queue
from review.errors import OfficeError, UnknownOffice
from review.models import InboundMessage
from review.offices import ADDRESSED, MOVED_BY_ROUTER, move

log = logging.getLogger(__name__)
ROUTER_ACTOR = "orienta:router"


def route(services: Services, session: Session, message: InboundMessage, question: str) -> Services | None:
    """The services of the office that drafts `message` (a single-office deployment: `services` itself, untouched).

    A follow-up stays with its conversation's office; a message staff already moved is not moved again; otherwise the
    router may send it to the office whose business it is. None: its office does not exist (quarantined)."""
    campus = campus_of(services)
    if message.office is None and not campus.is_campus():
        return services
    names = campus.names()
    try:
        here = campus.info(message.office).name if message.office else campus.default
    except UnknownOffice:
        reason = f"office_unknown: el mensaje es para la oficina {message.office!r}, que no existe (oficinas: {', '.join(names)}); movelo con `orienta review move {message.id} --office OFICINA`"
        queue.quarantine(session=session, message=message, reason=reason)
        return None
    addressed = _addressed_office(campus, message) if message.office is None else None
    if addressed is None and message.office is None and (tag := _plus_tag(services, message)) is not None:
        try:
            addressed = campus.info(tag).name  # consultas+becas@...: written to that office
        except UnknownOffice:  # an office that does not exist: the campus lead decides, nothing is dropped
            message.office = tag[:64]
            reason = f"office_unknown: escrito a la dirección de la oficina {tag!r}, que no existe (oficinas: {', '.join(names)}); movelo con `orienta review move {message.id} --message --office OFICINA`"
            queue.quarantine(session=session, message=message, reason=reason)
            return None
    if addressed is not None and addressed != here:  # written to an office's own mailbox or Slack channel
        _move(session, message, addressed, here, names, campus.default, reason=ADDRESSED)
        here = addressed
    earlier = session.get(InboundMessage, message.follows_id) if message.follows_id else None
    if earlier is not None:  # a follow-up is answered where its conversation is
        target = earlier.office or campus.default
        if target != here and target in names:
            _move(session, message, target, here, names, campus.default, reason="conversation")
    elif services.settings.offices.route and not _moved_by_staff(session, message, campus.default):
        router = router_or_none(services)
        if router is not None:
            gates = OfficeGates(campus) if services.settings.offices.office_gates else None
            decision = router.route(question, services.embedder, office_gates=gates)
            if decision.office is not None and decision.office != here and decision.margin_over(here) >= services.settings.offices.route_min_margin:
                _move(session, message, decision.office, here, names, campus.default, reason="router", score=decision.probabilities[decision.office])
    return campus.office_services(message.office)


class OfficeGates(Mapping):
    """Each office's own gate, loaded when the router first asks for it (None: the office has no trained, fresh gate,
    or its gate is switched off)."""

    def __init__(self, campus) -> None:
        self.campus = campus
        self._gates: dict[str, object] = {}

    def __getitem__(self, office: str):
        if office not in self._gates:
            try:
                svc = self.campus.office_services(office)
            except UnknownOffice:
                raise KeyError(office) from None
            self._gates[office] = svc.gate_or_none() if svc.settings.gate.enabled else None
        return self._gates[office]

    def __iter__(self) -> Iterator[str]:
        return iter(self.campus.names())

    def __len__(self) -> int:
        return len(self.campus.names())


def _move(session: Session, message: InboundMessage, target: str, here: str, names: list[str], default: str, *, reason: str, score: float | None = None) -> None:
    try:
        move(session=session, message_id=message.id, to_office=target, actor=ROUTER_ACTOR, default=default, known=names, by=MOVED_BY_ROUTER, reason=reason, score=score)  # type: ignore[arg-type]
    except OfficeError as exc:  # a loop, or the office went away meanwhile: the message stays where it is
        log.info("message %s stays at office %s: %s", message.id, here, exc)


def _addressed_office(campus, message: InboundMessage) -> str | None:
    """The office whose own mailbox (To, Cc, Delivered-To) or Slack channel the message was written to, if any."""
    offices = [o for o in campus.offices() if not o.default and (o.mailbox or o.channels)]
    if not offices:
        return None
    if message.channel == "slack" and message.thread_ref:
        channel = message.thread_ref.split(":", 1)[0]
        return next((o.name for o in offices if channel in o.channels), None)
    if message.channel == "email" and message.raw:
        from email.parser import BytesHeaderParser
        from email.utils import getaddresses

        headers = BytesHeaderParser().parsebytes(message.raw)
        found = {addr.lower() for _, addr in getaddresses([str(v) for k in ("To", "Cc", "Delivered-To") for v in headers.get_all(k, [])])}
        return next((o.name for o in offices if o.mailbox and o.mailbox.lower() in found), None)
    return None


def _plus_tag(services: Services, message: InboundMessage) -> str | None:
    """The +tag of the shared mailbox address the e-mail was written to (consultas+becas@... -> "becas"), if any."""
    if message.channel != "email" or not message.raw:
        return None
    from email.parser import BytesHeaderParser
    from email.utils import getaddresses, parseaddr

    own = {parseaddr(a)[1].lower() for a in services.settings.smtp.own_addresses}
    headers = BytesHeaderParser().parsebytes(message.raw)
    for _, addr in getaddresses([str(v) for k in ("To", "Cc", "Delivered-To") for v in headers.get_all(k, [])]):
        local, _, domain = addr.lower().partition("@")
        base, plus, tag = local.partition("+")
        if plus and tag and f"{base}@{domain}" in own:
            return tag
    return None


def _moved_by_staff(session: Session, message: InboundMessage, default: str) -> bool:
    from sqlmodel import select

    from review.models import AuditEvent

    events = session.exec(select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == "routed")).all()
    return any((e.details or {}).get("by") == "staff" for e in events)



def card_context(session: Session, services: Services, message: InboundMessage) -> dict:
    """What the review card shows of the campus: the office drafting the message and the route it took (nothing for one office)."""
    if services.office is None and message.office is None and not campus_of(services).is_campus():
        return {}
    from sqlmodel import select

    from review.models import AuditEvent
    from review.offices import route_of

    campus = campus_of(services)
    route = route_of(session=session, message=message, default=campus.default)
    last = session.exec(select(AuditEvent).where(AuditEvent.message_id == message.id, AuditEvent.event == "routed").order_by(AuditEvent.id.desc())).first()  # type: ignore[union-attr]
    by = (last.details or {}).get("by") if last is not None else None
    if by == MOVED_BY_ROUTER and (last.details or {}).get("reason") == "conversation":
        by = "conversation"
    context = {"office": message.office or campus.default, "route": route if len(route) > 1 else None, "routed_by": by}
    return {k: v for k, v in context.items() if v}
