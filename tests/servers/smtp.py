"""A real SMTP server (aiosmtpd) on loopback that records what it receives.

``SmtpServer`` runs an aiosmtpd ``Controller`` in a background thread on
``127.0.0.1:<free port>`` (plain SMTP, no TLS).  Every accepted message is
appended to ``server.messages`` (a thread-safe list copy) as a
:class:`ReceivedMessage` with ``mail_from``, ``rcpt_tos``, ``data`` (the raw
bytes exactly as received, CRLF line endings, dot-unstuffed) and ``auth_login``.

Failure injection (each applies to the next N transactions, in the order they
were queued; every queued rule is used up once it fires):

* ``fail_next(n, code=451, text=..., stage="DATA")`` - reply ``code text`` at
  the given stage instead of accepting: ``"MAIL"`` (MAIL FROM), ``"RCPT"``
  (every RCPT TO of that transaction counts as one use, so a 2-recipient mail
  uses 2) or ``"DATA"`` (after the message was transferred; nothing is
  recorded).  4xx codes are transient for smtplib (``SMTPDataError`` /
  ``SMTPRecipientsRefused`` / ``SMTPSenderRefused`` carry the code), 5xx
  permanent - the server itself does not care which one you pick.
* ``drop_next(n, after_accept=True)`` - at end of DATA, close the TCP
  connection (abort, no reply at all).  With ``after_accept=True`` the message
  IS recorded first: the server "accepted" it but the client never saw
  ``250`` - a crash after acceptance, the classic duplicate-delivery case.  With
  ``after_accept=False`` nothing is recorded.  smtplib raises
  ``SMTPServerDisconnected`` in both cases.

Optional AUTH: ``SmtpServer(credentials=("user", "pw"))`` advertises AUTH
PLAIN/LOGIN without TLS and only accepts those credentials;
``auth_required=True`` additionally refuses mail from unauthenticated
sessions (530).

TLS: ``SmtpServer(tls=<server SSLContext>)`` requires STARTTLS before any
MAIL/AUTH (port 587 style); with ``implicit_tls=True`` the whole connection is
TLS (SMTPS, port 465 style).  AUTH is then only offered after TLS.

XOAUTH2: ``SmtpServer(xoauth2=check)`` offers AUTH XOAUTH2 and calls
``check(user, token) -> bool``; a refused token gets what Gmail sends: a 334
challenge carrying a base64 JSON error, then ``535 5.7.8`` after the client's
empty reply (https://developers.google.com/gmail/imap/xoauth2-protocol).
``server.xoauth2_logins`` lists the users whose token was accepted.
"""
from __future__ import annotations

import base64
import email
import email.message
import email.policy
import json
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

__all__ = ["SmtpServer", "ReceivedMessage", "RecordingHandler"]

_STAGES = ("MAIL", "RCPT", "DATA")


@dataclass
class ReceivedMessage:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    auth_login: str | None = None
    peer: tuple | None = None
    received_at: float = field(default_factory=time.time)

    @property
    def message(self) -> email.message.EmailMessage:
        return email.message_from_bytes(self.data, policy=email.policy.default)

    @property
    def subject(self) -> str | None:
        return self.message["Subject"]


@dataclass
class _Rule:
    kind: str              # "fail" | "drop"
    stage: str             # MAIL | RCPT | DATA
    remaining: int
    code: int = 451
    text: str = "4.3.0 Temporary failure (injected by test)"
    after_accept: bool = True


