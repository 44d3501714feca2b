"""The weekly digest runs once per ISO week: two workers, a restart, a missed run caught up on start."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import pytest
from sqlmodel import Session

from bot.loop.scheduler import JOB_ID, claim_week, due_week, run_weekly_digest, start_scheduler
from bot.wiring.services import Services
from review.models import DigestRun
from tests.review.databases import temp_engine


def _worker(settings, name: str, db_url: str) -> Services:
    """A separate process's view: its own data dir (and local index) but the shared database."""
    s = settings.model_copy(deep=True)
    s.paths.data_dir = settings.paths.data_dir.parent / name
    s.database.url = db_url
    return Services(s)


class Recorder:
    def __init__(self, delay: float = 0.0) -> None:
        self.weeks: list[str] = []
        self.delay, self.event = delay, threading.Event()
        self._lock = threading.Lock()

    def __call__(self, services, digest, md, html) -> None:
        time.sleep(self.delay)
        with self._lock:
            self.weeks.append(digest.week)
        assert md.exists() and html.exists()
        self.event.set()


def test_due_week_follows_the_local_schedule(settings):
    settings.digest.timezone = "America/Montevideo"  # UTC-3, Monday 08:00
    assert due_week(settings, datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)) == "2026-W46"  # 07:00 local, not yet
    assert due_week(settings, datetime(2026, 11, 23, 11, 0, tzinfo=timezone.utc)) == "2026-W47"  # 08:00 local
    assert due_week(settings, datetime(2026, 11, 27, 12, 0, tzinfo=timezone.utc)) == "2026-W47"  # later that week
    settings.digest.weekday, settings.digest.hour = "fri", 17
    assert due_week(settings, datetime(2026, 11, 27, 19, 59, tzinfo=timezone.utc)) == "2026-W46"


def test_two_workers_deliver_one_digest(settings, tmp_path):
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    a, b = _worker(settings, "a", db), _worker(settings, "b", db)
    a.engine, b.engine  # create the schema before racing
    rec = Recorder(delay=0.3)
    results: list[str | None] = []
    threads = [threading.Thread(target=lambda s=s: results.append(run_weekly_digest(s, week="2026-W47", deliver=rec))) for s in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert rec.weeks == ["2026-W47"]
    assert sorted(results, key=str) == ["2026-W47", None]
    with Session(a.engine) as session:
        run = session.get(DigestRun, "2026-W47")
        assert run.sent_at is not None and run.figures["week"] == "2026-W47" and run.html_path.endswith("digest-2026-W47.html")
    # a restart (fresh services on the same database) does not send it again
    again = _worker(settings, "a2", db)
    assert run_weekly_digest(again, week="2026-W47", deliver=rec) is None
    assert rec.weeks == ["2026-W47"]


def test_failed_delivery_is_released_for_a_retry(settings):
    services = Services(settings)

    def boom(*_):
        raise ConnectionError("smtp down")

    try:
        run_weekly_digest(services, week="2026-W47", deliver=boom)
    except ConnectionError:
        pass
    else:
        raise AssertionError("the delivery error must propagate")
    rec = Recorder()
    assert run_weekly_digest(services, week="2026-W47", deliver=rec) == "2026-W47" and rec.weeks == ["2026-W47"]
    assert claim_week(services.engine, "2026-W47") is False


def test_scheduler_catches_up_then_a_restart_does_nothing(settings):
    settings.digest.timezone = "America/Montevideo"
    services = Services(settings)
    rec = Recorder()
    scheduler = start_scheduler(services, deliver=rec)
    try:
        assert rec.event.wait(30), "the missed run was not caught up on start"
        job = scheduler.get_job(JOB_ID)
        nxt = job.next_run_time
        assert (nxt.weekday(), nxt.hour, nxt.minute, str(nxt.tzinfo)) == (0, 8, 0, "America/Montevideo")
    finally:
        scheduler.shutdown(wait=True)
    assert rec.weeks == [due_week(settings)]
    restarted = start_scheduler(Services(settings), deliver=rec)
    try:
        deadline = time.time() + 30
        while restarted.get_job(f"{JOB_ID}-catch-up") is not None and time.time() < deadline:
            time.sleep(0.05)
    finally:
        restarted.shutdown(wait=True)  # waits for the catch-up job to finish
    assert rec.weeks == [due_week(settings)]


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_claim_is_atomic_under_contention(kind, tmp_path):
    with temp_engine(kind, tmp_path) as engine:
        barrier, wins = threading.Barrier(6), []

        def race() -> None:
            barrier.wait()
            wins.append(claim_week(engine, "2026-W47"))

        threads = [threading.Thread(target=race) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(wins) == [False] * 5 + [True]
