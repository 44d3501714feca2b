"""`orienta run`."""

from __future__ import annotations

import typer

from bot.cli._common import console, print_json, services
from bot.worker import run_once


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
    console.print(f"orienta running: IMAP {'on' if app.imap else 'off'}, Slack {'on' if app.slack else 'off'}, jobs {', '.join(j.name for j in app.jobs)} (Ctrl-C to stop)")
    app.run()
