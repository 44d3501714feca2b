"""Readiness checks of a running orienta: the database, Qdrant, the mailbox's last successful read, Slack auth."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.wiring import metrics

if TYPE_CHECKING:
    from bot.wiring.services import Services

Check = tuple[str, Callable[[], tuple[bool, str]]]


def database(svc: "Services") -> tuple[bool, str]:
    from sqlalchemy import text

    with svc.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return True, svc.engine.dialect.name


def qdrant(svc: "Services") -> tuple[bool, str]:
    names = [c.name for c in svc.index.client.get_collections().collections]
    collection = svc.settings.qdrant.collection
    return True, f"{'server' if svc.settings.qdrant.url else 'local'}, collection {collection} {'present' if collection in names else 'not created yet'}"


def mailbox(svc: "Services", *, now: Callable[[], float] = time.time) -> tuple[bool, str]:
    s = svc.settings
    if not s.imap.host:
        return True, "IMAP not configured"
    last = metrics.last_mailbox_poll()
    if last is None:
        return False, f"{s.imap.account}: not read successfully yet"
    age = now() - last
    ok = age <= s.ops.mailbox_stale_after_s
    return ok, f"{s.imap.account}: last successful read {age:.0f} s ago" + ("" if ok else f" (more than {s.ops.mailbox_stale_after_s:.0f} s)")


class SlackAuth:
    """auth.test, remembered for `ttl_s` so that frequent /readyz probes do not spend Slack's rate limit."""

    def __init__(self, svc: "Services", ttl_s: float = 60.0) -> None:
        self.svc, self.ttl_s = svc, ttl_s
        self._lock = threading.Lock()
        self._cached: tuple[float, tuple[bool, str]] | None = None

    def __call__(self) -> tuple[bool, str]:
        if self.svc.settings.slack.bot_token is None:
            return True, "Slack not configured"
        with self._lock:
            if self._cached is not None and time.monotonic() - self._cached[0] < self.ttl_s:
                return self._cached[1]
            result = self._auth_test()
            self._cached = (time.monotonic(), result)
            return result

    def _auth_test(self) -> tuple[bool, str]:
        from slack_sdk.errors import SlackApiError

        from bot.slack.app import web_client

        try:
            resp = web_client(self.svc).auth_test()
        except SlackApiError as exc:
            return False, f"auth.test: {exc.response.get('error', exc)}"
        return True, f"team {resp.get('team')}, bot user {resp.get('user_id')}"


def default_checks(svc: "Services") -> list[Check]:
    return [("database", lambda: database(svc)), ("qdrant", lambda: qdrant(svc)), ("mailbox", lambda: mailbox(svc)), ("slack", SlackAuth(svc))]


def run_checks(checks: list[Check]) -> list[dict]:
    """Each check as {"check", "ok", "detail"}; a check that raises is failed with the error as detail."""
    results = []
    for name, fn in checks:
        try:
            ok, detail = fn()
        except Exception as exc:  # noqa: BLE001 - a probe reports, it never crashes the endpoint
            ok, detail = False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        results.append({"check": name, "ok": bool(ok), "detail": detail})
    return results
