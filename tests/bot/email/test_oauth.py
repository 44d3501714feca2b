"""XOAUTH2 for IMAP and SMTP: tokens from msal / google-auth against a token-endpoint stand-in, checked by the real
Dovecot's oauth2 passdb (token introspection) and by aiosmtpd; refresh before expiry and after a refusal; never logged."""

from __future__ import annotations

import itertools
import logging
from email.message import EmailMessage

import pytest
from pydantic import SecretStr

from bot.email.imap import ImapIntake, connect
from bot.email.oauth import MicrosoftToken, token_source
from bot.email.smtp import SmtpSender
from bot.errors import ChannelError, TokenError
from pipeline.errors import ConfigurationError
from pipeline.settings import IMAPSettings, MailOAuthSettings, SMTPSettings
from tests.servers.smtp import SmtpServer

pytest.importorskip("msal", reason="the oauth extra (msal, google-auth) is not installed")
pytest.importorskip("google.oauth2.credentials", reason="the oauth extra (msal, google-auth) is not installed")

_apps = itertools.count(1)


@pytest.fixture
def oauth(oauth_server, secure_account, pki):
    """OAuth settings for an app registered on the stand-in whose tokens open secure_account's mailbox."""
    client_id = f"app-{next(_apps)}"
    refresh = oauth_server.add_client(client_id, "s3cret-" + client_id, secure_account.user)

    def make(provider: str = "microsoft", *, delegated: bool = False, **extra) -> MailOAuthSettings:
        return MailOAuthSettings(
            provider=provider, tenant=oauth_server.tenant, client_id=client_id, client_secret=SecretStr("s3cret-" + client_id),
            refresh_token=SecretStr(refresh) if delegated or provider == "google" else None,
            authority_host=oauth_server.https_url, token_uri=f"{oauth_server.https_url}/token", ca_file=pki.ca_file, **extra,
        )

    make.client_id = client_id  # type: ignore[attr-defined]
    return make


def _imap(account, pki, oauth: MailOAuthSettings) -> IMAPSettings:
    return IMAPSettings(host="localhost", port=account.server.port, security="starttls", ca_file=pki.ca_file,
                        user=account.user, auth="xoauth2", oauth=oauth, timeout_s=30)


def _requests(server, client_id: str) -> list[dict]:
    return [r for r in server.token_requests if r.get("client_id") == client_id]


@pytest.mark.parametrize("provider,delegated,grant", [
    ("microsoft", False, "client_credentials"), ("microsoft", True, "refresh_token"), ("google", True, "refresh_token"),
], ids=["microsoft-client-credentials", "microsoft-refresh-token", "google-refresh-token"])
def test_xoauth2_login_reads_the_mailbox(secure_account, pki, oauth, oauth_server, engine, make_message, provider, delegated, grant):
    secure_account.append(make_message(subject="beca", body="¿Cuándo abre la beca?", message_id="<oauth1@example.org>"))
    intake = ImapIntake(_imap(secure_account, pki, oauth(provider, delegated=delegated)), engine=engine)
    assert intake.sync().stored == 1
    intake.close()
    assert f"Login: user=<{secure_account.user}>, method=XOAUTH2" in secure_account.server.log_tail(30)
    [req] = _requests(oauth_server, oauth.client_id)
    assert req["grant_type"] == grant
    expected_scope = {"microsoft": "https://outlook.office365.com/.default" if not delegated else "https://outlook.office365.com/IMAP.AccessAsUser.All",
                      "google": "https://mail.google.com/"}[provider]
    assert expected_scope in req.get("scope", "")


def test_token_is_reused_until_close_to_expiry(secure_account, pki, oauth, oauth_server):
    tokens = token_source(oauth(), setting_prefix="ORIENTA_IMAP")
    for _ in range(3):
        connect(_imap(secure_account, pki, oauth()), tokens).logout()
    assert len(_requests(oauth_server, oauth.client_id)) == 1
    soon = token_source(oauth(refresh_margin_s=oauth_server.expires_in + 1), setting_prefix="ORIENTA_IMAP")  # always "about to expire"
    for _ in range(2):
        connect(_imap(secure_account, pki, oauth()), soon).logout()
    assert len(_requests(oauth_server, oauth.client_id)) == 3


