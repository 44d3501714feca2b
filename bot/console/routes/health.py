"""Weekly digests as pages, doctor's checks as a page, and the operations endpoints (/healthz, /readyz, /metrics)."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from sqlmodel import col, select

from bot.console.auth import OfficePick, lead, office_pick, staff
from bot.console.render import page
from review.db import session_scope
from review.models import DigestRun
from review.staff import StaffAccount
from review.weeks import parse_week

router = APIRouter()


@router.get("/digests")
def digests(request: Request, me: StaffAccount = Depends(staff), pick: OfficePick = Depends(office_pick)):
    with session_scope(request.app.state.services.engine) as session:  # the stored figures cover every office: the campus lead's, nothing picked
        runs = [{"week": r.iso_week, "created_at": r.created_at, "sent_at": r.sent_at, "figures": (r.figures or {}) if pick.filter is None else {}} for r in session.exec(select(DigestRun).order_by(col(DigestRun.iso_week).desc())).all()]
    return page(request, "digests.html", runs=runs, pick=pick)


@router.get("/digests/{week}")
def digest(request: Request, week: str, me: StaffAccount = Depends(staff), pick: OfficePick = Depends(office_pick)):
    """The week's digest as it was written (the same HTML the e-mail carries), or built now when it was never run.
    Campus mode: the campus lead's covers every office; an office picked (the lead may pick any, a reviewer one of
    theirs), or a reviewer's offices, get their figures built now."""
    try:
        parse_week(week)
    except ValueError:
        raise HTTPException(404) from None
    svc = request.app.state.services
    with session_scope(svc.engine) as session:
        run = session.get(DigestRun, week)
        html_path = Path(run.html_path) if run is not None and run.html_path else None
    if html_path is not None and html_path.is_file() and pick.filter is None:
        return HTMLResponse(html_path.read_text(encoding="utf-8"), headers={"Cache-Control": "no-store", "Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'"})
    from review.digest import build_digest

    with session_scope(svc.engine) as session:
        figures = build_digest(session=session, week=week, trend_weeks=0, offices=pick.filter).as_dict()
    return page(request, "digest.html", week=week, f=figures, pick=pick)


@router.get("/health")
def doctor(request: Request, me: StaffAccount = Depends(lead)):
    from bot.ops.doctor import run_doctor

    findings = run_doctor(request.app.state.services)
    return page(request, "health.html", findings=findings, ok=all(f.ok for f in findings))


def add_ops_routes(app: FastAPI, services, checks) -> None:
    """/healthz, /readyz and /metrics on the console's server (no session: probes and Prometheus call them)."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from bot.ops import readiness
    from bot.wiring import metrics

    registry = metrics.registry_for(lambda: services.engine)
    all_checks = readiness.default_checks(services) + list(checks or [])

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    @app.get("/readyz", include_in_schema=False)
    def readyz() -> Response:
        results = readiness.run_checks(all_checks)
        ok = all(r["ok"] for r in results)
        return Response(json.dumps({"ready": ok, "checks": results}, ensure_ascii=False), status_code=200 if ok else 503, media_type="application/json")

    @app.get("/metrics", include_in_schema=False)
    def prometheus() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
