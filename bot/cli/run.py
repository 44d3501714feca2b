"""`orienta run`."""

from __future__ import annotations

import typer

from bot.cli._common import console, print_json, services
from bot.worker import run_once
from review.db import session_scope
from review.retention import purge_personal_data


def purge_expired(svc) -> object:
    """Delete raw messages and personal data older than the retention period (decisions and metrics stay)."""
    with session_scope(svc.engine) as session:
        return purge_personal_data(session=session, days=svc.settings.database.retention_days)


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)


def run_cmd(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Process what is waiting (intake, drafting, sending), then exit."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run the channels continuously: IMAP IDLE/poll, Slack events, drafting and sending approved replies."""
    svc = services(ctx)
    if once:
        report = run_once(svc)
        if as_json:
            print_json(report.as_dict())
        else:
            console.print(
                f"stored {report.stored} (duplicates ignored {report.duplicates}), skipped {report.skipped}, quarantined {report.quarantined}, "
                f"drafted {report.drafted}, sent {report.sent}, failed {report.failed}, uncertain {report.uncertain}"
            )
        return
    from bot.app import Job, OrientaApp
    from bot.slack.reviewing import review_pass

    app = OrientaApp(svc)
    app.add_job(Job("review_cards", 2.0, review_pass))  # Slack review cards for new drafts (no-op without Slack review)
    app.add_job(Job("retention", 6 * 3600.0, purge_expired))  # raw mail and personal data past database.retention_days
    scheduler = None
    if svc.settings.digest.schedule:
        from bot.scheduler import start_scheduler

        scheduler = start_scheduler(svc)  # weekly digest; a missed week is caught up now
    console.print(f"orienta running: IMAP {'on' if app.imap else 'off'}, Slack {'on' if app.slack else 'off'}, jobs {', '.join(j.name for j in app.jobs)}, weekly digest {'scheduled' if scheduler else 'off'} (Ctrl-C to stop)")
    try:
        app.run()
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)
