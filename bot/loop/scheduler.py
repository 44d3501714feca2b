"""The weekly digest on a cron (APScheduler): one digest per ISO week across workers and restarts."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from review.models import DigestRun, utcnow
from review.weeks import iso_week, previous_week

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler

    from bot.wiring.services import Services
    from review.digest import Digest

log = logging.getLogger(__name__)
JOB_ID = "orienta-weekly-digest"
RETRAIN_JOB_ID = "orienta-weekly-gate-retraining"
RETRAIN_HOUR = 3  # local time on the digest's weekday, before the digest
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Deliver = Callable[["Services", "Digest", Path, Path], object]


def claim_week(engine, week: str) -> bool:
    """Atomically mark `week` as being delivered; False when another worker (or an earlier run) has it."""
    with Session(engine) as session:
        if session.get(DigestRun, week) is None:
            session.add(DigestRun(iso_week=week, figures={}))
            try:
                session.commit()
            except IntegrityError:  # another worker inserted it first; the update below decides
                session.rollback()
        result = session.execute(update(DigestRun).where(col(DigestRun.iso_week) == week, col(DigestRun.sent_at).is_(None)).values(sent_at=utcnow()))
        session.commit()
        return result.rowcount == 1


def release_week(engine, week: str) -> None:
    """Undo a claim after a failed delivery so a later run retries."""
    with Session(engine) as session:
        session.execute(update(DigestRun).where(col(DigestRun.iso_week) == week).values(sent_at=None))
        session.commit()


def due_week(settings, now: datetime | None = None) -> str:
    """The week the most recent scheduled run (at or before `now`) should have digested: the one before it."""
    d = settings.digest
    tz = ZoneInfo(d.timezone)
    local = (now or datetime.now(timezone.utc)).astimezone(tz)
    days_back = (local.weekday() - WEEKDAYS.index(d.weekday)) % 7
    fire = (local - timedelta(days=days_back)).replace(hour=d.hour, minute=d.minute, second=0, microsecond=0)
    if fire > local:
        fire -= timedelta(days=7)
    return previous_week(iso_week(fire.date()))


def run_weekly_digest(services: "Services", *, week: str | None = None, now: datetime | None = None, deliver: Deliver | None = None) -> str | None:
    """Build, record and deliver the due week's digest once; returns the week, or None when it was already done."""
    from bot.loop.digest import build_and_record

    week = week or due_week(services.settings, now)
    if not claim_week(services.engine, week):
        log.info("digest %s already delivered or being delivered elsewhere", week)
        return None
    try:
        digest, md, html = build_and_record(services, week)
        if deliver is None:
            from bot.loop.digest_delivery import deliver_digest as deliver
        deliver(services, digest, md, html)
    except BaseException:
        release_week(services.engine, week)
        raise
    log.info("digest %s delivered", week)
    from bot.loop.digest import build_office_digests

    build_office_digests(services, week, deliver=deliver)  # campus mode: each office gets its own (the campus lead's above covers all)
    return week


def start_scheduler(services: "Services", *, deliver: Deliver | None = None, catch_up: bool = True) -> "BackgroundScheduler":
    """A started background scheduler with the weekly cron; a missed run is caught up right away."""
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.triggers.cron import CronTrigger

    d = services.settings.digest
    tz = ZoneInfo(d.timezone)
    scheduler = BackgroundScheduler(timezone=tz)
    job = lambda: _safe_run(services, deliver)  # noqa: E731
    scheduler.add_job(job, CronTrigger(day_of_week=d.weekday, hour=d.hour, minute=d.minute, timezone=tz), id=JOB_ID, coalesce=True, max_instances=1, misfire_grace_time=6 * 3600, replace_existing=True)
    if catch_up:
        scheduler.add_job(job, "date", run_date=datetime.now(tz), id=f"{JOB_ID}-catch-up", misfire_grace_time=None)
    if services.settings.gate.retrain_weekly:
        from bot.learning.routing import retrain_router_weekly

        retrain = lambda: (retrain_gate_weekly(services), retrain_router_weekly(services), calibrate_weekly(services))  # noqa: E731  (campus mode: the router too)
        scheduler.add_job(retrain, CronTrigger(day_of_week=d.weekday, hour=RETRAIN_HOUR, timezone=tz), id=RETRAIN_JOB_ID, coalesce=True, max_instances=1, misfire_grace_time=6 * 3600, replace_existing=True)
    scheduler.start()
    return scheduler


def retrain_gate_weekly(services: "Services") -> dict | None:
    """Retrain the gate from staff decisions when there is a trained gate and new decisions; never raises."""
    from bot.learning.gate_retraining import feedback_examples, figures_moved, retrain_from_feedback
    from classifiers.errors import GateError

    try:
        try:
            gate = services.gate
        except GateError:
            log.info("no trained gate yet: weekly retraining skipped")
            return None
        seen = (gate.meta.get("retraining") or {}).get("n_feedback", -1)
        if len(feedback_examples(services)) == seen:
            log.info("no new staff decisions since the last retraining: skipped")
            return None
        report = retrain_from_feedback(services)
        log.info("weekly gate retraining: %s", figures_moved(report))
        return report.as_dict()
    except Exception:  # the edge: a failed retraining keeps the current gate and must not kill the scheduler
        log.exception("weekly gate retraining failed; the current gate stays")
        return None


def calibrate_weekly(services: "Services") -> dict | None:
    """Calibrate the readiness label and answer reuse against the week's staff decisions (a rule is stored only when
    surely better than the one in use on held-out decisions); never raises."""
    from bot.learning.readiness_calibration import adopt_calibration

    try:
        report = adopt_calibration(services)
        for kind in ("readiness", "reuse"):
            log.info("weekly calibration of %s: %s", kind, report[kind].get("reason"))
        return report
    except Exception:  # the edge: a failed calibration keeps the rules in use and must not kill the scheduler
        log.exception("weekly calibration failed; the rules in use stay")
        return None


def _safe_run(services: "Services", deliver: Deliver | None) -> None:
    try:
        run_weekly_digest(services, deliver=deliver)
    except Exception:  # the edge: a failed digest must not kill the scheduler; it is retried on the next start
        log.exception("scheduled weekly digest failed")
