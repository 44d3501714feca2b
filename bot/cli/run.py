"""`orienta run`."""

from __future__ import annotations

import time

import typer

from bot.cli._common import console, print_json, services
from bot.worker import run_once


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)


def run_cmd(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Process what is waiting, then exit."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run the channels: intake, gate and drafting, sending approved replies."""
    svc = services(ctx)
    while True:
        report = run_once(svc)
        if as_json:
            print_json(report.as_dict())
        else:
            console.print(f"stored {report.stored} (duplicates ignored {report.duplicates}), skipped {report.skipped}, quarantined {report.quarantined}, drafted {report.drafted}, sent {report.sent}, failed {report.failed}")
        if once:
            return
        time.sleep(svc.settings.imap.poll_seconds)