@pytest.mark.parametrize("delegated", [False, True], ids=["client-credentials", "refresh-token"])
def test_refused_token_is_refreshed_once_and_the_login_retried(secure_account, pki, oauth, oauth_server, delegated):
    tokens = token_source(oauth(delegated=delegated), setting_prefix="ORIENTA_IMAP")
    connect(_imap(secure_account, pki, oauth()), tokens).logout()
    oauth_server.revoke_all()  # e.g. the admin revoked the app's sessions: the cached token is now refused
    connect(_imap(secure_account, pki, oauth()), tokens).logout()
    reqs = _requests(oauth_server, oauth.client_id)
    assert len(reqs) == 2
    if delegated:  # Microsoft rotated the refresh token; the second request used the new one
        assert reqs[1]["refresh_token"] != reqs[0]["refresh_token"]
    assert secure_account.server.log_tail(40).count(f"Login: user=<{secure_account.user}>, method=XOAUTH2") >= 2


def test_token_for_another_mailbox_is_refused(secure_dovecot, secure_account, pki, oauth):
    other = secure_dovecot.add_user()
    try:
        settings = _imap(other, pki, oauth())  # the app's tokens open secure_account, not `other`
        with pytest.raises(ChannelError) as err:
            connect(settings)
        log = secure_dovecot.log_tail(40)
        assert "AUTHENTICATIONFAILED" in str(err.value), f"{err.value}\n{log}"
        assert f"Username '{other.user}' did not match '{secure_account.user}'" in log
    finally:
        secure_dovecot.remove_user(other.user)


@pytest.mark.parametrize("provider", ["microsoft", "google"])
def test_wrong_client_secret_is_a_clear_token_error(secure_account, pki, oauth, provider):
    settings = oauth(provider).model_copy(update={"client_secret": SecretStr("wrong-secret")})
    with pytest.raises(TokenError, match="invalid_client") as err:
        connect(_imap(secure_account, pki, settings))
    assert "wrong-secret" not in str(err.value)


def test_untrusted_token_endpoint_is_refused(secure_account, pki, oauth):
    settings = oauth().model_copy(update={"ca_file": pki.other_ca_file})
    with pytest.raises(TokenError, match="CERTIFICATE_VERIFY_FAILED|SSLError"):
        connect(_imap(secure_account, pki, settings))


def test_missing_settings_are_named():
    with pytest.raises(ConfigurationError, match="ORIENTA_IMAP__OAUTH__CLIENT_ID, ORIENTA_IMAP__OAUTH__TENANT"):
        ImapIntake(IMAPSettings(host="imap.example.org", auth="xoauth2"), engine=None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="ORIENTA_IMAP__OAUTH__REFRESH_TOKEN"):
        token_source(MailOAuthSettings(provider="google", client_id="x", client_secret=SecretStr("y")), setting_prefix="ORIENTA_IMAP")


def test_no_token_or_secret_reaches_the_logs(secure_account, pki, oauth, oauth_server, caplog):
    caplog.set_level(logging.DEBUG)
    settings = oauth(delegated=True)
    tokens = token_source(settings, setting_prefix="ORIENTA_IMAP")
    connect(_imap(secure_account, pki, settings), tokens).logout()
    oauth_server.revoke_all()
    connect(_imap(secure_account, pki, settings), tokens).logout()
    assert isinstance(tokens, MicrosoftToken) and tokens.fetches == 2
    secrets_ = [settings.client_secret.get_secret_value(), settings.refresh_token.get_secret_value(), *oauth_server.issued_tokens]
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "refreshed" in text  # the log says what happened ...
    assert not [s for s in secrets_ if s in text]  # ... and never with what


# ---------------------------------------------------------------- SMTP
def _reply(to: str = "ana@example.org") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "consultas@ingenieria.example.edu.uy", to, "Re: beca"
    msg.set_content("La beca abre en marzo.")
    return msg


def _introspection_check(oauth_server):
    def check(user: str, token: str) -> bool:
        answer = oauth_server.introspect(token)
        return answer["active"] and answer["username"] == user
    return check


