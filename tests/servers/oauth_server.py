"""A local stand-in for the OAuth 2.0 token endpoints of Microsoft and Google, and an RFC 7662 introspection endpoint.

``FakeOAuthServer`` serves, over HTTPS (a certificate from the test's CA, since msal only accepts https
authorities) on ``https_url``:

* Microsoft identity platform: ``GET /{tenant}/v2.0/.well-known/openid-configuration`` and
  ``POST /{tenant}/oauth2/v2.0/token`` with ``grant_type=client_credentials`` (client_id, client_secret, scope
  ending in ``/.default``) or ``grant_type=refresh_token`` (the refresh token is rotated, as Microsoft does).
  Errors as Microsoft sends them: ``invalid_client`` (401, AADSTS7000215) for a wrong secret,
  ``invalid_grant`` (400) for an unknown refresh token, ``invalid_scope`` for a client-credentials scope
  without ``/.default``.
  https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow
* Google: ``POST /token`` with ``grant_type=refresh_token``; ``invalid_client`` (401) or ``invalid_grant`` (400).
  https://developers.google.com/identity/protocols/oauth2/web-server#offline

and over plain HTTP on ``introspection_url`` the endpoint Dovecot's oauth2 passdb asks with
``introspection_mode = post`` (form ``token=...``): ``{"active": true, "username": ...}`` for a live token,
``{"active": false}`` otherwise (RFC 7662 section 2.2).

Every issued access token belongs to the mailbox user registered for its client (``add_client``) and expires
after ``expires_in`` seconds; ``revoke_all()`` makes the issued ones inactive (a server-side revocation).
"""

from __future__ import annotations

import json
import secrets
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeOAuthServer"]


@dataclass
class _Client:
    secret: str
    user: str
    refresh_tokens: set[str] = field(default_factory=set)


class FakeOAuthServer:
    """Token endpoints (HTTPS) and token introspection (HTTP) on loopback."""

    def __init__(self, tls: ssl.SSLContext, *, expires_in: int = 3600, tenant: str = "contoso.example") -> None:
        self.tls = tls
        self.expires_in = expires_in
        self.tenant = tenant
        self.clients: dict[str, _Client] = {}
        self.tokens: dict[str, tuple[str, float]] = {}  # live access token -> (user, expires_at)
        self.issued_tokens: list[str] = []  # every access token ever issued (also revoked ones)
        self.token_requests: list[dict] = []
        self.introspections: list[str] = []
        self._lock = threading.Lock()
        self._servers: list[ThreadingHTTPServer] = []

    # ------------------------------------------------------------ control
    def add_client(self, client_id: str, secret: str, user: str) -> str:
        """Register an app whose tokens open `user`'s mailbox; returns a refresh token for it."""
        refresh = "rt-" + secrets.token_urlsafe(16)
        with self._lock:
            self.clients[client_id] = _Client(secret, user, {refresh})
        return refresh

    def revoke_all(self) -> None:
        with self._lock:
            self.tokens.clear()

    @property
    def https_url(self) -> str:
        return f"https://localhost:{self._servers[0].server_address[1]}"

    @property
    def introspection_url(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}/introspect"

    def start(self) -> "FakeOAuthServer":
        for tls in (True, False):
            srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
            srv.daemon_threads = True
            srv.owner = self  # type: ignore[attr-defined]
            if tls:
                srv.socket = self.tls.wrap_socket(srv.socket, server_side=True)
            threading.Thread(target=srv.serve_forever, daemon=True).start()
            self._servers.append(srv)
        return self

    def stop(self) -> None:
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()

    def __enter__(self) -> "FakeOAuthServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------ endpoints
    def _issue(self, client: _Client, *, rotate: str | None = None) -> dict:
        token = "at-" + secrets.token_urlsafe(24)
        self.tokens[token] = (client.user, time.time() + self.expires_in)
        self.issued_tokens.append(token)
        body = {"token_type": "Bearer", "expires_in": self.expires_in, "access_token": token}
        if rotate is not None:
            client.refresh_tokens.discard(rotate)
            new = "rt-" + secrets.token_urlsafe(16)
            client.refresh_tokens.add(new)
            body["refresh_token"] = new
        return body

    def token(self, path: str, form: dict[str, str]) -> tuple[int, dict]:
        with self._lock:
            self.token_requests.append({"path": path, **{k: v for k, v in form.items() if k not in ("client_secret",)}})
            microsoft = path.endswith("/oauth2/v2.0/token")
            client = self.clients.get(form.get("client_id", ""))
            if client is None or (form.get("client_secret") is not None and form["client_secret"] != client.secret):
                desc = "AADSTS7000215: Invalid client secret provided." if microsoft else "The OAuth client was not found."
                return 401, {"error": "invalid_client", "error_description": desc}
            grant = form.get("grant_type")
            if grant == "client_credentials" and microsoft:
                if form.get("client_secret") is None:
                    return 401, {"error": "invalid_client", "error_description": "AADSTS7000218: The request body must contain client_secret."}
                if not all(s.endswith("/.default") for s in form.get("scope", "").split()):
                    return 400, {"error": "invalid_scope", "error_description": "AADSTS1002012: The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed."}
                return 200, self._issue(client)
            if grant == "refresh_token":
                if form.get("refresh_token") not in client.refresh_tokens:
                    return 400, {"error": "invalid_grant", "error_description": "AADSTS70000: The refresh token is invalid." if microsoft else "Bad Request"}
                if not microsoft and form.get("client_secret") is None:
                    return 401, {"error": "invalid_client", "error_description": "client_secret is missing."}
                return 200, self._issue(client, rotate=form["refresh_token"] if microsoft else None)
            return 400, {"error": "unsupported_grant_type", "error_description": f"grant_type {grant!r}"}

    def introspect(self, token: str) -> dict:
        with self._lock:
            self.introspections.append(token)
            user, expires_at = self.tokens.get(token, ("", 0.0))
            if not user or time.time() >= expires_at:
                return {"active": False}
            return {"active": True, "username": user, "exp": int(expires_at), "token_type": "Bearer"}

    def openid_configuration(self, tenant: str) -> dict:
        base = f"{self.https_url}/{tenant}"
        return {
            "issuer": f"{base}/v2.0", "token_endpoint": f"{base}/oauth2/v2.0/token",
            "authorization_endpoint": f"{base}/oauth2/v2.0/authorize", "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
        }


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeOAuth/1"

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        owner: FakeOAuthServer = self.server.owner  # type: ignore[attr-defined]
        path = urlsplit(self.path).path
        parts = path.strip("/").split("/")
        if len(parts) == 4 and parts[1:] == ["v2.0", ".well-known", "openid-configuration"]:
            if parts[0] != owner.tenant:
                self._reply(400, {"error": "invalid_tenant", "error_description": f"AADSTS90002: Tenant '{parts[0]}' not found."})
                return
            self._reply(200, owner.openid_configuration(parts[0]))
            return
        self._reply(404, {"error": "not_found"})

    def do_POST(self) -> None:  # noqa: N802
        owner: FakeOAuthServer = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        form = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
        path = urlsplit(self.path).path
        if path == "/introspect":
            self._reply(200, owner.introspect(form.get("token", "")))
        elif path == "/token" or path == f"/{owner.tenant}/oauth2/v2.0/token":
            self._reply(*owner.token(path, form))
        else:
            self._reply(404, {"error": "not_found"})

    def log_message(self, format: str, *args) -> None:
        pass
