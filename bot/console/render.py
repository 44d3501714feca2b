"""Templates and small view helpers shared by the routes."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import HTMLResponse

from bot.console import texts

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))  # autoescape on for .html


def _when(at: datetime | str | None) -> str:
    if at is None or at == "":
        return "—"
    if isinstance(at, str):
        try:
            at = datetime.fromisoformat(at)
        except ValueError:
            return at[:16]
    at = at if at.tzinfo else at.replace(tzinfo=timezone.utc)
    return at.astimezone(timezone.utc).strftime("%d/%m/%Y %H:%M UTC")


def _figure(value: Any, digits: int = 2) -> str:
    """A figure, or "—" when there is none."""
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _http_url(url: str | None) -> str | None:
    """Only http(s) links become links (a document could carry a javascript: URL)."""
    return url if url and url.lower().startswith(("http://", "https://")) else None


def _who(actor: str | None) -> str:
    from bot.console.views import who

    return who(actor)


TEMPLATES.env.filters["when"] = _when
TEMPLATES.env.filters["who"] = _who
TEMPLATES.env.filters["http_url"] = _http_url
TEMPLATES.env.filters["figure"] = _figure
TEMPLATES.env.globals["t"] = texts.t


def _office_query(request: Request) -> str:
    from urllib.parse import urlencode

    office = request.query_params.get("office")
    return "?" + urlencode({"office": office}) if office else ""


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render a page with the signed-in account, its CSRF token and any notice."""
    token = request.scope.get("csrftoken")
    context |= {
        "request": request,
        "me": getattr(request.state, "staff", None),
        "csrftoken": token() if callable(token) else "",
        "notice": context.get("notice") or texts.notice(request.query_params.get("aviso")),
        "office_q": _office_query(request),  # campus mode: the office being looked at, kept in forms and links
    }
    response = TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
    response.headers["Cache-Control"] = "no-store"
    return response
