"""`orienta digest`."""

from __future__ import annotations

from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services, week_option


def register(app: typer.Typer) -> None:
    app.command("digest")(digest_cmd)


def digest_cmd(
    ctx: typer.Context,
    week: Optional[str] = typer.Option(None, "--week", help="Semana ISO, p. ej. 2026-W47 (por defecto: esta semana)."),
    send: bool = typer.Option(False, "--send", help="Enviarlo también al canal de revisión y a los destinatarios."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Genera el resumen semanal de calidad (Markdown y HTML en <carpeta de datos>/reports/)."""
    from bot.loop.digest import build_and_record

    svc = services(ctx)
    week = week_option(week)
    digest, md, html = build_and_record(svc, week)
    delivery = None
    if send:
        from bot.loop.digest_delivery import deliver_digest
        from bot.loop.scheduler import claim_week

        claim_week(svc.engine, week)  # an on-demand send also marks the week delivered for the scheduler
        delivery = deliver_digest(svc, digest, md, html).as_dict()
    if as_json:
        print_json(digest.as_dict() | {"markdown": str(md), "html": str(html), "delivery": delivery})
        if delivery is not None and not delivery["slack_ts"] and not delivery["emailed"]:
            raise SystemExit(1)
        return
    c, f = digest.counts, digest.as_dict()
    console.print(f"{week}: {c['received']} recibidos, {c['skipped']} omitidos, {c['quarantined']} en cuarentena, {c['out_of_domain']} fuera de dominio, {c['drafted']} borradores, {c['approved']} aprobados, {c['edited']} editados, {c['rejected']} rechazados, {c['sent']} enviados, {f['reused']} desde respuestas aprobadas, {c['acknowledged']} cierres sin borrador, {c['follow_ups']} seguimientos")
    ttr = f["time_to_review"]
    console.print(
        f"tiempo hasta la revisión p50 {figure(ttr['p50'], ' min')}, p90 {figure(ttr['p90'], ' min')}; aceptables {figure(f['acceptable_rate'])}; kappa {figure(f['kappa'])}; "
        f"spearman {figure(f['spearman'])}; vacíos de contenido {len(f['content_gaps'])}; costo US$ {f['cost_usd']:.4f}",
        highlight=False,
    )
    per_answer, hit = f["cost_per_answer_usd"], f["cache_hit_rate"]
    console.print(f"costo por respuesta {'—' if per_answer is None else f'US$ {per_answer:.4f}'}; aciertos de caché del prompt {'—' if hit is None else f'{hit:.1%}'}", highlight=False)
    if delivery is not None:
        console.print(f"enviado: Slack {delivery['slack_ts'] or '—'}, correo {', '.join(delivery['emailed']) or '—'}" + (f" ({'; '.join(delivery['skipped'])})" if delivery["skipped"] else ""), highlight=False)
    console.print(f"informe: {html}", highlight=False)
    if delivery is not None and not delivery["slack_ts"] and not delivery["emailed"]:
        fail("no se envió el resumen a ningún lado: configurá Slack o ORIENTA_DIGEST__RECIPIENTS")


def figure(value, unit: str = "") -> str:
    """A figure of the digest, or "—" when there is none (no data that week)."""
    if value is None:
        return "—"
    return f"{value:.2f}{unit}" if isinstance(value, float) else f"{value}{unit}"
