"""`orienta demo`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from bot.cli._common import console, describe, fail, print_json
from bot.demo.run import run_demo
from bot.demo.reviewer import WeekWork
from pipeline.settings import load_settings

DECISIONS = {"approve": "aprobado", "edit": "editado", "reject": "rechazado"}
ICONS = {"answerable": "respondible", "no_info": "sin información", "out_of_domain": "fuera de dominio", "skipped": "omitido", "quarantined": "cuarentena", "acknowledged": "cierre (sin borrador)"}


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_cmd)


def demo_cmd(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Borrar sin preguntar lo que se haya agregado a la carpeta de la demo."),
    campus: bool = typer.Option(False, "--campus", help="Dos oficinas en un despliegue: correos escritos a la oficina equivocada se derivan a la correcta (<carpeta de datos>/demo-campus)."),
) -> None:
    """Recorre el ciclo completo con la oficina de ejemplo incluida, en una carpeta de datos nueva (<carpeta de datos>/demo)."""
    import sys

    from bot.demo.run import user_additions

    base: Optional[Path] = ctx.obj.data_dir
    settings = load_settings(**({"data_dir": base} if base else {}))
    if campus:
        _campus_demo(settings, as_json)
        return
    settings.paths.data_dir = settings.paths.data_dir / "demo"
    added = user_additions(settings.paths.data_dir)
    if added and not yes:
        what = "; ".join(added)
        if not sys.stdin.isatty():
            fail(f"{settings.paths.data_dir} tiene cosas agregadas después de la demo ({what}); volver a correrla las borra: confirmá con --yes o usá otra --data-dir")
        if not typer.confirm(f"{settings.paths.data_dir} tiene cosas agregadas después de la demo ({what}). ¿Borrar todo y empezar de nuevo?", default=False):
            fail("no se borró nada")
    try:
        result = run_demo(settings, progress=lambda msg: None if as_json else console.print(f"[cyan]›[/] {msg}"))
    except RuntimeError as exc:
        fail(describe(exc))
    if as_json:
        print_json({
            "data_dir": str(result.data_dir),
            "outbox": str(result.outbox),
            "report": str(result.report_html),
            "digest": result.digest,
            "second_run": result.second_run.as_dict() if result.second_run else None,
            "weeks": [w.as_dict() for w in result.weeks],
            "messages": [{"source": r.source, "state": r.state, "outcome": r.outcome, "expected": r.expected.get("outcome"), "expected_doc": r.expected.get("doc"), "matches": r.matches, "reason": r.reason, "references": r.references, "draft_id": r.draft_id, "decision": r.decision, "reused_from": r.reused_from, "reused_source": r.reused_source, "follows": r.follows, "week": r.week} for r in result.rows],
        })
        return
    table = Table("mensaje", "resultado", "documentos / motivo", "", title="Qué pasó con cada mensaje", title_justify="left", expand=False)
    for r in result.rows:
        name = r.source.removesuffix(".eml") + (" ↩" if r.follows else "") + (" ♻" if r.reused_from is not None else "")  # ↩: a follow-up in its conversation
        detail = ", ".join(r.references) if r.references else (r.reason or "").split(":")[0]
        outcome = ICONS.get(r.outcome, r.outcome) + (f" · {DECISIONS[r.decision]}" if r.decision else "")
        table.add_row(name[:34], outcome, detail[:40], "[green]✓[/]" if r.matches else "[red]✗ esperado: " + r.expected.get("outcome", "?") + "[/]")
    console.print(table)
    good = sum(r.matches for r in result.rows)
    second = result.second_run
    console.print(f"\n[bold]{good}/{len(result.rows)}[/] mensajes con el resultado esperado; cada uno registrado una sola vez "
                  f"(una segunda pasada por el buzón encontró {second.stored if second else 0} nuevos y {second.duplicates if second else 0} ya vistos).")
    c = result.digest
    waiting = c.get("drafted", 0) - c.get("approved", 0) - c.get("edited", 0) - c.get("rejected", 0)
    console.print(f"Revisión: {c.get('approved', 0)} aprobados, {c.get('edited', 0)} editados, {c.get('rejected', 0)} rechazados; "
                  f"{c.get('sent', 0)} respuestas enviadas, {waiting} borradores esperan revisión.")
    console.print(f"Conversaciones: {c.get('follow_ups', 0)} seguimientos redactados con su hilo (↩), {c.get('acknowledged', 0)} cierres («gracias») registrados sin borrador.")
    reused = [r for r in result.rows if r.reused_from is not None]
    if reused:
        console.print(f"Preguntas repetidas redactadas desde respuestas aprobadas: {len(reused)} ({', '.join(f'#{r.reused_from}' for r in reused)}).")
    if result.weeks:
        console.print(_weeks_table(result.weeks))
        drafts, approved = sum(w.drafts for w in result.weeks), sum(w.approved for w in result.weeks)
        console.print(f"Aprobados sin cambios: {approved} de {drafts} borradores ({approved / max(1, drafts):.0%}); la revisora simulada solo envía sin cambios un borrador que dice todo lo que la respuesta debe decir y nada de un período pasado.")
    console.print(f"Respuestas enviadas (Maildir): {result.outbox}")
    console.print(f"Informe semanal: {result.report_html}")
    console.print(f"Seguí revisando: orienta --data-dir {result.data_dir} review list")
    console.print("[dim]Borradores extractivos, sin LLM: frases de los documentos. Con ANTHROPIC_API_KEY los redacta Claude.[/]")


WEEK_ROWS = (
    ("mensajes recibidos", "messages"),
    ("borradores revisados", "drafts"),
    ("  desde respuestas aprobadas (♻)", "reused"),
    ("aprobados sin cambios", "approved"),
    ("  de ellos, desde respuestas aprobadas", "reused_approved"),
    ("editados", "edited"),
    ("  desde una respuesta aprobada sugerida (💡)", "from_suggestion"),
    ("  escritos por la revisora", "written"),
    ("rechazados", "rejected"),
)


def _weeks_table(weeks: list[WeekWork]) -> Table:
    """The reviewer's work per demo week, side by side."""
    table = Table("", *(f"semana {w.week}" for w in weeks), title="Trabajo de la revisora, semana por semana", title_justify="left", expand=False)
    for label, attr in WEEK_ROWS:
        table.add_row(label, *(str(getattr(w, attr)) for w in weeks))
    table.add_row("ediciones por mensaje", *(f"{w.edits_per_message:.2f}" for w in weeks))
    table.add_row("ediciones por borrador", *(f"{w.edits_per_draft:.2f}" for w in weeks))
    return table


def _campus_demo(settings, as_json: bool) -> None:
    from bot.demo.campus import run_campus_demo

    settings.paths.data_dir = settings.paths.data_dir / "demo-campus"
    try:
        rows = run_campus_demo(settings, progress=lambda msg: None if as_json else console.print(f"[cyan]›[/] {msg}"))
    except RuntimeError as exc:
        fail(describe(exc))
    if as_json:
        print_json({"data_dir": str(settings.paths.data_dir), "messages": [r.as_dict() for r in rows]})
        return
    table = Table("mensaje", "llegó a", "recorrido", "documentos", "", title="Correos entre oficinas", title_justify="left", expand=False)
    for r in rows:
        table.add_row(r.source.removesuffix(".eml"), r.arrives_at, " → ".join(r.route), ", ".join(r.references), "✓" if r.matches else "✗")
    console.print(table)
    console.print(f"{sum(r.matches for r in rows)}/{len(rows)} redactados en la oficina correcta, con su documento. Revisalos con `orienta --data-dir {settings.paths.data_dir} review list`.")
