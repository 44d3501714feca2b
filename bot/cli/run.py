"""`orienta run`."""

from __future__ import annotations

import json

import typer

from bot.cli._common import console, print_json, services
from bot.loop.retention import apply_retention
from bot.loop.worker import run_once


def purge_expired(svc) -> object:
    """Remove every stored text older than the retention period (counts, decisions and metrics stay)."""
    return apply_retention(svc)


def register(app: typer.Typer) -> None:
    app.command("run")(run_cmd)


def run_cmd(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Procesa lo que espera (recepción, borradores, envíos, retención) y termina."),
    as_json: bool = typer.Option(False, "--json", help="Informe en JSON."),
) -> None:
    """Atiende los canales sin parar: IMAP (IDLE o sondeo), eventos de Slack, borradores y envío de respuestas aprobadas; sirve /healthz, /readyz y /metrics."""
    svc = services(ctx)
    if once:
        report = run_once(svc)
        if as_json:
            print_json(report.as_dict())
        else:
            console.print(
                f"{report.stored} guardados ({report.duplicates} duplicados ignorados), {report.skipped} omitidos, {report.quarantined} en cuarentena, "
                f"{report.drafted} borradores ({report.offline} sin modelo), {report.acknowledged} cierres, {report.waiting} esperando reintento, "
                f"{report.sent} enviados, {report.failed} fallidos, {report.uncertain} inciertos, {report.purged} purgados"
            )
        return
    from bot.loop.app import Job, OrientaApp
    from bot.slack.reviewing import review_pass

    from bot.ops.http import start_ops
    from bot.wiring.logs import configure_logging

    ops_cfg = svc.settings.ops  # the long-running app logs at ORIENTA_OPS__LOG_LEVEL (INFO), -v or not
    configure_logging(level="DEBUG" if ctx.obj.verbose and ops_cfg.log_level == "INFO" else ops_cfg.log_level, json_format=ops_cfg.log_json or ctx.obj.log_json)
    app = OrientaApp(svc)
    app.add_job(Job("review_cards", 2.0, review_pass))  # Slack review cards for new drafts (no-op without Slack review)
    app.add_job(Job("retention", 6 * 3600.0, purge_expired))  # raw mail and personal data past database.retention_days
    if svc.settings.digest.schedule:
        app.supervisor.add("scheduler", lambda beat: supervise_scheduler(svc, app.stop_event, beat))  # weekly digest; a missed week is caught up now
    threads_check = ("threads", lambda: (app.supervisor.ready(), json.dumps(app.supervisor.status(), default=str)))
    ops = start_ops(svc, extra_checks=[threads_check])
    web = start_console(svc, checks=[threads_check])
    where = f"http://{ops.host}:{ops.port}" if ops else "no"
    console.print(
        f"orienta en marcha: IMAP {'sí' if app.imap else 'no'}, Slack {'sí' if app.slack else 'no'}, tareas {', '.join(j.name for j in app.jobs)}, "
        f"resumen semanal {'programado' if svc.settings.digest.schedule else 'no'}, salud/métricas {where}, consola {f'http://{svc.settings.console.host}:{web.port}' if web else 'no'} (Ctrl-C para detener)",
        highlight=False,
    )
    try:
        app.run()
    finally:
        if web is not None:
            web.stop()
        if ops is not None:
            ops.stop()


def start_console(svc, *, checks=None):
    """The office console in a thread (None when ORIENTA_CONSOLE__ENABLED is false or its port is 0)."""
    cfg = svc.settings.console
    if not cfg.enabled or cfg.port == 0:
        return None
    from bot.console.server import ConsoleThread

    return ConsoleThread(svc, host=cfg.host, port=cfg.port, checks=checks).start()


def supervise_scheduler(svc, stop, beat, *, check_every_s: float = 5.0) -> None:
    """Run the weekly-digest scheduler until `stop`; raise when its thread is gone so the supervisor restarts it."""
    from bot.loop.scheduler import start_scheduler

    scheduler = start_scheduler(svc)
    try:
        while not stop.wait(check_every_s):
            if not scheduler.running or not getattr(scheduler, "_thread", None) or not scheduler._thread.is_alive():
                raise RuntimeError("the digest scheduler's thread is not running")
            beat()
    finally:
        if scheduler.running:
            scheduler.shutdown(wait=False)
