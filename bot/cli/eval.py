"""`orienta eval retrieval` (and the answer evaluation)."""

from __future__ import annotations

from pathlib import Path

import typer

from bot.cli._common import console, fail, print_json, services
from bot.operations import evaluate_retrieval, read_jsonl

eval_app = typer.Typer(help="Measure retrieval and answers on question sets.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("retrieval")
def retrieval_cmd(
    ctx: typer.Context,
    qa: Path = typer.Option(..., "--qa", help="JSONL with 'question' and 'doc' (an id or a list of ids)."),
    k: str = typer.Option("1,3,5,10", "--k", help="Comma-separated cut-offs."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Document-level recall@k, MRR and latency of the current index."""
    if not qa.exists():
        fail(f"no such file: {qa}")
    try:
        ks = sorted({int(x) for x in k.split(",") if x.strip()})
    except ValueError:
        fail(f"--k must be comma-separated integers, got {k!r}")
    report = evaluate_retrieval(services(ctx), read_jsonl(qa), ks)
    if as_json:
        print_json(report)
        return
    console.print("  ".join(f"{key}={val:.3f}" if isinstance(val, float) else f"{key}={val}" for key, val in report.items()))
