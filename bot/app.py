"""The long-running `orienta run`: IMAP IDLE/poll, the Slack HTTP (or Socket Mode) listener, and periodic jobs."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from bot import worker
from bot.services import Services

log = logging.getLogger(__name__)


@dataclass
class Job:
    """A periodic job: `fn(services)` every `interval_s` seconds (and at once when the app is woken for `wake_on`)."""

    name: str
    interval_s: float
    fn: Callable[[Services], object]
    wake_on_intake: bool = False
    next_run: float = 0.0
    runs: int = 0
    errors: int = 0
    last_error: str | None = None


def _drafting(services: Services) -> worker.RunReport:
    report = worker.RunReport()
    worker.draft_pending(services, report)
    return report


def _sending(services: Services) -> worker.RunReport:
    report = worker.RunReport()
    worker.send_approved(services, report)
    return report


def _maildir(services: Services) -> worker.RunReport:
    report = worker.RunReport()
    worker.intake_maildir(services, report)
    return report


def default_jobs(services: Services) -> list[Job]:
    """Drafting, sending and (embedded mode) the Maildir source; other packages append their own (review cards, digest)."""
    jobs = [Job("draft", 5.0, _drafting, wake_on_intake=True), Job("send", 10.0, _sending)]
    if services.settings.paths.maildir is not None:
        jobs.append(Job("maildir", services.settings.imap.poll_seconds, _maildir))
    return jobs


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - signature fixed by the base class
        log.debug("slack http: " + format, *args)


@dataclass
class OrientaApp:
    """The channels and the periodic jobs, each in its own thread; `stop()` ends them all."""

    services: Services
    jobs: list[Job] = field(default_factory=list)
    imap: bool | None = None
    slack: bool | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    wake_event: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)
    http_server: WSGIServer | None = None

    def __post_init__(self) -> None:
        s = self.services.settings
        if not self.jobs:
            self.jobs = default_jobs(self.services)
        if self.imap is None:
            self.imap = bool(s.imap.host)
        if self.slack is None:
            self.slack = s.slack.bot_token is not None
        self._intake = None
        self._socket_handler = None

    def add_job(self, job: Job) -> None:
        """Add a periodic job (before or after start)."""
        self.jobs.append(job)
        self.wake_event.set()

    def wake(self) -> None:
        """New input arrived: run the jobs that react to intake now."""
        for job in self.jobs:
            if job.wake_on_intake:
                job.next_run = 0.0
        self.wake_event.set()

    # -------------------------------------------------------------- threads
    def _thread(self, name: str, target: Callable[[], None]) -> None:
        t = threading.Thread(target=target, name=f"orienta-{name}", daemon=True)
        t.start()
        self.threads.append(t)

    def _run_jobs(self) -> None:
        while not self.stop_event.is_set():
            now = time.monotonic()
            for job in list(self.jobs):
                if self.stop_event.is_set() or job.next_run > now:
                    continue
                try:
                    job.fn(self.services)
                    job.runs += 1
                except Exception as exc:  # the edge: one failing job must not stop the others
                    job.errors += 1
                    job.last_error = f"{type(exc).__name__}: {exc}"
                    log.exception("job %s failed", job.name)
                job.next_run = time.monotonic() + job.interval_s
            due = min((j.next_run for j in self.jobs), default=time.monotonic() + 1.0)
            self.wake_event.wait(max(0.05, min(due - time.monotonic(), 1.0)))
            self.wake_event.clear()

    def _start_imap(self) -> None:
        from bot.email.imap import ImapIntake

        s = self.services.settings
        self._intake = ImapIntake(s.imap, engine=self.services.engine, own_address=s.smtp.from_)
        self._thread("imap", lambda: self._intake.run_forever(on_sync=lambda r: self.wake() if r.stored else None))

    def _start_slack(self) -> None:
        from bot.slack.app import build_app

        s = self.services.settings.slack
        bolt = build_app(self.services)
        if s.socket_mode:
            from slack_bolt.adapter.socket_mode import SocketModeHandler

            if s.app_token is None:
                raise ValueError("Slack Socket Mode needs ORIENTA_SLACK__APP_TOKEN")
            self._socket_handler = SocketModeHandler(bolt, s.app_token.get_secret_value())
            self._socket_handler.connect()
            return
        from slack_bolt.adapter.wsgi import SlackRequestHandler

        self.http_server = make_server(s.host, s.port, SlackRequestHandler(bolt), server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)
        log.info("Slack events on http://%s:%s/slack/events", s.host, self.http_server.server_port)
        self._thread("slack-http", self.http_server.serve_forever)

    def start(self) -> "OrientaApp":
        if self.imap:
            self._start_imap()
        if self.slack:
            self._start_slack()
        self._thread("jobs", self._run_jobs)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        self.wake_event.set()
        if self._intake is not None:
            self._intake.stop()
        if self.http_server is not None:
            self.http_server.shutdown()
            self.http_server.server_close()
        if self._socket_handler is not None:
            self._socket_handler.close()
        for t in self.threads:
            t.join(timeout)

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
