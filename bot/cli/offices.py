"""`orienta offices add|list|remove|unrouted`: the offices of a campus deployment."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from bot.cli._common import console, ctx_root, fail, print_json
from review.db import session_scope
from review.errors import OfficeError, UnknownOffice
from review.office_models import OfficeCreate

offices_app = typer.Typer(help="Oficinas de un campus: cada una con sus documentos, su gate, su cola de revisión y su resumen.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(offices_app, name="offices")


def _actor() -> str:
    return f"cli:{os.environ.get('USER') or getpass.getuser()}"


@offices_app.command("add")
def add_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Nombre de la oficina (por ejemplo \"Becas y Bienestar\")."),
    documents: List[Path] = typer.Option(..., "--documents", help="Carpeta o archivo con los documentos de la oficina (se puede repetir)."),
    review_channel: Optional[str] = typer.Option(None, "--review-channel", help="Canal de Slack donde sus revisores reciben los borradores."),
    mailbox: Optional[str] = typer.Option(None, "--mailbox", help="Dirección propia de la oficina (el correo a ella es de esta oficina)."),
    reply_from: Optional[str] = typer.Option(None, "--reply-from", help="Remitente de sus respuestas (\"Nombre <dirección>\")."),
    retention_days: Optional[int] = typer.Option(None, "--retention-days", min=1, help="Días que se guardan los datos personales de sus mensajes (por omisión: los del despliegue)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Crea una oficina; después `orienta ingest --office NOMBRE` indexa sus documentos y `orienta gate train --office NOMBRE` entrena su gate."""
    for p in documents:
        if not p.exists():
            fail(f"no existe el archivo o carpeta {p}")
    root = ctx_root(ctx)
    from bot.wiring.campus import campus_of
    from review.offices import add_office

    campus = campus_of(root)
    reserved = [o.name for o in campus.offices() if o.source != "database"]
    data = OfficeCreate(name=name, slug="", documents=[str(p.resolve()) for p in documents], review_channel=review_channel, mailbox=mailbox, reply_from=reply_from, retention_days=retention_days)
    try:
        with session_scope(root.engine) as session:
            office = add_office(session=session, data=data, actor=_actor(), reserved=reserved)
            result = {"name": office.name, "slug": office.slug, "documents": office.documents, "review_channel": office.review_channel, "retention_days": office.retention_days}
    except OfficeError as exc:
        fail(_spanish_office_error(exc))
    if as_json:
        print_json(result)
        return
    console.print(f"oficina {result['name']!r} creada ({len(result['documents'])} carpeta(s) de documentos); siguiente paso: orienta ingest --office {result['name']!r}", highlight=False)


@offices_app.command("list")
def list_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Las oficinas, con sus documentos indexados y sus mensajes pendientes."""
    from bot.wiring.campus import campus_of
    from review.offices import count_pending

    root = ctx_root(ctx)
    campus = campus_of(root)
    rows = []
    with session_scope(root.engine) as session:
        for office in campus.offices():
            svc = campus.office_services(office.name)
            indexed = svc.index.count() if (svc.settings.qdrant.url or svc.settings.paths.qdrant_dir.exists()) else 0
            pending = count_pending(session=session, office=None if office.default else office.name)
            rows.append({"name": office.name, "default": office.default, "source": office.source, "documents": [str(d) for d in office.documents], "chunks": indexed, "pending": pending, "review_channel": office.review_channel})
    if as_json:
        print_json(rows)
        return
    table = Table("oficina", "origen", "fragmentos", "pendientes", "canal de revisión")
    for r in rows:
        table.add_row(r["name"] + (" (principal)" if r["default"] else ""), r["source"], str(r["chunks"]), str(r["pending"]), r["review_channel"] or "")
    console.print(table)


@offices_app.command("remove")
def remove_cmd(ctx: typer.Context, name: str = typer.Argument(..., help="Nombre de la oficina.")) -> None:
    """Quita una oficina creada con `offices add`; sus mensajes pendientes quedan a la vista de la coordinación (`offices unrouted`)."""
    from bot.wiring.campus import campus_of
    from review.offices import remove_office

    root = ctx_root(ctx)
    info = None
    try:
        info = campus_of(root).info(name)
    except UnknownOffice:
        fail(f"no existe la oficina {name!r}")
    if info.source != "database":
        fail(f"la oficina {info.name!r} no se creó con `offices add` (es la principal o está declarada en la configuración): quitala de ORIENTA_OFFICES__DECLARED")
    with session_scope(root.engine) as session:
        office, pending = remove_office(session=session, name=info.name, actor=_actor())
    note = f"; {pending} mensaje(s) pendiente(s) quedan en `orienta offices unrouted` hasta que alguien los mueva (`orienta review move ID --office OTRA`)" if pending else ""
    console.print(f"oficina {office.name!r} quitada{note}", highlight=False)


@offices_app.command("unrouted")
def unrouted_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Mensajes pendientes que ninguna oficina toma (su oficina no existe o se quitó), con el motivo: para la coordinación del campus."""
    from bot.wiring.campus import campus_of
    from review.offices import unrouted

    root = ctx_root(ctx)
    with session_scope(root.engine) as session:
        rows = unrouted(session=session, known=campus_of(root).names())
    items = [{"message_id": r.message_id, "office": r.office, "state": r.state, "reason": r.reason, "received_at": r.received_at.isoformat()} for r in rows]
    if as_json:
        print_json(items)
        return
    if not items:
        console.print("Ningún mensaje quedó sin oficina.")
        return
    table = Table("#", "oficina", "estado", "motivo")
    for it in items:
        table.add_row(str(it["message_id"]), it["office"], it["state"], it["reason"])
    console.print(table)
    console.print("Movelos con `orienta review move ID --office OFICINA`.")


@offices_app.command("train-router")
def train_router_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Entrena el ruteador del campus con los documentos de cada oficina y los movimientos del equipo (se adopta solo si no empeora en decisiones reservadas)."""
    from bot.cli._common import describe
    from bot.learning.routing import train_router
    from classifiers.errors import GateError

    try:
        with console.status("Entrenando el ruteador entre oficinas…"):
            router = train_router(ctx_root(ctx))
    except GateError as exc:
        fail(describe(exc))
    summary = {"offices": router.offices, **router.meta}
    if as_json:
        print_json(summary)
        return
    held = router.meta.get("heldout_synthetic", {})
    console.print(f"ruteador entrenado para {', '.join(router.offices)}: {router.meta.get('n_examples', 0)} preguntas sintéticas, {router.meta.get('n_staff', 0)} decisiones del equipo; macro-F1 en sintéticas reservadas {held.get('macro_f1', 0):.3f}", highlight=False)
    if "rejected_retraining" in router.meta:
        console.print("[yellow]el reentrenamiento con las decisiones del equipo era peor en decisiones reservadas: se mantiene el ruteador anterior[/]")


def _spanish_office_error(exc: Exception) -> str:
    if "already exists" in str(exc):
        return "ya existe una oficina con ese nombre (la principal, una declarada en la configuración o una creada antes)"
    return str(exc)
