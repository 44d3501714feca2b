"""Supervised long-running threads: restarted with backoff when they die, reported when they die or stop beating."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

log = logging.getLogger(__name__)

Beat = Callable[[], None]
Target = Callable[[Beat], None]


@dataclass
class _Supervised:
    """One named thread: what it runs and how it has been doing."""

    name: str
    target: Target
    stuck_after_s: float | None
    thread: threading.Thread | None = None
    restarts: int = 0
    last_heartbeat: float | None = None  # time.time()
    last_error: str | None = None
    started_at: float | None = None
    next_start: float = 0.0
    backoff_s: float = 0.0
    stuck_reported: bool = False
    history: list[threading.Thread] = field(default_factory=list)

    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def stuck(self, now: float) -> bool:
        return self.alive() and self.stuck_after_s is not None and self.last_heartbeat is not None and now - self.last_heartbeat > self.stuck_after_s


def _iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat() if ts is not None else None


class Supervisor:
    """Runs named threads; a thread that dies (raises or returns before stop) is restarted with exponential backoff.

    A target is `target(beat)`: it loops until `supervisor.stop_event` is set and calls `beat()` whenever it makes
    progress; one that has not beaten for `stuck_after_s` is reported stuck (it cannot be killed, only shown)."""

    def __init__(self, *, min_backoff_s: float = 1.0, max_backoff_s: float = 300.0, check_every_s: float = 1.0, stop_event: threading.Event | None = None) -> None:
        self.min_backoff_s, self.max_backoff_s, self.check_every_s = min_backoff_s, max_backoff_s, check_every_s
        self.stop_event = stop_event or threading.Event()
        self._items: dict[str, _Supervised] = {}
        self._lock = threading.RLock()
        self._monitor: threading.Thread | None = None

    # -------------------------------------------------------------- managing threads
    def add(self, name: str, target: Target, *, stuck_after_s: float | None = None) -> None:
        """Supervise `target` under `name` (started at once when the supervisor is running)."""
        with self._lock:
            if name in self._items:
                raise ValueError(f"a thread named {name!r} is already supervised")
            item = self._items[name] = _Supervised(name, target, stuck_after_s, backoff_s=self.min_backoff_s)
            if self._monitor is not None:
                self._launch(item)

    def start(self) -> "Supervisor":
        with self._lock:
            for item in self._items.values():
                if item.thread is None:
                    self._launch(item)
            self._monitor = threading.Thread(target=self._watch, name="orienta-supervisor", daemon=True)
            self._monitor.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if self._monitor is not None:
            self._monitor.join(max(0.0, deadline - time.monotonic()))

    def beat(self, name: str) -> None:
        """`name` made progress now."""
        item = self._items.get(name)
        if item is not None:
            item.last_heartbeat = time.time()
            if item.stuck_reported:
                log.warning("thread %s is beating again", name)
                item.stuck_reported = False

    @property
    def threads(self) -> list[threading.Thread]:
        """Every thread this supervisor started (current and earlier incarnations)."""
        with self._lock:
            return [t for item in self._items.values() for t in item.history]

    # -------------------------------------------------------------- health
    def status(self) -> dict[str, dict]:
        """Per thread: alive, stuck, restarts, last_heartbeat and last_error."""
        now = time.time()
        with self._lock:
            return {
                name: {
                    "alive": item.alive(),
                    "stuck": item.stuck(now),
                    "restarts": item.restarts,
                    "last_heartbeat": _iso(item.last_heartbeat),
                    "last_error": item.last_error,
                }
                for name, item in self._items.items()
            }

    def ready(self) -> bool:
        """Every supervised thread is running and none is stuck."""
        now = time.time()
        with self._lock:
            return bool(self._items) and all(item.alive() and not item.stuck(now) for item in self._items.values())

    # -------------------------------------------------------------- internals
    def _launch(self, item: _Supervised) -> None:
        def run() -> None:
            try:
                item.target(lambda: self.beat(item.name))
            except BaseException as exc:  # the edge of a thread: record, log, let the monitor restart it
                item.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("thread %s died", item.name)
                return
            if not self.stop_event.is_set():
                item.last_error = "returned before stop"
                log.error("thread %s ended on its own", item.name)

        item.started_at = item.last_heartbeat = time.time()
        item.thread = threading.Thread(target=run, name=f"orienta-{item.name}", daemon=True)
        item.history.append(item.thread)
        item.thread.start()

    def _watch(self) -> None:
        while not self.stop_event.wait(self.check_every_s):
            now = time.time()
            with self._lock:
                for item in self._items.values():
                    if self.stop_event.is_set():
                        return
                    if item.thread is not None and not item.alive():
                        self._maybe_restart(item)
                    elif item.stuck(now) and not item.stuck_reported:
                        item.stuck_reported = True
                        log.error("thread %s is stuck: no heartbeat for %.0f s (limit %.0f s)", item.name, now - (item.last_heartbeat or now), item.stuck_after_s or 0)

    def _maybe_restart(self, item: _Supervised) -> None:
        mono = time.monotonic()
        if item.next_start == 0.0:
            item.next_start = mono + item.backoff_s * (0.5 + random.random() / 2)
            log.error("thread %s is dead (%s); restarting in %.1f s", item.name, item.last_error, item.next_start - mono)
            return
        if mono < item.next_start:
            return
        healthy_for = time.time() - (item.started_at or 0)
        item.backoff_s = self.min_backoff_s if healthy_for > 10 * self.max_backoff_s else min(item.backoff_s * 2, self.max_backoff_s)
        item.next_start = 0.0
        item.restarts += 1
        log.warning("restarting thread %s (restart %d)", item.name, item.restarts)
        self._launch(item)
