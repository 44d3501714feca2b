"""`orienta answers list|show|save|retire|faq`: the approved-answer memory and suggested FAQ entries."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from bot.cli._common import console, describe, edit_in_editor, fail, print_json, services, week_option
from review import answer_memory as answers
from review.db import session_scope
from review.errors import ReviewError

answers_app = typer.Typer(help="Respuestas aprobadas reutilizadas como borradores: listar, ver, guardar como estándar, retirar; entradas de FAQ sugeridas.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(answers_app, name="answers")


def _actor(actor: Optional[str]) -> str:
    return actor or f"cli:{os.environ.get('USER') or getpass.getuser()}"


@answers_app.command("list")
def list_cmd(
    ctx: typer.Context,
    state: Optional[str] = typer.Option(None, "--state", help="active | stale | retired (por omisión: todas)."),
    limit: int = typer.Option(200, "--limit", min=1, help="Cuántas como máximo."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Respuestas aprobadas guardadas: primero las estándar, luego las más recientes."""
    try:
        svc = services(ctx)
        offices = None if ctx.obj.office is None else [svc.office]  # --office: that office's approved answers
        with session_scope(svc.engine) as session:
            rows = [answers.as_public(a) | ({"office": a.office} if a.office else {}) for a in answers.list_answers(session=session, state=state, limit=limit, offices=offices)]
    except ReviewError as exc:
        fail(describe(exc))
    if as_json:
        print_json(rows)
        return
    table = Table("#", "estado", "estándar", "usos", "aprobada", "por", "pregunta", "documentos")
    for r in rows:
        table.add_row(str(r["id"]), r["state"], "★" if r["standard"] else "", str(r["uses"]), (r["approved_at"] or "")[:10], r["approved_by"], r["question"][:60].replace("\n", " "), ", ".join(x["doc_id"] for x in r["references"]) or "—")
    console.print(table)


