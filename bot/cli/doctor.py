"""`orienta doctor`."""

from __future__ import annotations

import typer

from bot.cli._common import console, print_json, services


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_cmd)


def doctor_cmd(
    ctx: typer.Context,
    llm_call: bool = typer.Option(False, "--llm-call", help="Hacer además una llamada mínima al LLM (cuesta unos tokens)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON: una lista de {check, ok, detail}."),
) -> None:
    """Revisa la instalación: configuración, base de datos y migraciones, Qdrant, buzón, SMTP, Slack, LLM, gate y disco (sin enviar nada)."""
    from bot.ops.doctor import run_doctor

    findings = run_doctor(services(ctx), llm_call=llm_call)
    if as_json:
        print_json([f.as_dict() for f in findings])
    else:
        for f in findings:
            mark = "[green]✔[/]" if f.ok else "[red]✘[/]"
            console.print(f"{mark} {f.check:<9} {f.detail}", highlight=False, soft_wrap=True)
    if not all(f.ok for f in findings):
        raise typer.Exit(1)
