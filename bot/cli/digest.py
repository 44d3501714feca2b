"""`orienta digest`."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services
from review.db import session_scope
from review.digest import build_digest, record_run, write_report
from review.weeks import iso_week


def register(app: typer.Typer) -> None:
    app.command("digest")(digest_cmd)


def digest_cmd(
    ctx: typer.Context,
    week: Optional[str] = typer.Option(None, "--week", help="ISO week like 2026-W47 (default: this week)."),
    send: bool = typer.Option(False, "--send", help="Also send it to the review channel and the recipients."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Build the weekly quality digest (Markdown and HTML under <data dir>/reports/)."""
    svc = services(ctx)
    week = week or iso_week(datetime.now(timezone.utc))
    try:
        with session_scope(svc.engine) as session:
            digest = build_digest(session=session, week=week)
            md, html = write_report(digest, svc.settings.paths.reports_dir)
            record_run(session=session, digest=digest, md=md, html=html)
    except ValueError as exc:
        fail(str(exc))
    if send:
        fail("sending the digest needs Slack or SMTP configured (see the README); the report was written to " + str(html))
    if as_json:
        print_json(digest.as_dict() | {"markdown": str(md), "html": str(html)})
        return
    c = digest.counts
    console.print(f"{week}: received {c['received']}, skipped {c['skipped']}, quarantined {c['quarantined']}, out of domain {c['out_of_domain']}, drafted {c['drafted']}, approved {c['approved']}, edited {c['edited']}, rejected {c['rejected']}, sent {c['sent']}")
    console.print(f"report: {html}")
