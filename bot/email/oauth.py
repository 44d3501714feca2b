"""OAuth 2.0 access tokens for XOAUTH2 mail logins: Microsoft 365 (msal) and Google Workspace (google-auth).

Tokens are cached until `refresh_margin_s` before they expire and refreshed on demand after the server
refused one (AUTHENTICATIONFAILED); no token or secret is ever logged.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timezone
from typing import Protocol

from bot.errors import TokenError
from pipeline.errors import ConfigurationError
from pipeline.settings import MailOAuthSettings

log = logging.getLogger(__name__)

# Scopes for IMAP and SMTP; Microsoft: https://learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth
MICROSOFT_APP_SCOPES = ["https://outlook.office365.com/.default"]
MICROSOFT_DELEGATED_SCOPES = ["https://outlook.office365.com/IMAP.AccessAsUser.All", "https://outlook.office365.com/SMTP.Send"]
GOOGLE_SCOPES = ["https://mail.google.com/"]


class TokenSource(Protocol):
    """Something that hands out a valid access token."""

    def token(self) -> str: ...

    def invalidate(self) -> None: ...


def xoauth2_string(user: str, token: str) -> bytes:
    """The SASL XOAUTH2 initial response (before base64): user=..^Aauth=Bearer ..^A^A."""
    return f"user={user}\x01auth=Bearer {token}\x01\x01".encode()


def missing_settings(oauth: MailOAuthSettings) -> list[str]:
    """Names of the settings an XOAUTH2 login still needs (empty when complete)."""
    missing = [] if oauth.client_id else ["client_id"]
    if oauth.provider == "microsoft":
        if not oauth.tenant:
            missing.append("tenant")
        if oauth.refresh_token is None and oauth.client_secret is None:
            missing.append("client_secret (client credentials) or refresh_token")
    else:
        missing += [name for name in ("client_secret", "refresh_token") if getattr(oauth, name) is None]
    return missing


def _http_session(settings: MailOAuthSettings):
    """A requests session for the token endpoint that verifies against ca_file when one is set.

    Set per request: requests lets REQUESTS_CA_BUNDLE override a session-wide `verify`."""
    import functools

    import requests

    session = requests.Session()
    kwargs: dict = {"timeout": 30}
    if settings.ca_file:
        kwargs["verify"] = str(settings.ca_file)
    session.request = functools.partial(session.request, **kwargs)  # type: ignore[method-assign]
    return session


class _CachedToken:
    """Caches one token until shortly before it expires; `_fetch` returns (token, expires_at epoch seconds)."""

    def __init__(self, settings: MailOAuthSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = 0.0
        self.fetches = 0

    def token(self) -> str:
        with self._lock:
            if self._token is None or time.time() >= self._expires_at - self.settings.refresh_margin_s:
                try:
                    self._token, self._expires_at = self._fetch()
                except TokenError:
                    raise
                except Exception as exc:  # the libraries raise requests/transport errors of their own
                    raise TokenError(f"OAuth token request to {self.settings.provider} failed: {type(exc).__name__}: {exc}") from exc
                self.fetches += 1
                log.info("OAuth token for %s refreshed (valid for %.0f s)", self.settings.provider, self._expires_at - time.time())
            return self._token

    def invalidate(self) -> None:
        """Forget the token (the server refused it): the next token() asks the identity provider."""
        with self._lock:
            self._token, self._expires_at = None, 0.0

    def _fetch(self) -> tuple[str, float]:
        raise NotImplementedError


class MicrosoftToken(_CachedToken):
    """Microsoft identity platform through msal: client credentials, or a delegated refresh token (rotated as it is used)."""

    def __init__(self, settings: MailOAuthSettings) -> None:
        super().__init__(settings)
        self._refresh_token = settings.refresh_token.get_secret_value() if settings.refresh_token else None

    def _application(self):
        """A new msal application with an empty cache: msal would hand back its cached token until its own, shorter margin."""
        import msal

        s = self.settings
        kwargs: dict = {"authority": f"{s.authority_host.rstrip('/')}/{s.tenant}", "token_cache": msal.TokenCache(), "http_client": _http_session(s)}
        if s.authority_host.rstrip("/") != "https://login.microsoftonline.com":
            kwargs["instance_discovery"] = False  # a national cloud or a local stand-in
        if s.client_secret is not None:
            return msal.ConfidentialClientApplication(s.client_id, client_credential=s.client_secret.get_secret_value(), **kwargs)
        return msal.PublicClientApplication(s.client_id, **kwargs)

    def _fetch(self) -> tuple[str, float]:
        app = self._application()
        if self._refresh_token:
            result = app.acquire_token_by_refresh_token(self._refresh_token, scopes=self.settings.scopes or MICROSOFT_DELEGATED_SCOPES)
        else:
            result = app.acquire_token_for_client(scopes=self.settings.scopes or MICROSOFT_APP_SCOPES)
        if "access_token" not in result:
            raise TokenError(f"Microsoft refused the token request: {result.get('error')}: {result.get('error_description', '')[:200]}")
        if result.get("refresh_token"):  # rotated: keep the newest
            self._refresh_token = result["refresh_token"]
        return result["access_token"], time.time() + float(result.get("expires_in", 3600))


class GoogleToken(_CachedToken):
    """Google Workspace through google-auth: a user's refresh token."""

    def __init__(self, settings: MailOAuthSettings) -> None:
        super().__init__(settings)
        self._credentials = None

    def _fetch(self) -> tuple[str, float]:
        import google.auth.exceptions
        from google.auth.transport.requests import Request
        from google.oauth2.credentials import Credentials

        s = self.settings
        if self._credentials is None:
            self._credentials = Credentials(
                token=None, refresh_token=s.refresh_token.get_secret_value(), token_uri=s.token_uri,
                client_id=s.client_id, client_secret=s.client_secret.get_secret_value(), scopes=s.scopes or GOOGLE_SCOPES,
            )
        try:
            self._credentials.refresh(Request(_http_session(s)))
        except google.auth.exceptions.RefreshError as exc:
            raise TokenError(f"Google refused the token refresh: {exc.args[0] if exc.args else exc}") from exc
        expiry = self._credentials.expiry  # naive UTC
        expires_at = expiry.replace(tzinfo=timezone.utc).timestamp() if expiry else time.time() + 3600
        return self._credentials.token, expires_at


def token_source(oauth: MailOAuthSettings, *, setting_prefix: str) -> TokenSource:
    """The token source for these settings; ConfigurationError naming what is missing."""
    missing = missing_settings(oauth)
    if missing:
        raise ConfigurationError(f"XOAUTH2 needs {', '.join(setting_prefix + '__OAUTH__' + m.split(' ')[0].upper() for m in missing)}")
    try:
        if oauth.provider == "microsoft":
            import msal  # noqa: F401
        else:
            import google.oauth2.credentials  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError("XOAUTH2 needs the oauth extra: pip install 'orienta[oauth]'") from exc
    return MicrosoftToken(oauth) if oauth.provider == "microsoft" else GoogleToken(oauth)