class RecordingHandler:
    """aiosmtpd handler: records messages and applies the injected failures."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._messages: list[ReceivedMessage] = []
        self._rules: deque[_Rule] = deque()
        self.connections_dropped = 0
        self.failures_injected = 0

    # --- rule handling -------------------------------------------------
    def add_rule(self, rule: _Rule) -> None:
        with self._lock:
            self._rules.append(rule)

    def clear_rules(self) -> None:
        with self._lock:
            self._rules.clear()

    def _take(self, stage: str) -> _Rule | None:
        with self._lock:
            for rule in self._rules:
                if rule.stage == stage:
                    rule.remaining -= 1
                    if rule.remaining <= 0:
                        self._rules.remove(rule)
                    return rule
        return None

    @property
    def pending_rules(self) -> int:
        with self._lock:
            return sum(r.remaining for r in self._rules)

    # --- records -------------------------------------------------------
    @property
    def messages(self) -> list[ReceivedMessage]:
        with self._lock:
            return list(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages.clear()

    def _record(self, msg: ReceivedMessage) -> None:
        with self._cond:
            self._messages.append(msg)
            self._cond.notify_all()

    def wait_for(self, count: int = 1, timeout: float = 10.0) -> list[ReceivedMessage]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"expected {count} message(s), got {len(self._messages)}")
                self._cond.wait(left)
            return list(self._messages)

    # --- aiosmtpd hooks --------------------------------------------------
    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        rule = self._take("MAIL")
        if rule is not None:
            self.failures_injected += 1
            return f"{rule.code} {rule.text}"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        rule = self._take("RCPT")
        if rule is not None:
            self.failures_injected += 1
            return f"{rule.code} {rule.text}"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        rule = self._take("DATA")
        raw = envelope.original_content
        if raw is None:
            raw = envelope.content if isinstance(envelope.content, bytes) else \
                (envelope.content or "").encode("utf-8", "surrogateescape")
        login = None
        if session.authenticated and isinstance(session.auth_data, LoginPassword):
            login = session.auth_data.login.decode("utf-8", "replace")
        record = ReceivedMessage(mail_from=envelope.mail_from, rcpt_tos=list(envelope.rcpt_tos),
                                 data=bytes(raw), auth_login=login, peer=session.peer)
        if rule is not None and rule.kind == "fail":
            self.failures_injected += 1
            return f"{rule.code} {rule.text}"
        if rule is not None and rule.kind == "drop":
            if rule.after_accept:
                self._record(record)
            self.connections_dropped += 1
            # Abort: the socket is closed at once, no reply is ever written.
            server.transport.abort()
            return "250 OK (never sent)"
        self._record(record)
        return "250 OK"


class XOAuth2Handler(RecordingHandler):
    """A RecordingHandler that also offers AUTH XOAUTH2 (aiosmtpd picks up ``auth_<MECHANISM>`` methods)."""

    def __init__(self, check: Callable[[str, str], bool]) -> None:
        super().__init__()
        self.check = check
        self.logins: list[str] = []

    async def auth_XOAUTH2(self, server, args):  # noqa: N802
        blob = base64.b64decode(args[1]) if len(args) > 1 else await server.challenge_auth("")
        if not isinstance(blob, bytes):  # client aborted
            return None
        fields = dict(p.split("=", 1) for p in blob.decode("utf-8", "replace").split("\x01") if "=" in p)
        user, auth = fields.get("user", ""), fields.get("auth", "")
        if auth.startswith("Bearer ") and self.check(user, auth[len("Bearer "):]):
            self.logins.append(user)
            return AuthResult(success=True, auth_data=user)
        error = json.dumps({"status": "401", "schemes": "Bearer", "scope": "https://mail.google.com/"})
        await server.challenge_auth(error)  # the client answers with an empty line
        return AuthResult(success=False, handled=False, message="535 5.7.8 Username and Password not accepted.")


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class SmtpServer:
    """Recording SMTP server; context manager or start()/stop().

    Attributes: ``host``, ``port``, ``handler``, ``messages`` (list copy).
    """

    def __init__(self, host: str = "127.0.0.1", port: int | None = None,
                 credentials: tuple[str, str] | None = None, auth_required: bool = False,
                 hostname: str = "smtp.orienta.test", tls: ssl.SSLContext | None = None,
                 implicit_tls: bool = False, xoauth2: Callable[[str, str], bool] | None = None) -> None:
        self.host = host
        self.tls = tls
        self.implicit_tls = implicit_tls
        self.requested_port = port
        self.port = 0
        self.credentials = credentials
        self.auth_required = auth_required
        self.server_hostname = hostname
        self.handler = RecordingHandler() if xoauth2 is None else XOAuth2Handler(xoauth2)
        self.controller: Controller | None = None

    def __enter__(self) -> "SmtpServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _authenticator(self, server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword) or self.credentials is None:
            return AuthResult(success=False, handled=False)
        user, pw = self.credentials
        ok = (auth_data.login.decode("utf-8", "replace") == user
              and auth_data.password.decode("utf-8", "replace") == pw)
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    def start(self) -> "SmtpServer":
        if self.controller is not None:
            return self
        kwargs = dict(server_hostname=self.server_hostname, decode_data=False,
                      enable_SMTPUTF8=True, ident="orienta test SMTP")
        if self.credentials is not None:
            kwargs.update(authenticator=self._authenticator, auth_require_tls=self.tls is not None,
                          auth_required=self.auth_required)
        if isinstance(self.handler, XOAuth2Handler):
            kwargs.update(auth_require_tls=self.tls is not None, auth_required=self.auth_required,
                          auth_exclude_mechanism=["LOGIN", "PLAIN"] if self.credentials is None else [])
        if self.tls is not None and self.implicit_tls:
            # aiosmtpd counts only STARTTLS as TLS for auth_require_tls; on SMTPS the whole session is TLS
            kwargs.update(ssl_context=self.tls, auth_require_tls=False)
        elif self.tls is not None:
            kwargs.update(tls_context=self.tls, require_starttls=True)
        last: Exception | None = None
        for _ in range(1 if self.requested_port else 5):
            port = self.requested_port or _free_port(self.host)
            ctl = Controller(self.handler, hostname=self.host, port=port, **kwargs)
            try:
                ctl.start()
            except Exception as e:  # port taken meanwhile: try another one
                last = e
                try:
                    ctl.stop()
                except Exception:
                    pass
                continue
            self.controller, self.port = ctl, port
            return self
        raise RuntimeError(f"could not start SMTP server on {self.host}: {last!r}")

    def stop(self) -> None:
        ctl, self.controller = self.controller, None
        if ctl is not None:
            ctl.stop()

    # --- convenience -------------------------------------------------------
    @property
    def messages(self) -> list[ReceivedMessage]:
        return self.handler.messages

    @property
    def xoauth2_logins(self) -> list[str]:
        return list(getattr(self.handler, "logins", []))

    def clear(self) -> None:
        self.handler.clear()
        self.handler.clear_rules()

    def wait_for(self, count: int = 1, timeout: float = 10.0) -> list[ReceivedMessage]:
        return self.handler.wait_for(count, timeout)

    def fail_next(self, n: int = 1, code: int = 451,
                  text: str | None = None, stage: str = "DATA") -> None:
        stage = stage.upper()
        if stage not in _STAGES:
            raise ValueError(f"stage must be one of {_STAGES}")
        if text is None:
            text = ("4.3.0 Temporary failure (injected by test)" if 400 <= code < 500
                    else "5.7.1 Rejected (injected by test)")
        self.handler.add_rule(_Rule("fail", stage, n, code=code, text=text))

    def drop_next(self, n: int = 1, after_accept: bool = True) -> None:
        self.handler.add_rule(_Rule("drop", "DATA", n, after_accept=after_accept))
