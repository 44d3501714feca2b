"""`orienta demo`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from bot.cli._common import console, fail, print_json
from bot.demo import run_demo
from pipeline.settings import load_settings

ICONS = {"answerable": "respondible", "no_info": "sin información", "out_of_domain": "fuera de dominio", "skipped": "omitido", "quarantined": "cuarentena"}


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_cmd)


def demo_cmd(
    ctx: typer.Context,
    approve: int = typer.Option(5, "--approve", help="How many answered drafts the demo approves."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run the whole loop on the bundled sample office in a fresh data dir (<data dir>/demo)."""
    base: Optional[Path] = ctx.obj.data_dir
    settings = load_settings(**({"data_dir": base} if base else {}))
    settings.paths.data_dir = settings.paths.data_dir / "demo"
    try:
        result = run_demo(settings, approve=approve, progress=lambda msg: None if as_json else console.print(f"[cyan]›[/] {msg}"))
    except RuntimeError as exc:
        fail(str(exc))
    if as_json:
        print_json({
            "data_dir": str(result.data_dir),
            "outbox": str(result.outbox),
            "report": str(result.report_html),
            "digest": result.digest,
            "second_run": result.second_run.as_dict() if result.second_run else None,
            "messages": [{"source": r.source, "state": r.state, "outcome": r.outcome, "expected": r.expected.get("outcome"), "expected_doc": r.expected.get("doc"), "matches": r.matches, "reason": r.reason, "references": r.references, "draft_id": r.draft_id, "decision": r.decision} for r in result.rows],
        })
        return
    table = Table("mensaje", "resultado", "estado", "referencias / motivo", "esperado", title="Qué pasó con cada mensaje")
    for r in result.rows:
        detail = ", ".join(r.references) if r.references else (r.reason or "")
        ok = "[green]✓[/]" if r.matches else "[red]✗[/]"
        want = r.expected.get("outcome", "?") + (f" → {r.expected['doc']}" if r.expected.get("doc") else "")
        table.add_row(r.source, ICONS.get(r.outcome, r.outcome), r.state + (f" ({r.decision})" if r.decision else ""), detail[:60], f"{ok} {want}")
    console.print(table)
    good = sum(r.matches for r in result.rows)
    console.print(f"\n[bold]{good}/{len(result.rows)}[/] mensajes con el resultado esperado. Cada mensaje quedó registrado una vez "
                  f"(segunda pasada: {result.second_run.stored if result.second_run else 0} nuevos, {result.second_run.duplicates if result.second_run else 0} ya vistos).")
    c = result.digest
    console.print(f"Enviadas {c.get('sent', 0)} respuestas aprobadas por una persona; {c.get('drafted', 0) - c.get('approved', 0) - c.get('edited', 0) - c.get('rejected', 0)} borradores esperan revisión (`orienta --data-dir {result.data_dir} review list`).")
    console.print(f"Bandeja de salida (Maildir): {result.outbox}")
    console.print(f"Informe semanal: {result.report_html}")
    console.print("[dim]Los borradores se generaron sin LLM (generador extractivo); con ANTHROPIC_API_KEY se usa Claude.[/]" if result.rows else "")
