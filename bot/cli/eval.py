"""`orienta eval retrieval` (the answer evaluation registers its own command on eval_app)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services
from bot.ops.documents import evaluate_retrieval, read_jsonl
from pipeline.retrieval import MODES

eval_app = typer.Typer(help="Mide la recuperación y las respuestas sobre conjuntos de preguntas.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("retrieval")
def retrieval_cmd(
    ctx: typer.Context,
    qa: Path = typer.Option(..., "--qa", help="JSONL con 'question' y 'doc' (un id o una lista de ids)."),
    k: str = typer.Option("1,3,5,10", "--k", help="Cortes separados por comas."),
    mode: Optional[str] = typer.Option(None, "--mode", help="dense, sparse o hybrid (por defecto, el de la configuración)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Recall@k por documento, MRR y latencia del índice actual."""
    if not qa.exists():
        fail(f"no existe el archivo {qa}")
    try:
        ks = sorted({int(x) for x in k.split(",") if x.strip()})
    except ValueError:
        fail(f"--k lleva enteros separados por comas (se recibió {k!r})")
    if not ks or min(ks) < 1:
        fail("--k necesita al menos un corte positivo")
    if mode and mode not in MODES:
        fail(f"--mode desconocido {mode!r}; opciones: {', '.join(MODES)}")
    try:
        rows = read_jsonl(qa)
    except ValueError as exc:
        fail(f"{qa}: no es JSON válido, una línea por objeto ({exc})")
    bad = next((i for i, r in enumerate(rows, 1) if not isinstance(r, dict) or "question" not in r or "doc" not in r), None)
    if bad:
        fail(f"{qa}: a la línea {bad} le falta 'question' o 'doc'")
    svc = services(ctx)
    if mode:
        svc.settings.retrieval.mode = mode  # type: ignore[assignment]
    report = evaluate_retrieval(svc, rows, ks)
    if as_json:
        print_json(report)
        return
    console.print("  ".join(f"{key}={val:.3f}" if isinstance(val, float) else f"{key}={val}" for key, val in report.items()))


@eval_app.command("routing")
def routing_cmd(
    ctx: typer.Context,
    qa: Path = typer.Option(..., "--qa", help="JSONL con 'question' y 'office' (nombre de la oficina, o null: fuera de dominio)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Macro-F1, exactitud y matriz de confusión del ruteo entre oficinas (entrena el ruteador si no hay uno al día)."""
    from bot.cli._common import ctx_root, describe
    from bot.learning.routing import evaluate_routing
    from classifiers.errors import GateError

    if not qa.exists():
        fail(f"no existe el archivo {qa}")
    try:
        rows = read_jsonl(qa)
    except ValueError as exc:
        fail(f"{qa}: no es JSON válido, una línea por objeto ({exc})")
    bad = next((i for i, r in enumerate(rows, 1) if not isinstance(r, dict) or not isinstance(r.get("question"), str) or "office" not in r or not (r["office"] is None or isinstance(r["office"], str))), None)
    if bad:
        fail(f"{qa}: la línea {bad} necesita 'question' (texto) y 'office' (nombre de oficina o null)")
    if not rows:
        fail(f"{qa}: no tiene preguntas")
    try:
        with console.status("Ruteando preguntas…"):
            report = evaluate_routing(ctx_root(ctx), rows)
    except GateError as exc:
        fail(describe(exc))
    if as_json:
        print_json(report)
        return
    console.print(f"n={report['n']}  macro-F1={report['macro_f1']:.3f}  exactitud={report['accuracy']:.3f}  ({report['ms_per_message_routing']:.1f} ms por mensaje)")
    for label, f1 in report["f1"].items():
        console.print(f"  {label:24} F1={f1:.3f}", highlight=False)
    console.print("confusión (filas: real; columnas: ruteado):")
    for label, row in report["confusion"].items():
        console.print(f"  {label:24} " + "  ".join(f"{k}={v}" for k, v in row.items() if v), highlight=False)
