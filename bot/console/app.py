"""The console's ASGI app: pages, Slack's /slack/events, /healthz, /readyz and /metrics on one server."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asgi_csrf import asgi_csrf
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from bot.console import texts
from bot.console.auth import Forbidden, LoginRequired
from bot.console.csrf import csrf_secret, is_upload
from bot.console.jobs import Jobs
from bot.console.render import page

if TYPE_CHECKING:
    from bot.ops.readiness import Check
    from bot.wiring.services import Services

log = logging.getLogger(__name__)
STATIC = Path(__file__).with_name("static")
SLACK_PATH = "/slack/events"


def build_console(services: "Services", *, checks: "list[Check] | None" = None) -> FastAPI:
    """The FastAPI app of the console (without the CSRF wrapper: see `create_app`)."""
    from bot.console.routes import accounts, answers, documents, gaps, health, login, queue

    app = FastAPI(title="orienta", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.services = services
    app.state.jobs = Jobs(services)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    for module in (login, queue, documents, answers, gaps, health, accounts):
        app.include_router(module.router)
    health.add_ops_routes(app, services, checks)

    @app.exception_handler(LoginRequired)
    async def _login(request: Request, exc: LoginRequired) -> Response:
        if request.method in ("GET", "HEAD"):
            return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
        return PlainTextResponse(texts.t("login_required"), status_code=401)

    @app.exception_handler(Forbidden)
    async def _forbidden(request: Request, exc: Forbidden) -> Response:
        return page(request, "error.html", status_code=403, message=texts.t("forbidden"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return page(request, "error.html", status_code=404, message=texts.t("not_found"))
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code)

    @app.middleware("http")
    async def _headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
        return response

    return app


def _checked_elsewhere(scope) -> bool:
    """Requests whose CSRF check is not asgi-csrf's: Slack's (Bolt checks Slack's signature) and file uploads (asgi-csrf
    cannot parse multipart with current python-multipart: the upload routes check the same signed token, see csrf.py)."""
    path = scope.get("path", "")
    return path.startswith(SLACK_PATH) or is_upload(scope)


async def _csrf_failed(scope, send, message_id) -> None:
    body = f"<!doctype html><meta charset=utf-8><title>orienta</title><p>{texts.t('csrf_failed')}</p><p><a href=\"/\">Volver</a></p>".encode()
    await send({"type": "http.response.start", "status": 403, "headers": [[b"content-type", b"text/html; charset=utf-8"]]})
    await send({"type": "http.response.body", "body": body})


def create_app(services: "Services", *, bolt: Any = None, checks: "list[Check] | None" = None):
    """The ASGI app `orienta run` and `orienta console` serve: every form checked for its CSRF token (asgi-csrf)."""
    console = build_console(services, checks=checks)
    wrapped = asgi_csrf(
        console,
        signing_secret=csrf_secret(services),
        always_protect={"/login"},
        skip_if_scope=_checked_elsewhere,
        cookie_secure=bool(services.settings.console.secure_cookies),
        send_csrf_failed=_csrf_failed,
    )
    if bolt is None:
        wrapped.console = console  # type: ignore[attr-defined]  (tests reach app.state through it)
        return wrapped
    from slack_bolt.adapter.asgi import SlackRequestHandler

    slack = SlackRequestHandler(bolt, path=SLACK_PATH)

    async def app(scope, receive, send) -> None:
        """Slack's events go to Bolt (it checks Slack's signature), everything else to the console."""
        if scope["type"] == "http" and scope.get("path") == SLACK_PATH:
            await slack(scope, receive, send)
        else:
            await wrapped(scope, receive, send)

    app.console = console  # type: ignore[attr-defined]
    return app


__all__ = ["build_console", "create_app"]