@pytest.mark.parametrize("provider", ["microsoft", "google"])
def test_smtp_xoauth2_with_the_imap_accounts_app_and_a_refresh_after_535(secure_account, pki, oauth, oauth_server, provider):
    imap = _imap(secure_account, pki, oauth(provider))
    with SmtpServer(tls=pki.server_context, xoauth2=_introspection_check(oauth_server), auth_required=True) as server:
        smtp = SMTPSettings(host="localhost", port=server.port, security="starttls", ca_file=pki.ca_file, user=secure_account.user,
                            auth="xoauth2", timeout_s=30, append_to_sent=False)  # no SMTP oauth section: the IMAP one is used
        sender = SmtpSender(smtp, imap)
        sender.send(_reply())
        oauth_server.revoke_all()
        sender.send(_reply("luis@example.org"))
        assert [m.rcpt_tos for m in server.wait_for(2)] == [["ana@example.org"], ["luis@example.org"]]
        assert server.xoauth2_logins == [secure_account.user] * 2
    assert len(_requests(oauth_server, oauth.client_id)) == 2


def test_smtp_xoauth2_refused_token_is_not_retried_forever(secure_account, pki, oauth, oauth_server):
    with SmtpServer(tls=pki.server_context, xoauth2=lambda user, token: False, auth_required=True) as server:
        smtp = SMTPSettings(host="localhost", port=server.port, security="starttls", ca_file=pki.ca_file, user=secure_account.user,
                            auth="xoauth2", oauth=oauth(), timeout_s=30, append_to_sent=False)
        with pytest.raises(ChannelError, match="535"):
            SmtpSender(smtp).send(_reply())
        assert server.messages == []
    assert len(_requests(oauth_server, oauth.client_id)) == 2  # one refresh after the first 535, then it gives up


def test_settings_from_the_environment(monkeypatch, tmp_path):
    from pipeline.settings import Settings

    for key, value in {
        "ORIENTA_IMAP__HOST": "outlook.office365.com", "ORIENTA_IMAP__AUTH": "xoauth2", "ORIENTA_IMAP__CA_FILE": "/etc/orienta/ca.pem",
        "ORIENTA_IMAP__OAUTH__TENANT": "facultad.edu.uy", "ORIENTA_IMAP__OAUTH__CLIENT_ID": "app-id",
        "ORIENTA_IMAP__OAUTH__CLIENT_SECRET": "a-real-secret", "ORIENTA_IMAP__OAUTH__SCOPES": "https://outlook.office365.com/.default",
        "ORIENTA_SMTP__AUTH": "xoauth2",
    }.items():
        monkeypatch.setenv(key, value)
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    assert (s.imap.auth, s.smtp.auth, str(s.imap.ca_file)) == ("xoauth2", "xoauth2", "/etc/orienta/ca.pem")
    assert s.imap.oauth.scopes == ["https://outlook.office365.com/.default"] and s.smtp.oauth.client_id is None
    assert "a-real-secret" not in repr(s) and isinstance(token_source(s.imap.oauth, setting_prefix="ORIENTA_IMAP"), MicrosoftToken)
    monkeypatch.setenv("ORIENTA_IMAP__OAUTH__CLIENT_SECRET", "changeme")
    with pytest.raises(ValueError, match="placeholder"):
        Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]


def test_sent_copy_is_appended_over_xoauth2_imap(secure_account, pki, oauth, oauth_server):
    imap = _imap(secure_account, pki, oauth("google"))
    with SmtpServer(tls=pki.server_context, xoauth2=_introspection_check(oauth_server), auth_required=True) as server:
        smtp = SMTPSettings(host="localhost", port=server.port, security="starttls", ca_file=pki.ca_file, user=secure_account.user,
                            auth="xoauth2", timeout_s=30)
        sender = SmtpSender(smtp, imap)
        msg = _reply()
        msg["Message-ID"] = "<sent-oauth@orienta.test>"
        sender.send(msg)
        sender.append_to_sent(msg)
        assert server.wait_for(1)
    assert sender.find_in_sent("<sent-oauth@orienta.test>")
    assert [raw for _uid, raw, _flags in secure_account.server.fetch_all("Sent", user=secure_account.user, password=secure_account.password)]