@answers_app.command("show")
def show_cmd(ctx: typer.Context, answer_id: int = typer.Argument(..., help="Número de la respuesta."), as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Una respuesta guardada: pregunta, texto enviado, documentos citados y sus versiones, quién la aprobó y cuándo."""
    try:
        with session_scope(services(ctx).engine) as session:
            row = answers.as_public(answers.get_answer(session=session, answer_id=answer_id))
    except ReviewError as exc:
        fail(describe(exc))
    if as_json:
        print_json(row)
        return
    console.print(f"[bold]Respuesta #{row['id']}[/] · {row['state']}{' · estándar' if row['standard'] else ''} · usada {row['uses']} veces")
    console.print(f"Aprobada por {row['approved_by']} el {row['approved_at']}" + (f" · {row['state_reason']}" if row["state_reason"] else ""))
    console.print(f"\n[bold]Pregunta:[/]\n{row['question']}\n\n[bold]Respuesta:[/]\n{row['text']}\n")
    for ref in row["references"]:
        console.print(f"• {ref.get('title') or ref['doc_id']} ({ref['doc_id']}, versión {(ref.get('content_hash') or '?')[:12]})")


@answers_app.command("retire")
def retire_cmd(
    ctx: typer.Context,
    answer_id: int = typer.Argument(..., help="Número de la respuesta."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Por qué se retira (queda en la auditoría)."),
    actor: Optional[str] = typer.Option(None, "--as", help="Quién la retira (por omisión: cli:$USER)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Deja de usar una respuesta guardada como borrador."""
    try:
        with session_scope(services(ctx).engine) as session:
            row = answers.as_public(answers.retire(session=session, answer_id=answer_id, actor=_actor(actor), reason=reason))
    except ReviewError as exc:
        fail(describe(exc))
    if as_json:
        print_json(row)
        return
    console.print(f"Respuesta #{answer_id} retirada.")


@answers_app.command("edit")
def edit_cmd(
    ctx: typer.Context,
    answer_id: int = typer.Argument(..., help="Número de la respuesta."),
    text: Optional[str] = typer.Option(None, "--text", help="El texto nuevo (si no, se abre $EDITOR con el actual)."),
    actor: Optional[str] = typer.Option(None, "--as", help="Quién la edita (por omisión: cli:$USER)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Cambia el texto de una respuesta guardada: queda una versión nueva (la anterior, en la auditoría), atada a los documentos de hoy."""
    from bot.learning.answer_memory import current_hashes

    svc = services(ctx)
    if text is None:
        try:
            with session_scope(svc.engine) as session:
                original = answers.get_answer(session=session, answer_id=answer_id).text
        except ReviewError as exc:
            fail(describe(exc))
        text = edit_in_editor(original)
    try:
        with session_scope(svc.engine) as session:
            before = answers.get_answer(session=session, answer_id=answer_id).version
            row = answers.as_public(answers.edit_text(session=session, answer_id=answer_id, text=text, actor=_actor(actor), current=current_hashes(svc)))
    except ReviewError as exc:
        fail(describe(exc))
    if as_json:
        print_json(row)
        return
    if row["version"] == before:
        console.print(f"Respuesta #{answer_id}: el texto no cambió.")
    else:
        console.print(f"Respuesta #{answer_id}: versión {row['version']} guardada (la anterior queda en la auditoría).")


@answers_app.command("save")
def save_cmd(
    ctx: typer.Context,
    draft_id: int = typer.Argument(..., help="El borrador cuya respuesta enviada pasa a ser respuesta estándar."),
    actor: Optional[str] = typer.Option(None, "--as", help="Quién la guarda (por omisión: cli:$USER)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Guarda una respuesta enviada como respuesta estándar (atada a los documentos tal como están hoy)."""
    from bot.learning.answer_memory import current_hashes

    svc = services(ctx)
    try:
        hashes = current_hashes(svc)
        with session_scope(svc.engine) as session:
            row = answers.as_public(answers.save_standard(session=session, draft_id=draft_id, actor=_actor(actor), current=hashes))
    except ReviewError as exc:
        fail(describe(exc))
    if as_json:
        print_json(row)
        return
    console.print(f"Respuesta estándar #{row['id']} guardada.")


@answers_app.command("faq")
def faq_cmd(
    ctx: typer.Context,
    week: Optional[str] = typer.Option(None, "--week", help="Semana ISO, p. ej. 2026-W47 (por omisión: esta semana)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Dónde escribir la FAQ en Markdown (por omisión: <carpeta de informes>/faq-<semana>.md)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Exporta las entradas de FAQ sugeridas de la semana (vacíos que el personal respondió a mano) como Markdown para revisar e indexar."""
    from review.digest import build_digest
    from review.faq import render_faq_markdown

    svc = services(ctx)
    week = week_option(week)
    with session_scope(svc.engine) as session:
        suggestions = build_digest(session=session, week=week).faq_suggestions
    path = out or svc.settings.paths.reports_dir / f"faq-{week}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_faq_markdown(suggestions, week=week), encoding="utf-8")
    if as_json:
        print_json({"week": week, "path": str(path), "entries": suggestions})
        return
    console.print(f"{len(suggestions)} preguntas sugeridas → {path}")


@answers_app.command("calibrate")
def calibrate_cmd(
    ctx: typer.Context,
    min_cases: int = typer.Option(30, "--min-cases", min=2, help="Decisiones mínimas sobre borradores que se dicen listos para proponer una regla más estricta."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Solo medir: no guardar la regla adoptada."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Mide la etiqueta «listo» de los borradores offline y la reutilización de respuestas aprobadas contra lo que el equipo envió sin cambios; una regla más estricta se adopta (se guarda y se aplica a los borradores nuevos) solo si es mejor que la regla en uso en decisiones no vistas."""
    from bot.learning.readiness_calibration import adopt_calibration
    from pipeline.texts import t
    from review.report import claim_line

    report = adopt_calibration(services(ctx), min_cases=min_cases, store=not dry_run)
    if as_json:
        print_json(report)
        return
    for kind in ("readiness", "reuse"):
        r = report[kind]
        console.print(claim_line(kind, r))
        if r["adopted"]:
            h = r["held_out"]
            console.print("  " + t("calibration_adopted").format(feature=r["rule"]["feature"], minimum=f"{r['rule']['minimum']:.3f}", before=h["errors_before"], after=h["errors_after"], n=h["n"], precision=f"{r['precision_after']:.2f}"))
            if r["stored"]:
                console.print("  " + t("calibration_stored").format(path=report["path"]), highlight=False)
        elif "held_out" in r:
            h = r["held_out"]
            console.print("  " + t("calibration_kept").format(before=h["errors_before"], after=h["errors_after"], n=h["n"], lo=f"{h['interval'][0]:+.3f}", hi=f"{h['interval'][1]:+.3f}"))
        else:
            console.print("  " + t("calibration_thin").format(claimed=r["claimed"], minimum=min_cases))
        if r.get("rule_in_use") and not r.get("stored"):
            console.print("  " + t("calibration_in_use").format(feature=r["rule_in_use"]["feature"], minimum=f"{r['rule_in_use']['minimum']:.3f}"))
