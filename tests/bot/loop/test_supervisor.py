"""Supervised threads (issue 14): a dead thread is restarted with backoff and logged; a stuck one shows in status() and ready()."""

from __future__ import annotations

import logging
import threading
import time

from bot.loop.supervisor import Supervisor


def wait_for(cond, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_a_thread_that_dies_is_restarted_with_backoff_and_logged(caplog):
    sup = Supervisor(min_backoff_s=0.05, max_backoff_s=0.2, check_every_s=0.02)
    runs: list[float] = []

    def flaky(beat) -> None:
        runs.append(time.monotonic())
        if len(runs) < 3:
            raise OverflowError("date value out of range")
        while not sup.stop_event.wait(0.02):
            beat()

    with caplog.at_level(logging.WARNING, logger="bot.loop.supervisor"):
        sup.add("imap", flaky)
        sup.start()
        assert wait_for(lambda: sup.status()["imap"]["restarts"] == 2 and sup.status()["imap"]["alive"])
    status = sup.status()["imap"]
    assert status["last_error"] == "OverflowError: date value out of range" and status["last_heartbeat"]
    assert runs[1] - runs[0] >= 0.02 and runs[2] - runs[1] >= 0.02  # waited (backoff) before each restart
    assert sup.ready()
    assert any("thread imap died" in r.getMessage() for r in caplog.records) and any("restarting thread imap" in r.getMessage() for r in caplog.records)
    sup.stop(2)
    assert not any(t.is_alive() for t in sup.threads)


def test_a_thread_that_stops_beating_is_stuck_and_not_ready(caplog):
    sup = Supervisor(check_every_s=0.02)
    release = threading.Event()

    def hangs(beat) -> None:
        beat()
        release.wait(10)  # e.g. a socket read without timeout

    def healthy(beat) -> None:
        while not sup.stop_event.wait(0.02):
            beat()

    with caplog.at_level(logging.ERROR, logger="bot.loop.supervisor"):
        sup.add("sender", hangs, stuck_after_s=0.2)
        sup.add("jobs", healthy, stuck_after_s=0.2)
        sup.start()
        assert wait_for(lambda: sup.status()["sender"]["stuck"])
        assert not sup.ready() and sup.status()["jobs"] == {**sup.status()["jobs"], "alive": True, "stuck": False}
        assert wait_for(lambda: any("thread sender is stuck" in r.getMessage() for r in caplog.records))
    release.set()
    sup.stop(2)


def test_a_thread_returning_on_its_own_counts_as_dead():
    sup = Supervisor(min_backoff_s=0.01, max_backoff_s=0.02, check_every_s=0.02)
    sup.add("slack-http", lambda beat: None)
    sup.start()
    assert wait_for(lambda: sup.status()["slack-http"]["restarts"] >= 1)
    assert sup.status()["slack-http"]["last_error"] == "returned before stop"
    sup.stop(2)


def test_the_app_supervises_imap_jobs_and_sender(settings):
    from bot.loop.app import Job, OrientaApp
    from bot.wiring.services import Services

    settings.gate.enabled = False
    svc = Services(settings)
    calls: list[str] = []
    app = OrientaApp(svc, jobs=[Job("tick", 0.05, lambda _s: calls.append("tick")), Job("send", 0.05, lambda _s: calls.append("send"), thread="sender")], imap=False, slack=False)
    app.start()
    try:
        assert wait_for(lambda: "tick" in calls and "send" in calls)
        assert set(app.status()) == {"jobs", "sender"} and app.ready()
    finally:
        app.stop(5)
        svc.close()
    assert not any(t.is_alive() for t in app.threads)
