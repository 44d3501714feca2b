"""A local stand-in for Slack's Socket Mode WebSocket endpoint, opened through ``apps.connections.open``.

Protocol (https://docs.slack.dev/apis/events-api/using-socket-mode/):

* The app calls ``apps.connections.open`` on the Web API with its **app-level token** (``xapp-...``) in the
  ``Authorization`` header; the answer is ``{"ok": true, "url": "wss://.../link/?ticket=..."}`` (here ``ws://``
  on loopback).  A bot or user token gets ``not_allowed_token_type``; the token as a POST parameter is an
  error too (https://docs.slack.dev/reference/methods/apps.connections.open/).  ``FakeSlackServer`` enforces
  this when a ``FakeSocketMode`` is attached to it.
* A ticket opens one connection, once; an unknown or used ticket is refused at the HTTP upgrade (401).
* On connect Slack sends ``{"type": "hello", "num_connections": n, "connection_info": {"app_id": ...}, ...}``.
* Each event or interaction arrives as an envelope ``{"envelope_id", "type": "events_api"|"interactive"|
  "slash_commands", "payload", "accepts_response_payload", "retry_attempt", "retry_reason"}``; the app must
  answer ``{"envelope_id": ...}`` (optionally with ``"payload"``) within 3 seconds.  An Events API envelope
  that is not acknowledged in time is delivered again with ``retry_attempt`` + 1 and ``retry_reason: "timeout"``
  (at most 3 retries); an interactive one is not (the user sees an error instead).
* ``{"type": "disconnect", "reason": "refresh_requested"}`` asks the app to open a new connection.
"""

from __future__ import annotations

import http
import json
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.sync.server import ServerConnection, serve

__all__ = ["FakeSocketMode", "Envelope"]

ACK_TIMEOUT_S = 3.0
MAX_RETRIES = 3


@dataclass
class Envelope:
    envelope_id: str
    type: str
    payload: dict
    attempts: int = 0
    acked: bool = False
    ack_payload: Any = None
    acked_at: float | None = None
    sent_at: list[float] = field(default_factory=list)


class FakeSocketMode:
    """The WebSocket side of Socket Mode; attach it to a FakeSlackServer with ``slack_server.attach_socket_mode(self)``."""

    def __init__(self, *, app_tokens: tuple[str, ...] = ("xapp-1-A0APP0001-test",), app_id: str = "A0APP0001",
                 ack_timeout_s: float = ACK_TIMEOUT_S) -> None:
        self.app_tokens = set(app_tokens)
        self.app_id = app_id
        self.ack_timeout_s = ack_timeout_s
        self.tickets: dict[str, bool] = {}  # ticket -> used
        self.connections: list[ServerConnection] = []
        self.connects = 0
        self.refused_upgrades = 0
        self.envelopes: dict[str, Envelope] = {}
        self.stray_acks: list[dict] = []
        self._cond = threading.Condition()
        self._server = serve(self._session, "127.0.0.1", 0, process_request=self._check_ticket)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self._server.socket.getsockname()[1]

    def stop(self) -> None:
        self._server.shutdown()

    # ------------------------------------------------------------ Web API side
    def open_connection(self, token: str | None, *, from_header: bool) -> str:
        """What apps.connections.open answers for this token; raises SlackError like Slack does."""
        from tests.servers.slack_server import SlackError

        if not token:
            raise SlackError("not_authed")
        if not from_header:
            raise SlackError("invalid_auth")  # the app-level token must come in the Authorization header
        if not token.startswith("xapp-"):
            raise SlackError("not_allowed_token_type")
        if token not in self.app_tokens:
            raise SlackError("invalid_auth")
        ticket = secrets.token_hex(16)
        with self._cond:
            self.tickets[ticket] = False
        return f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}&app_id={self.app_id}"

    def _check_ticket(self, connection: ServerConnection, request):
        ticket = (parse_qs(urlsplit(request.path).query).get("ticket") or [""])[0]
        with self._cond:
            if self.tickets.get(ticket) is not False:
                self.refused_upgrades += 1
                return connection.respond(http.HTTPStatus.UNAUTHORIZED, "invalid or used ticket\n")
            self.tickets[ticket] = True
        return None

    # ------------------------------------------------------------ the WebSocket
    def _session(self, ws: ServerConnection) -> None:
        with self._cond:
            self.connections.append(ws)
            self.connects += 1
            n = len(self.open_connections())
            self._cond.notify_all()
        ws.send(json.dumps({
            "type": "hello", "num_connections": n,
            "debug_info": {"host": "applink-fake", "build_number": 1, "approximate_connection_time": 18060},
            "connection_info": {"app_id": self.app_id},
        }))
        try:
            for raw in ws:
                self._on_message(raw)
        except Exception:  # the client went away
            pass
        finally:
            with self._cond:
                if ws in self.connections:
                    self.connections.remove(ws)
                self._cond.notify_all()

    def _on_message(self, raw: str | bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            return
        with self._cond:
            env = self.envelopes.get(msg.get("envelope_id", ""))
            if env is None or env.acked:
                self.stray_acks.append(msg)
            else:
                env.acked, env.ack_payload, env.acked_at = True, msg.get("payload"), time.time()
            self._cond.notify_all()

    def wait_connected(self, count: int = 1, timeout: float = 10.0) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self.connects >= count and self.connections, timeout):
                raise TimeoutError(f"no Socket Mode connection #{count} within {timeout}s")

    def open_connections(self) -> list[ServerConnection]:
        """The connections still open.  ``connection.protocol.state``, not ``connection.state``: the latter only
        exists from websockets 14 on, and the test extra allows 13."""
        return [c for c in self.connections if c.protocol.state.name == "OPEN"]

    def _send(self, env: Envelope) -> None:
        with self._cond:
            live = self.open_connections()
        if not live:
            raise RuntimeError("no Socket Mode connection is open")
        env.attempts += 1
        env.sent_at.append(time.time())
        live[-1].send(json.dumps({
            "envelope_id": env.envelope_id, "type": env.type, "payload": env.payload,
            "accepts_response_payload": env.type != "events_api",
            "retry_attempt": env.attempts - 1, "retry_reason": "timeout" if env.attempts > 1 else "",
        }))

    def deliver(self, payload: dict, *, type: str = "events_api") -> Envelope:
        """Send one envelope and, for Events API envelopes, redeliver it while it is not acknowledged in time."""
        env = Envelope(str(uuid.uuid4()), type, payload)
        with self._cond:
            self.envelopes[env.envelope_id] = env
        self._send(env)
        if type == "events_api":
            threading.Thread(target=self._retry_unacked, args=(env,), daemon=True).start()
        return env

    def _retry_unacked(self, env: Envelope) -> None:
        while env.attempts <= MAX_RETRIES:
            with self._cond:
                if self._cond.wait_for(lambda: env.acked, self.ack_timeout_s):
                    return
            if env.attempts > MAX_RETRIES:
                return
            try:
                self._send(env)
            except RuntimeError:
                return

    def wait_acked(self, env: Envelope, timeout: float = 5.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: env.acked, timeout)

    def request_refresh(self) -> None:
        """Ask the app to reconnect, as Slack does every few hours."""
        with self._cond:
            live = self.open_connections()
        for c in live:
            c.send(json.dumps({"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "applink-fake"}}))
