"""Transient failures while drafting are not terminal: the message waits and is retried with backoff, is drafted
offline (flagged) once it has waited `drafting.offline_fallback_after_s`, and only a deterministic failure quarantines."""

from __future__ import annotations

import logging

from sqlmodel import Session

from bot.loop.run_report import RunReport
from bot.wiring.metrics import count_message
from bot.wiring.services import Services
from pipeline.errors import is_transient
from pipeline.texts import t
from review import queue, retries, states
from review.models import AuditEvent, InboundMessage

log = logging.getLogger(__name__)


def offline_services(services: Services) -> Services:
    """The same components without a model: drafting falls back to the extractive generator and the offline rules."""
    cached = services.__dict__.get("_offline_services")
    if cached is not None:
        return cached
    offline = Services(settings=services.settings, batch_runner_factory=services.batch_runner_factory)
    for name in ("engine", "embedder", "index", "retriever"):  # shared, never opened twice (local Qdrant locks its folder)
        offline.__dict__[name] = getattr(services, name)
    offline.__dict__["llm"] = offline.__dict__["judge_llm"] = None
    offline._gate = services._gate
    services.__dict__["_offline_services"] = offline
    return offline


def drafter_for(services: Services, message: InboundMessage) -> tuple[Services, bool]:
    """The services to draft `message` with, and whether that is the offline fallback (it waited long enough)."""
    d = services.settings.drafting
    if services.llm is not None and retries.offline_due(message, fallback_after_s=d.offline_fallback_after_s):
        return offline_services(services), True
    return services, False


def after_draft(session: Session, message: InboundMessage, *, offline: bool, report: RunReport, lang: str = "es") -> None:
    """The message left drafting: its wait is over; an offline fallback draft says so on the card; the report counts the state."""
    waited = message.draft_attempts or 0
    retries.settled(message)
    session.add(message)
    if offline and message.state == states.DRAFTED:
        draft = queue.latest_draft(session=session, message_id=message.id)  # type: ignore[arg-type]
        if draft is not None:
            flag = {"kind": retries.OFFLINE_FLAG, "attempts": waited, "flag": t("review_offline_fallback", lang)}
            draft.flags = [*(draft.flags or []), flag]
            session.add(draft)
        session.add(AuditEvent(message_id=message.id, actor=queue.SYSTEM, event=retries.OFFLINE_EVENT, details={"attempts": waited}))
        report.offline += 1
    session.flush()
    report.drafted += message.state == states.DRAFTED
    report.acknowledged += message.state == states.ACKNOWLEDGED
    report.quarantined += message.state == states.QUARANTINED


def after_failure(services: Services, session: Session, mid: int, exc: BaseException, report: RunReport) -> tuple[str, str] | None:
    """A failure while drafting message `mid`: transient -> it waits (state unchanged, attempt and next attempt recorded);
    deterministic -> quarantined with the reason. Returns (channel, outcome) for the metrics, None when nothing was recorded."""
    d = services.settings.drafting
    report.errors.append(f"message {mid}: {type(exc).__name__}: {exc}")
    try:
        session.rollback()
        message = session.get(InboundMessage, mid)
        if message is None or message.state not in (states.RECEIVED, states.CLASSIFIED):
            return None
        if is_transient(exc):
            at = retries.defer(session=session, message=message, error=exc, base_s=d.retry_base_delay_s, max_s=d.retry_max_delay_s, fallback_after_s=d.offline_fallback_after_s)
            log.warning("message %s: transient failure (%s: %s); waiting, next attempt at %s", mid, type(exc).__name__, exc, at.isoformat(timespec="seconds"))
            report.waiting += 1
            return message.channel, "waiting"
        retries.settled(message)
        queue.quarantine(session=session, message=message, reason=f"internal error while drafting: {type(exc).__name__}: {exc}")
        report.quarantined += 1
        return message.channel, states.QUARANTINED
    except Exception as inner:  # the database itself fails: nothing recorded, the message is still waiting and tried again
        log.error("message %s: could not record the drafting failure (%s); it stays waiting", mid, inner)
        report.errors.append(f"message {mid}: not recorded: {type(inner).__name__}: {inner}")
        return None


def count(outcome: tuple[str, str] | None) -> None:
    if outcome is not None:
        count_message(*outcome)
