"""The `orienta` command line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Optional

import typer

from bot.cli import _common
from bot.cli._common import fail

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
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", envvar="ORIENTA_DATA_DIR", help="Where orienta keeps its state (default ./.orienta)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details to stderr."),
) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    ctx.obj = _common.Context(data_dir=data_dir)
    ctx.call_on_close(ctx.obj.close)


def _register() -> None:
    from bot.cli import answers, ask, demo, digest, eval as eval_cmd, gate, ingest, review, run

    for module in (ingest, ask, gate, run, review, digest, demo, eval_cmd, answers):
        module.register(app)
    from bot.cli import eval_answers  # noqa: F401  (registers `eval answers` on eval_app)


_register()


def main() -> None:
    """Console entry point: errors become one clear line on stderr."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        fail("interrupted")
    except Exception as exc:  # the outermost edge
        logging.getLogger("orienta").debug("unhandled error", exc_info=True)
        fail(_common.describe(exc))
