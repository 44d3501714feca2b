"""CSRF for file uploads: the same signed double-submit token asgi-csrf issues, checked after FastAPI parsed the form.

asgi-csrf 0.11 reads multipart bodies with python-multipart's removed `FileClass` argument, so multipart posts to the
upload routes skip it and depend on `upload_csrf` instead; every other form goes through asgi-csrf."""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING

from fastapi import Form, HTTPException, Request
from itsdangerous import BadSignature
from itsdangerous.url_safe import URLSafeSerializer

if TYPE_CHECKING:
    from bot.wiring.services import Services

UPLOAD_PATHS = re.compile(r"^/documents/(upload|[^/]+/replace)$")


def is_upload(scope) -> bool:
    headers = dict(scope.get("headers") or [])
    return scope.get("method") == "POST" and bool(UPLOAD_PATHS.match(scope.get("path", ""))) and headers.get(b"content-type", b"").startswith(b"multipart/form-data")


def upload_csrf(request: Request, csrftoken: str = Form("")) -> None:
    """The form's token must equal the CSRF cookie, and the cookie must carry our signature."""
    from bot.console import texts

    cookie = request.cookies.get("csrftoken", "")
    try:
        URLSafeSerializer(csrf_secret(request.app.state.services)).loads(cookie, "csrftoken")
    except BadSignature:
        raise HTTPException(403, texts.t("csrf_failed")) from None
    if not csrftoken or not secrets.compare_digest(csrftoken, cookie):
        raise HTTPException(403, texts.t("csrf_failed"))


def csrf_secret(services: "Services") -> str:
    """The configured CSRF signing secret, or one kept in the data dir (stable across restarts, never logged)."""
    configured = services.settings.console.csrf_secret
    if configured is not None:
        return configured.get_secret_value()
    path = services.settings.paths.data_dir / "console" / "csrf-secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()
