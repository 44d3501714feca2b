"""IMAP intake with imaplib2: exactly-once fetch by (account, mailbox, UIDVALIDITY, UID) checkpoint, IDLE or polling."""

from __future__ import annotations

import logging
import os
import random
import re
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass

import imaplib2
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from bot.email import intake as intake_mod
from bot.email.oauth import TokenSource, token_source, xoauth2_string
from bot.errors import ChannelError
from pipeline.settings import IMAPSettings
from review import states
from review.db import session_scope
from review.models import MailboxCheckpoint, utcnow

log = logging.getLogger(__name__)

IMAP_ERRORS: tuple[type[BaseException], ...] = (imaplib2.IMAP4.error, OSError, socket.timeout, ssl.SSLError, EOFError)
_UID = re.compile(rb"UID (\d+)")


@dataclass
class SyncReport:
    """What one catch-up pass over the mailbox did."""

    fetched: int = 0
    stored: int = 0
    duplicates: int = 0
    skipped: int = 0
    quarantined: int = 0
    rescan: bool = False

    def add(self, other: "SyncReport") -> None:
        for name in ("fetched", "stored", "duplicates", "skipped", "quarantined"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rescan = self.rescan or other.rescan


# ---------------------------------------------------------------- checkpoint
def get_checkpoint(*, session: Session, account: str, mailbox: str) -> MailboxCheckpoint | None:
    return session.get(MailboxCheckpoint, (account, mailbox))


def save_checkpoint(*, session: Session, account: str, mailbox: str, uidvalidity: int, last_uid: int) -> MailboxCheckpoint:
    """Advance (never move back) the checkpoint within one UIDVALIDITY; a new UIDVALIDITY starts at last_uid."""
    cp = get_checkpoint(session=session, account=account, mailbox=mailbox)
    if cp is None:
        cp = MailboxCheckpoint(account=account, mailbox=mailbox, uidvalidity=uidvalidity, last_uid=last_uid)
    elif cp.uidvalidity != uidvalidity:
        cp.uidvalidity, cp.last_uid = uidvalidity, last_uid
    else:
        cp.last_uid = max(cp.last_uid, last_uid)
    cp.updated_at = utcnow()
    session.add(cp)
    return cp


# ---------------------------------------------------------------- connection
def tls_context(ca_file: "str | os.PathLike | None") -> ssl.SSLContext:
    """A verifying TLS client context: certificate chain and host name, against `ca_file` or the system's CAs."""
    try:
        return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    except (OSError, ssl.SSLError) as exc:
        raise ChannelError(f"cannot read the CA bundle {ca_file}: {exc}") from exc


class _VerifiedTLS:
    """TLS for imaplib2, fixing two of its flaws.

    * It wraps sockets without checking the host name (and without any check unless ca_certs is given): use our context.
    * Its reader and writer threads use the one SSL object at the same time, which OpenSSL does not allow. After a TLS 1.3
      handshake the server's session tickets wake the reader, whose SSL_read then blocks waiting for data while the
      writer sends the next command: the command is lost and the session hangs (about one STARTTLS in a hundred against
      Dovecot). Reads and writes take turns under a lock, and a read that finds no data gives the socket back."""

    tls: ssl.SSLContext
    READ_WAIT_S = 0.05

    def ssl_wrap_socket(self) -> None:
        self._tls_lock = threading.Lock()
        self.sock = self.tls.wrap_socket(self.sock, server_hostname=self.host)
        self.read_fd = self.sock.fileno()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def read(self, size: int) -> bytes:
        if not isinstance(self.sock, ssl.SSLSocket):
            return super().read(size)
        with self._tls_lock:
            self.sock.settimeout(self.READ_WAIT_S)
            try:
                return super().read(size)
            except (TimeoutError, ssl.SSLWantReadError):
                return b""  # only TLS records without data (session tickets): imaplib2 polls again
            finally:
                self.sock.settimeout(None)

    def send(self, data: bytes) -> None:
        if not isinstance(self.sock, ssl.SSLSocket):
            return super().send(data)
        with self._tls_lock:
            return super().send(data)


class _IMAP4(_VerifiedTLS, imaplib2.IMAP4):
    def __init__(self, *args, tls: ssl.SSLContext, **kwargs) -> None:
        self.tls = tls
        super().__init__(*args, **kwargs)


class _IMAP4_SSL(_VerifiedTLS, imaplib2.IMAP4_SSL):
    def __init__(self, *args, tls: ssl.SSLContext, **kwargs) -> None:
        self.tls = tls
        super().__init__(*args, **kwargs)


def describe_tls_error(exc: BaseException, host: str) -> str:
    """One clear line for a refused certificate (untrusted issuer, wrong host name, expired)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the TLS certificate of {host} was refused ({exc.verify_message}); set the CA bundle (ca_file) or fix the host name"
    return f"{type(exc).__name__}: {exc}"


def _authentication_failed(exc: BaseException) -> bool:
    return "AUTHENTICATIONFAILED" in str(exc).upper() or "AUTHENTICATE FAILED" in str(exc).upper()


def connect(settings: IMAPSettings, tokens: "TokenSource | None" = None) -> imaplib2.IMAP4:
    """A logged-in imaplib2 connection (ssl, starttls or plain; password or XOAUTH2, as configured)."""
    if not settings.host:
        raise ChannelError("IMAP is not configured: set ORIENTA_IMAP__HOST")
    if settings.auth == "xoauth2" and tokens is None:
        tokens = token_source(settings.oauth, setting_prefix="ORIENTA_IMAP")
    tls = tls_context(settings.ca_file) if settings.security != "none" else None
    conn = None
    try:
        if settings.security == "ssl":
            conn = _IMAP4_SSL(settings.host, settings.port, timeout=settings.timeout_s, tls=tls)
        else:
            conn = _IMAP4(settings.host, settings.port, timeout=settings.timeout_s, tls=tls)
            if settings.security == "starttls":
                conn.starttls()
    except (ssl.SSLError, ssl.CertificateError, *IMAP_ERRORS) as exc:
        if conn is not None:
            _drop(conn)
        detail = describe_tls_error(exc, settings.host) if isinstance(exc, (ssl.SSLError, ssl.CertificateError)) else f"{type(exc).__name__}: {exc}"
        raise ChannelError(f"IMAP connection to {settings.host}:{settings.port} failed: {detail}") from exc
    try:
        if tokens is None:
            conn.login(settings.user or "", settings.password.get_secret_value() if settings.password else "")
        else:
            _login_xoauth2(conn, settings.user or "", tokens)
    except IMAP_ERRORS as exc:
        _drop(conn)
        raise ChannelError(f"IMAP login to {settings.host}:{settings.port} as {settings.user} failed: {type(exc).__name__}: {exc}") from exc
    except BaseException:
        _drop(conn)
        raise
    return conn


def _login_xoauth2(conn: imaplib2.IMAP4, user: str, tokens: "TokenSource") -> None:
    """AUTHENTICATE XOAUTH2; a refused token is refreshed once and tried again."""
    for attempt in (1, 2):
        try:
            conn.authenticate("XOAUTH2", _xoauth2_responder(user, tokens.token()))
            return
        except imaplib2.IMAP4.error as exc:
            if attempt == 2 or not _authentication_failed(exc):
                raise
            log.info("IMAP refused the OAuth token for %s; refreshing it and trying again", user)
            tokens.invalidate()


def _xoauth2_responder(user: str, token: str) -> Callable[[bytes], bytes]:
    """Answers the first continuation with the XOAUTH2 string; a second one carries the server's error (JSON) and gets
    the empty answer that ends the exchange (https://developers.google.com/gmail/imap/xoauth2-protocol)."""
    answered: list[bool] = []

    def respond(_challenge: bytes) -> bytes:
        if answered:
            return b""
        answered.append(True)
        return xoauth2_string(user, token)

    return respond


def _drop(conn: imaplib2.IMAP4) -> None:
    try:
        conn.logout()
    except IMAP_ERRORS:
        pass


def _quote(mailbox: str) -> str:
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ok(typ: str, data: list, what: str) -> list:
    if typ != "OK":
        raise ChannelError(f"IMAP {what} failed: {typ} {data!r}")
    return data


class ImapIntake:
    """One mailbox of one account: catch-up fetch, then IDLE (or poll) until stopped; reconnects with backoff."""

    def __init__(
        self, settings: IMAPSettings, *, engine: Engine, own_address: str | list[str] | None = None, store: Callable[..., tuple] | None = None,
        question_max_chars: int = intake_mod.DEFAULT_MAX_CHARS,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.own_address = own_address
        self.question_max_chars = question_max_chars
        self.store = store or intake_mod.intake_email
        self.account = settings.account
        self.mailbox = settings.mailbox
        self.conn: imaplib2.IMAP4 | None = None
        self.stop_event = threading.Event()
        self.tokens = token_source(settings.oauth, setting_prefix="ORIENTA_IMAP") if settings.auth == "xoauth2" else None

    # -------------------------------------------------------------- connection state
    def ensure_connected(self) -> imaplib2.IMAP4:
        if self.conn is None:
            self.conn = connect(self.settings, self.tokens)
        return self.conn

    def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        try:
            conn.logout()
        except IMAP_ERRORS as exc:  # the connection may already be gone
            log.debug("IMAP logout failed: %s", exc)

    @property
    def supports_idle(self) -> bool:
        return self.conn is not None and "IDLE" in getattr(self.conn, "capabilities", ())

    # -------------------------------------------------------------- one pass
    def sync(self) -> SyncReport:
        """Fetch every message above the checkpoint and store each exactly once; connection errors propagate."""
        conn = self.ensure_connected()
        _ok(*conn.select(_quote(self.mailbox), readonly=True), what=f"EXAMINE {self.mailbox}")  # read-only: \Seen untouched
        typ, data = conn.response("UIDVALIDITY")
        if not data or data[0] is None:
            raise ChannelError(f"IMAP server sent no UIDVALIDITY for {self.mailbox}")
        uidvalidity = int(data[0])
        report = SyncReport()
        with session_scope(self.engine) as session:
            cp = get_checkpoint(session=session, account=self.account, mailbox=self.mailbox)
            last_uid = 0
            if cp is not None and cp.uidvalidity == uidvalidity:
                last_uid = cp.last_uid
            elif cp is not None:
                log.warning("UIDVALIDITY of %s/%s changed %s -> %s: rescanning with de-duplication", self.account, self.mailbox, cp.uidvalidity, uidvalidity)
                report.rescan = True
            save_checkpoint(session=session, account=self.account, mailbox=self.mailbox, uidvalidity=uidvalidity, last_uid=last_uid)
        data = _ok(*conn.uid("SEARCH", "UID", f"{last_uid + 1}:*"), what="UID SEARCH")
        uids = sorted(u for u in (int(x) for x in b" ".join(d for d in data if d).split()) if u > last_uid)
        batch = self.settings.fetch_batch
        for i in range(0, len(uids), batch):
            for uid, raw in self._fetch(conn, uids[i : i + batch]):
                report.fetched += 1
                self._store_one(uid, raw, uidvalidity, report)
        return report

    def _fetch(self, conn: imaplib2.IMAP4, uids: list[int]) -> list[tuple[int, bytes]]:
        data = _ok(*conn.uid("FETCH", ",".join(map(str, uids)), "(UID BODY.PEEK[])"), what="UID FETCH")
        out: list[tuple[int, bytes]] = []
        for item in data:
            if isinstance(item, tuple) and len(item) >= 2:
                m = _UID.search(item[0])
                if m:
                    out.append((int(m.group(1)), bytes(item[1])))
        out.sort()
        missing = set(uids) - {u for u, _ in out}
        if missing:
            log.warning("IMAP FETCH returned no body for UIDs %s (expunged meanwhile?)", sorted(missing))
        return out

    def _store_one(self, uid: int, raw: bytes, uidvalidity: int, report: SyncReport) -> None:
        """Commit the message row (unless this message is already stored), then advance the checkpoint past it.

        De-duplication by Message-ID (content hash without one) makes a rescan after a UIDVALIDITY change,
        or after a crash in the middle of one, store nothing twice."""
        key = f"imap:{self.account}:{self.mailbox}:{uidvalidity}:{uid}"
        try:
            with session_scope(self.engine) as session:
                copy = intake_mod.find_copy(session, raw)
                if copy is not None:
                    report.duplicates += 1
                else:
                    message, created = self.store(
                        session, raw, source_key=key, max_bytes=self.settings.max_message_bytes,
                        own_address=self.own_address, rate_limit_per_hour=self.settings.rate_limit_per_hour,
                        question_max_chars=self.question_max_chars,
                    )
                    if created:
                        report.stored += 1
                        report.skipped += message.state == states.SKIPPED
                        report.quarantined += message.state == states.QUARANTINED
                    else:
                        report.duplicates += 1
        except SQLAlchemyError:
            raise  # the database is unreachable: the checkpoint must not pass this message
        except Exception as exc:  # anything else about this one message: keep it quarantined and go on
            log.exception("IMAP message UID %s could not be stored normally: %s", uid, exc)
            with session_scope(self.engine) as session:
                _, created = intake_mod.store_unreadable(session, raw, source_key=key, exc=exc)
                report.stored += created
                report.quarantined += created
        with session_scope(self.engine) as session:  # only after the message row is committed
            save_checkpoint(session=session, account=self.account, mailbox=self.mailbox, uidvalidity=uidvalidity, last_uid=uid)

    # -------------------------------------------------------------- waiting and the loop
    def wait(self, timeout: float | None = None) -> None:
        """Block until the mailbox may have changed: IDLE (renewed every idle_renew_minutes) or a poll interval."""
        if not (self.settings.use_idle and self.supports_idle):
            self.stop_event.wait(min(self.settings.poll_seconds, timeout or float("inf")))
            return
        assert self.conn is not None
        seconds = max(1, int(min(self.settings.idle_renew_minutes * 60, timeout or float("inf"))))
        done = threading.Event()
        outcome: list = []

        def finished(args: tuple) -> None:
            outcome.append(args)
            done.set()

        self.conn.idle(timeout=seconds, callback=finished)  # asynchronous: stop() can end it with any command
        while not done.wait(0.5):
            if self.stop_event.is_set():
                self._interrupt_idle()
                done.wait(5)
                return
        result, _arg, error = outcome[0]
        if error is not None:
            raise ChannelError(f"IMAP IDLE failed: {error[1]}")

    def _interrupt_idle(self) -> None:
        conn = self.conn
        if conn is None:
            return
        try:
            conn.noop(callback=lambda _args: None)  # a new command ends IDLE (DONE is sent first)
        except IMAP_ERRORS as exc:
            log.debug("could not interrupt IDLE: %s", exc)

    def sync_with_retry(self, attempts: int = 3) -> SyncReport:
        """One catch-up pass, reconnecting (with backoff) when the connection breaks; the pass restarts from the checkpoint."""
        delay = self.settings.reconnect_min_s
        for attempt in range(1, attempts + 1):
            try:
                return self.sync()
            except (ChannelError, *IMAP_ERRORS) as exc:
                self.close()
                if attempt == attempts or self.stop_event.is_set():
                    raise ChannelError(f"IMAP sync failed after {attempt} attempts: {exc}") from exc
                log.warning("IMAP sync failed (%s); reconnecting in %.1fs", exc, delay)
                self.stop_event.wait(delay)
                delay = min(delay * 2, self.settings.reconnect_max_s)
        raise AssertionError("unreachable")

    def run_forever(self, on_sync: Callable[[SyncReport], None] | None = None) -> None:
        """Catch up, then wait for changes and catch up again, until stop(); every reconnect is followed by a catch-up."""
        delay = self.settings.reconnect_min_s
        while not self.stop_event.is_set():
            try:
                report = self.sync()
                delay = self.settings.reconnect_min_s
                if on_sync is not None:
                    on_sync(report)
                if not self.stop_event.is_set():
                    self.wait()
            except (ChannelError, *IMAP_ERRORS) as exc:
                self.close()
                if self.stop_event.is_set():
                    break
                pause = delay * (0.5 + random.random() / 2)
                log.warning("IMAP connection problem (%s); reconnecting in %.1fs", exc, pause)
                self.stop_event.wait(pause)
                delay = min(delay * 2, self.settings.reconnect_max_s)
        self.close()

    def stop(self) -> None:
        """Ask run_forever to finish; an IDLE in progress ends within a second."""
        self.stop_event.set()
