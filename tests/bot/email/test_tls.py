"""IMAPS, STARTTLS and SMTP over TLS against the real Dovecot and aiosmtpd, with a test CA: trusted, untrusted, wrong host."""

from __future__ import annotations

import ssl
from email.message import EmailMessage

import pytest
from pydantic import SecretStr

from bot.email.imap import ImapIntake, connect
from bot.email.smtp import SmtpSender
from bot.errors import ChannelError
from pipeline.settings import IMAPSettings, SMTPSettings
from tests.servers.smtp import SmtpServer


def _imap(account, *, security: str, ca_file=None, host: str = "localhost") -> IMAPSettings:
    server = account.server
    return IMAPSettings(
        host=host, port=server.ssl_port if security == "ssl" else server.port, user=account.user,
        password=SecretStr(account.password), security=security, ca_file=ca_file, timeout_s=30,
    )


def _logins(server, user: str) -> int:
    return server.log_path.read_text(errors="replace").count(f"Login: user=<{user}>")


@pytest.mark.parametrize("security", ["ssl", "starttls"])
def test_tls_mailbox_is_read_through_the_ca_bundle(secure_account, pki, engine, make_message, security):
    secure_account.append(make_message(subject="constancia", body="¿Cómo pido una constancia?", message_id="<tls1@example.org>"))
    settings = _imap(secure_account, security=security, ca_file=pki.ca_file)
    conn = connect(settings)
    try:
        assert isinstance(conn.sock, ssl.SSLSocket) and conn.sock.version() in ("TLSv1.2", "TLSv1.3")
        assert "STARTTLS" not in conn.capabilities  # after the upgrade (or on IMAPS) it is no longer offered
    finally:
        conn.logout()
    intake = ImapIntake(settings, engine=engine)
    report = intake.sync()
    intake.close()
    assert report.stored == 1
    assert "TLS" in secure_account.server.log_tail(20)  # Dovecot logs the login as secured


@pytest.mark.parametrize("security", ["ssl", "starttls"])
def test_untrusted_certificate_is_refused_before_the_password_is_sent(secure_account, pki, security):
    settings = _imap(secure_account, security=security, ca_file=pki.other_ca_file)
    with pytest.raises(ChannelError, match=r"TLS certificate of localhost was refused \(unable to get local issuer certificate\)"):
        connect(settings)
    assert _logins(secure_account.server, secure_account.user) == 0


def test_system_cas_do_not_trust_a_private_certificate(secure_account):
    with pytest.raises(ChannelError, match="certificate of localhost was refused"):
        connect(_imap(secure_account, security="ssl", ca_file=None))


@pytest.mark.parametrize("security", ["ssl", "starttls"])
def test_wrong_host_name_is_refused(secure_account, pki, security):
    """The certificate names localhost; 127.0.0.1 is the same server under a name the certificate does not carry."""
    with pytest.raises(ChannelError, match=r"certificate of 127\.0\.0\.1 was refused \(IP address mismatch"):
        connect(_imap(secure_account, security=security, ca_file=pki.ca_file, host="127.0.0.1"))
    assert _logins(secure_account.server, secure_account.user) == 0


def test_starttls_refused_by_a_server_without_tls(imap_account):
    settings = IMAPSettings(host=imap_account.host, port=imap_account.port, user=imap_account.user,
                            password=SecretStr(imap_account.password), security="starttls", timeout_s=30)
    with pytest.raises(ChannelError, match="TLS not supported by server"):
        connect(settings)


def test_unreadable_ca_bundle_is_a_clear_error(secure_account, tmp_path):
    with pytest.raises(ChannelError, match="cannot read the CA bundle"):
        connect(_imap(secure_account, security="ssl", ca_file=tmp_path / "missing.pem"))


# ---------------------------------------------------------------- SMTP
def _reply() -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "consultas@ingenieria.example.edu.uy", "ana@example.org", "Re: constancia"
    msg["Message-ID"] = "<reply-tls@orienta.test>"
    msg.set_content("Podés pedir la constancia en bedelía.")
    return msg


def _smtp(server: SmtpServer, *, security: str, ca_file=None, host: str = "localhost") -> SMTPSettings:
    return SMTPSettings(host=host, port=server.port, user="office", password=SecretStr("pw-office"), security=security,
                        ca_file=ca_file, timeout_s=30, append_to_sent=False)


@pytest.mark.parametrize("implicit", [False, True], ids=["starttls", "ssl"])
def test_smtp_over_tls_with_the_ca_bundle(pki, implicit):
    with SmtpServer(tls=pki.server_context, implicit_tls=implicit, credentials=("office", "pw-office"), auth_required=True) as server:
        SmtpSender(_smtp(server, security="ssl" if implicit else "starttls", ca_file=pki.ca_file)).send(_reply())
        [got] = server.wait_for(1)
    assert got.auth_login == "office" and got.rcpt_tos == ["ana@example.org"]


def test_smtp_server_offers_no_auth_before_starttls(pki):
    """A client configured without TLS never gets to send the password: the server offers AUTH only after STARTTLS."""
    with SmtpServer(tls=pki.server_context, credentials=("office", "pw-office"), auth_required=True) as server:
        with pytest.raises(ChannelError, match="AUTH extension not supported"):
            SmtpSender(_smtp(server, security="none")).send(_reply())
        assert server.messages == []


@pytest.mark.parametrize("implicit", [False, True], ids=["starttls", "ssl"])
@pytest.mark.parametrize("case", ["untrusted", "wrong-host"])
def test_smtp_refuses_a_bad_certificate(pki, implicit, case):
    ca_file, host = (pki.other_ca_file, "localhost") if case == "untrusted" else (pki.ca_file, "127.0.0.1")
    with SmtpServer(tls=pki.server_context, implicit_tls=implicit, credentials=("office", "pw-office"), auth_required=True) as server:
        with pytest.raises(ChannelError, match=f"TLS certificate of {host} was refused"):
            SmtpSender(_smtp(server, security="ssl" if implicit else "starttls", ca_file=ca_file, host=host)).send(_reply())
        assert server.messages == []


@pytest.mark.parametrize("security", ["ssl", "starttls"])
def test_idle_over_tls_picks_up_new_mail_and_stops(secure_account, pki, engine, make_message, security):
    """IDLE keeps imaplib2's reader and writer threads on one TLS session (DONE is written while the reader waits)."""
    import threading
    import time

    from sqlmodel import Session, select

    from review.models import InboundMessage

    def rows() -> int:
        with Session(engine) as s:
            return len(s.exec(select(InboundMessage)).all())

    def wait_rows(n: int, timeout: float = 20.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and rows() < n:
            time.sleep(0.1)
        return rows()

    settings = _imap(secure_account, security=security, ca_file=pki.ca_file).model_copy(update={"idle_renew_minutes": 0.05})
    secure_account.append(make_message(subject="a", body="primera", message_id="<idle-tls-0@example.org>"))
    intake = ImapIntake(settings, engine=engine)
    thread = threading.Thread(target=intake.run_forever, daemon=True)
    thread.start()
    try:
        assert wait_rows(1) == 1
        assert intake.supports_idle
        time.sleep(4)  # at least one IDLE renewal (DONE + IDLE) over TLS
        secure_account.append(make_message(subject="b", body="segunda", message_id="<idle-tls-1@example.org>"))
        assert wait_rows(2) == 2
    finally:
        intake.stop()
        thread.join(timeout=15)
    assert not thread.is_alive()
