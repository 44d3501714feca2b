"""`orienta console`: the office console alone (no mailbox, no drafting)."""

from __future__ import annotations

from typing import Optional

import typer

from bot.cli._common import console, services


def register(app: typer.Typer) -> None:
    app.command("console")(console_cmd)


def console_cmd(
    ctx: typer.Context,
    host: Optional[str] = typer.Option(None, "--host", help="Dirección donde escuchar (por defecto ORIENTA_CONSOLE__HOST, 127.0.0.1)."),
    port: Optional[int] = typer.Option(None, "--port", min=0, max=65535, help="Puerto (por defecto ORIENTA_CONSOLE__PORT, 8300)."),
) -> None:
    """Sirve la consola web de la oficina (cola de revisión, documentos, respuestas aprobadas, vacíos, resúmenes, salud)."""
    from bot.console.server import serve

    svc = services(ctx)
    cfg = svc.settings.console
    host, port = host or cfg.host, cfg.port if port is None else port
    console.print(f"consola en http://{host}:{port} (Ctrl-C para detener)", highlight=False)
    serve(svc, host=host, port=port)
