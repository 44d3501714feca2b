"""The `orienta` command line."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import typer

from bot.cli import _common
from bot.cli._common import fail
from bot.ops.logs import configure_logging

try:  # typer vendors click from 0.2x on; its usage errors are not click's
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older typer on plain click
    from click import UsageError

CREATES_DATA_DIR = {"demo", "ingest", "run"}  # the commands that may start from nothing

app = typer.Typer(
    name="orienta",
    help="orienta: borradores de respuesta fundamentados para oficinas de atención estudiantil, siempre revisados por una persona.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", envvar="ORIENTA_DATA_DIR", help="Carpeta donde orienta guarda su estado (por defecto ./.orienta)."),
    init: bool = typer.Option(False, "--init", help="Crear la carpeta de datos si no existe (demo, ingest y run la crean siempre)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Mostrar el detalle del progreso en stderr."),
    log_json: bool = typer.Option(False, "--log-json", envvar="ORIENTA_OPS__LOG_JSON", help="Registros como un objeto JSON por línea."),
) -> None:
    configure_logging(level=logging.INFO if verbose else logging.WARNING, json_format=log_json)
    ctx.obj = _common.Context(data_dir=data_dir, create=init or ctx.invoked_subcommand in CREATES_DATA_DIR, init=init, verbose=verbose, log_json=log_json)
    ctx.call_on_close(ctx.obj.close)


def _register() -> None:
    from bot.cli import answers, ask, demo, digest, doctor, eval as eval_cmd, gate, ingest, review, run

    for module in (ingest, ask, gate, run, review, digest, demo, eval_cmd, answers, doctor):
        module.register(app)
    from bot.cli import eval_answers  # noqa: F401  (registers `eval answers` on eval_app)


_register()


def main() -> None:
    """Console entry point: errors, usage errors included, become one clear line on stderr."""
    try:
        code = app(standalone_mode=False, prog_name="orienta")
    except UsageError as exc:  # click would draw a box around the usage; one line says the same
        where = exc.ctx.command_path if exc.ctx is not None else "orienta"
        if not exc.format_message() and exc.ctx is not None:  # a group called without a command: its help
            typer.echo(exc.ctx.get_help())
            raise SystemExit(exc.exit_code) from None
        fail(f"{exc.format_message()} (ver: {where} --help)", code=exc.exit_code)
    except typer.Abort:
        fail("interrumpido")
    except SystemExit:
        raise
    except KeyboardInterrupt:
        fail("interrumpido")
    except Exception as exc:  # the outermost edge
        logging.getLogger("orienta").debug("unhandled error", exc_info=True)
        fail(_common.describe(exc))
    raise SystemExit(code if isinstance(code, int) else 0)
