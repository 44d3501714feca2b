"""Sending replies with smtplib, a copy appended to the IMAP Sent mailbox, and finding our own Message-IDs there."""

from __future__ import annotations

import logging
import smtplib
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr

import imaplib2

from bot.email.imap import IMAP_ERRORS, _quote, connect, describe_tls_error, tls_context
from bot.email.oauth import TokenSource, token_source, xoauth2_string
from bot.errors import ChannelError, SendUncertain
from pipeline.settings import IMAPSettings, SMTPSettings

log = logging.getLogger(__name__)


class SmtpSender:
    """Delivers one message per call over SMTP (ssl, starttls or plain) and keeps the Sent copy over IMAP."""

    def __init__(self, smtp: SMTPSettings, imap: IMAPSettings | None = None) -> None:
        if not smtp.host:
            raise ChannelError("SMTP is not configured: set ORIENTA_SMTP__HOST")
        self.smtp = smtp
        self.imap = imap if imap is not None and imap.host else None
        self.tokens: TokenSource | None = None
        if smtp.auth == "xoauth2":  # the IMAP account's OAuth app when SMTP names none
            oauth = smtp.oauth if smtp.oauth.client_id or imap is None else imap.oauth
            self.tokens = token_source(oauth, setting_prefix="ORIENTA_SMTP" if oauth is smtp.oauth else "ORIENTA_IMAP")
        self.imap_tokens = token_source(self.imap.oauth, setting_prefix="ORIENTA_IMAP") if self.imap and self.imap.auth == "xoauth2" else None

    def _open(self) -> smtplib.SMTP:
        s = self.smtp
        tls = tls_context(s.ca_file) if s.security != "none" else None
        try:
            if s.security == "ssl":
                client: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=s.timeout_s, context=tls)
            else:
                client = smtplib.SMTP(s.host, s.port, timeout=s.timeout_s)
                if s.security == "starttls":
                    client.starttls(context=tls)
        except ssl.SSLError as exc:
            raise ChannelError(f"SMTP connection to {s.host}:{s.port} failed: {describe_tls_error(exc, s.host)}") from exc
        try:
            if self.tokens is not None:
                self._login_xoauth2(client, s.user or "")
            elif s.user:
                client.login(s.user, s.password.get_secret_value() if s.password else "")
        except BaseException:
            client.close()
            raise
        return client

    def _login_xoauth2(self, client: smtplib.SMTP, user: str) -> None:
        """AUTH XOAUTH2; a refused token (535) is refreshed once and tried again."""
        assert self.tokens is not None
        client.ehlo_or_helo_if_needed()
        for attempt in (1, 2):
            token = self.tokens.token()
            try:
                # a 334 challenge carries the server's error (JSON); the empty answer ends the exchange with 535
                client.auth("XOAUTH2", lambda challenge=None: xoauth2_string(user, token).decode() if challenge is None else "", initial_response_ok=True)
                return
            except smtplib.SMTPAuthenticationError:
                if attempt == 2:
                    raise
                log.info("SMTP refused the OAuth token for %s; refreshing it and trying again", user)
                self.tokens.invalidate()

    def send(self, msg: EmailMessage) -> None:
        """Hand the message to the SMTP server; SendUncertain when the connection broke during DATA."""
        sender = parseaddr(str(msg["From"]))[1] or parseaddr(self.smtp.from_)[1]
        rcpts = [a for _n, a in getaddresses([str(v) for v in msg.get_all("To", []) + msg.get_all("Cc", [])]) if a]
        if not rcpts:
            raise ChannelError("reply has no recipient")
        try:
            client = self._open()
        except (smtplib.SMTPException, OSError) as exc:
            raise ChannelError(f"SMTP connection to {self.smtp.host}:{self.smtp.port} failed: {exc}") from exc
        try:
            client.ehlo_or_helo_if_needed()
            code, resp = client.mail(sender)
            if code != 250:
                raise ChannelError(f"SMTP MAIL FROM refused: {code} {resp!r}")
            for rcpt in rcpts:
                code, resp = client.rcpt(rcpt)
                if code not in (250, 251):
                    raise ChannelError(f"SMTP RCPT TO {rcpt} refused: {code} {resp!r}")
            try:
                code, resp = client.data(msg.as_bytes())
            except smtplib.SMTPDataError as exc:
                raise ChannelError(f"SMTP DATA refused: {exc.smtp_code} {exc.smtp_error!r}") from exc
            except (smtplib.SMTPServerDisconnected, OSError) as exc:
                raise SendUncertain(f"SMTP connection lost during DATA ({exc}); the server may have accepted the message") from exc
            if code != 250:
                raise ChannelError(f"SMTP DATA refused: {code} {resp!r}")
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPResponseException, OSError) as exc:
            raise ChannelError(f"SMTP failed before the message was handed over: {exc}") from exc
        finally:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()

    # -------------------------------------------------------------- the Sent mailbox
    @contextmanager
    def _sent_mailbox(self, action: str) -> Iterator[imaplib2.IMAP4]:
        """An IMAP session for the Sent mailbox; IMAP errors become ChannelError naming `action`, and it always logs out."""
        if self.imap is None:
            raise ChannelError("no IMAP account configured for the Sent mailbox")
        conn = connect(self.imap, self.imap_tokens)
        try:
            yield conn
        except IMAP_ERRORS as exc:
            raise ChannelError(f"IMAP {action} failed: {exc}") from exc
        finally:
            try:
                conn.logout()
            except IMAP_ERRORS:
                pass

    def append_to_sent(self, msg: EmailMessage) -> None:
        """Append a copy (marked \\Seen) to the Sent mailbox, creating it when missing."""
        if self.imap is None or not self.smtp.append_to_sent:
            return
        with self._sent_mailbox("APPEND to Sent") as conn:
            box = _quote(self.imap.sent_mailbox)
            typ, _ = conn.status(box, "(MESSAGES)")
            if typ != "OK":
                conn.create(box)
            typ, data = conn.append(box, r"(\Seen)", None, msg.as_bytes())
            if typ != "OK":
                raise ChannelError(f"IMAP APPEND to {self.imap.sent_mailbox} failed: {data!r}")

    def find_in_sent(self, message_id: str) -> bool:
        """Whether a message with this Message-ID is in the Sent mailbox (crash recovery)."""
        if self.imap is None:
            return False
        with self._sent_mailbox("SEARCH in Sent") as conn:
            typ, _ = conn.select(_quote(self.imap.sent_mailbox), readonly=True)
            if typ != "OK":
                return False
            typ, data = conn.uid("SEARCH", "HEADER", "Message-ID", _quote(message_id.strip()))
            return typ == "OK" and bool(b" ".join(d for d in data if d).split())
