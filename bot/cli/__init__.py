"""The `orienta` command line."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import typer
from typer.core import TyperCommand, TyperGroup

from bot.cli import _common
from bot.wiring import spanish as _spanish
from bot.cli._common import fail
from bot.wiring.logs import configure_logging

try:  # typer vendors click from 0.2x on; its usage errors are not click's
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older typer on plain click
    from click import UsageError

CREATES_DATA_DIR = {"demo", "ingest", "run", "console", "staff", "offices"}  # the commands that may start from nothing (an office starts by adding its first account)
HELP_OPTION = "Muestra esta ayuda y termina."
PANELS = {"argument": "Argumentos", "option": "Opciones"}  # typer's `rich_help_panel`; unset, its panels say "Arguments"/"Options"


class _SpanishHelp:
    """click's --help option says "Show this message and exit." (not translatable): ours says it in Spanish."""

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.help = HELP_OPTION
        return option

    def get_params(self, ctx):
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            param.rich_help_panel = getattr(param, "rich_help_panel", None) or PANELS.get(param.param_type_name)
        return params


OFFICE_HELP = "Oficina con la que trabaja el comando (por defecto: la única oficina, o la principal)."


def _office_option():
    """The --office option every command takes, built by typer itself (from a one-option command) once."""
    global _OFFICE_OPTION
    if _OFFICE_OPTION is None:
        probe = typer.Typer()

        @probe.command()
        def _probe(office: Optional[str] = typer.Option(None, "--office", help=OFFICE_HELP, rich_help_panel=PANELS["option"])) -> None:  # pragma: no cover - never run
            pass

        (option,) = [p for p in typer.main.get_command(probe).params if p.name == "office"]
        option.expose_value, option.is_eager, option.callback = False, True, _common.set_office
        _OFFICE_OPTION = option
    return _OFFICE_OPTION


_OFFICE_OPTION = None


class Command(_SpanishHelp, TyperCommand):
    def get_params(self, ctx):
        """Every command takes --office (campus mode), unless it has an --office of its own (review move's destination)."""
        params = super().get_params(ctx)
        if any("--office" in getattr(p, "opts", ()) for p in params):
            return params
        office = _office_option()
        return [*params[:-1], office, params[-1]] if params and "--help" in getattr(params[-1], "opts", ()) else [*params, office]


class Group(_SpanishHelp, TyperGroup):
    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is not None and not getattr(command, "rich_help_panel", None):
            command.rich_help_panel = "Comandos"
        return command


app = typer.Typer(
    name="orienta",
    cls=Group,
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
    office: Optional[str] = typer.Option(None, "--office", envvar="ORIENTA_OFFICE", help=OFFICE_HELP),
) -> None:
    configure_logging(level=logging.INFO if verbose else logging.WARNING, json_format=log_json)
    ctx.obj = _common.Context(data_dir=data_dir, create=init or ctx.invoked_subcommand in CREATES_DATA_DIR, init=init, verbose=verbose, log_json=log_json, office=office)
    ctx.call_on_close(ctx.obj.close)


def _register() -> None:
    from bot.cli import answers, ask, console, demo, digest, doctor, eval as eval_cmd, gate, ingest, offices, review, run, staff

    for module in (ingest, ask, gate, run, review, digest, demo, eval_cmd, answers, doctor, staff, console, offices):
        module.register(app)
    from bot.cli import eval_answers  # noqa: F401  (registers `eval answers` on eval_app)
    _use_spanish_help(app)


def _use_spanish_help(typer_app: typer.Typer) -> None:
    """Every command and group of the tree gets the Spanish --help (typer's `cls`, set once here, not on each command)."""
    for command in typer_app.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = Command
    for group in typer_app.registered_groups:
        group.typer_instance.info.cls = Group
        _use_spanish_help(group.typer_instance)


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
        fail(f"{_spanish.usage(exc.format_message())} (ver: {where} --help)", code=exc.exit_code)
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
