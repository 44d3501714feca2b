"""The long-running `orienta run`: IMAP IDLE/poll, the Slack HTTP (or Socket Mode) listener, and periodic jobs."""

from __future__ import annotations

import logging
import signal
import threading
import time
from functools import partial
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.loop.drafting import draft_pending
from bot.loop.intake import intake_maildir
from bot.wiring import metrics
from bot.loop.run_report import RunReport
from bot.loop.sending import send_approved, send_now
from bot.wiring.services import Services
from bot.loop.supervisor import Beat, Supervisor

if TYPE_CHECKING:
    from bot.slack.listener import SlackListener

log = logging.getLogger(__name__)


@dataclass
class Job:
    """A periodic job: `fn(services)` every `interval_s` seconds (and at once when the app is woken for `wake_on`)."""

    name: str
    interval_s: float
    fn: Callable[[Services], object]
    wake_on_intake: bool = False
    thread: str = "jobs"  # jobs sharing a name run one after another in one supervised thread
    next_run: float = 0.0
    runs: int = 0
    errors: int = 0
    last_error: str | None = None


def _drafting(services: Services) -> RunReport:
    report = RunReport()
    draft_pending(services, report)
    return report


def _sending(services: Services) -> RunReport:
    report = RunReport()
    send_approved(services, report)
    return report


def _maildir(services: Services) -> RunReport:
    report = RunReport()
    intake_maildir(services, report)
    return report


def default_jobs(services: Services) -> list[Job]:
    """Drafting, sending and (embedded mode) the Maildir source; other packages append their own (review cards, digest)."""
    jobs = [Job("draft", 5.0, _drafting, wake_on_intake=True), Job("send", 10.0, _sending, thread="sender")]
    if services.settings.paths.maildir is not None:
        jobs.append(Job("maildir", services.settings.imap.poll_seconds, _maildir))
    return jobs


@dataclass
class OrientaApp:
    """The channels and the periodic jobs, each in its own thread; `stop()` ends them all."""

    services: Services
    jobs: list[Job] = field(default_factory=list)
    imap: bool | None = None
    slack: bool | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    wake_event: threading.Event = field(default_factory=threading.Event)
    job_stuck_after_s: float = 1800.0
    slack_listener: "SlackListener | None" = None

    def __post_init__(self) -> None:
        s = self.services.settings
        if not self.jobs:
            self.jobs = default_jobs(self.services)
        if self.imap is None:
            self.imap = bool(s.imap.host)
        if self.slack is None:
            self.slack = s.slack.bot_token is not None
        self._intake = None
        self._started = False
        self.supervisor = Supervisor(stop_event=self.stop_event)

    @property
    def threads(self) -> list[threading.Thread]:
        """Every thread the app started (supervised restarts included)."""
        return self.supervisor.threads

    def add_job(self, job: Job) -> None:
        """Add a periodic job (before or after start)."""
        self.jobs.append(job)
        if self._started and job.thread not in self.supervisor.status():
            self._supervise_jobs(job.thread)
        self.wake_event.set()

    def wake(self) -> None:
        """New input arrived: run the jobs that react to intake now."""
        for job in self.jobs:
            if job.wake_on_intake:
                job.next_run = 0.0
        self.wake_event.set()

    # -------------------------------------------------------------- threads
    def _thread(self, name: str, target: Callable[[], None]) -> None:
        """A supervised thread that cannot report progress (e.g. an HTTP server): restarted when it dies, never called stuck."""
        self.supervisor.add(name, lambda _beat: target())

    def _supervise_jobs(self, thread: str) -> None:
        self.supervisor.add(thread, lambda beat: self._run_jobs(beat, thread), stuck_after_s=self.job_stuck_after_s)

    def _run_jobs(self, beat: Beat | None = None, thread: str = "jobs") -> None:
        while not self.stop_event.is_set():
            now = time.monotonic()
            mine = [j for j in list(self.jobs) if j.thread == thread]
            for job in mine:
                if self.stop_event.is_set() or job.next_run > now:
                    continue
                try:
                    job.fn(self.services)
                    job.runs += 1
                except Exception as exc:  # the edge: one failing job must not stop the others
                    job.errors += 1
                    job.last_error = f"{type(exc).__name__}: {exc}"
                    metrics.JOB_FAILURES.labels(job=job.name).inc()
                    log.exception("job %s failed", job.name)
                job.next_run = time.monotonic() + job.interval_s
                if beat is not None:
                    beat()
            if beat is not None:
                beat()
            due = min((j.next_run for j in mine), default=time.monotonic() + 1.0)
            self.wake_event.wait(max(0.05, min(due - time.monotonic(), 1.0)))
            self.wake_event.clear()

    def _start_imap(self) -> None:
        from bot.email.imap import ImapIntake

        s = self.services.settings
        self._intake = ImapIntake(s.imap, engine=self.services.engine, own_address=s.smtp.own_addresses, question_max_chars=s.drafting.question_max_chars)
        intake = self._intake

        def imap(beat: Beat) -> None:
            def synced(report) -> None:
                beat()
                metrics.mailbox_polled()
                if report.stored:
                    self.wake()

            try:
                intake.run_forever(on_sync=synced)
            finally:
                intake.close()

        # IDLE is renewed every idle_renew_minutes; no sync for a few renewals (or reconnect waits) means stuck.
        stuck = 3 * max(s.imap.idle_renew_minutes * 60, s.imap.poll_seconds) + s.imap.reconnect_max_s + s.imap.timeout_s
        self.supervisor.add("imap", imap, stuck_after_s=stuck)

    def _start_slack(self) -> None:
        from bot.slack.listener import SlackListener

        self.slack_listener = SlackListener(self.services, send=partial(send_now, self.services)).start()

    def start(self) -> "OrientaApp":
        if self.imap:
            self._start_imap()
        if self.slack:
            self._start_slack()
        for thread in dict.fromkeys(j.thread for j in self.jobs):
            self._supervise_jobs(thread)
        self.supervisor.start()
        self._started = True
        return self

    def status(self) -> dict[str, dict]:
        """Health of every supervised thread (for /readyz and logs)."""
        return self.supervisor.status()

    def ready(self) -> bool:
        return self.supervisor.ready()

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        self.wake_event.set()
        if self._intake is not None:
            self._intake.stop()
        if self.slack_listener is not None:
            self.slack_listener.stop(timeout)
        self.supervisor.stop(timeout)

    def run(self) -> None:
        """Start everything and block until SIGINT/SIGTERM."""
        self.start()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.stop_event.set())
        try:
            while not self.stop_event.wait(1.0):
                pass
        finally:
            self.stop()
