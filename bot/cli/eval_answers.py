"""`orienta eval answers`: the answer evaluation over a grid of configurations."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from bot.cli._common import console, err_console, fail, print_json, services
from bot.cli.eval import eval_app


KIND_LABELS = {"course_plan": "plan de estudios", "rules_procedures": "reglamentos, trámites y guías"}


def _split(value: str, cast, name: str) -> list:
    try:
        items = [cast(x.strip()) for x in value.split(",") if x.strip()]
    except ValueError:
        fail(f"--{name} lleva una lista separada por comas (se recibió {value!r})")
    if not items:
        fail(f"--{name} está vacío")
    return list(dict.fromkeys(items))


def _fmt(value, pct: bool = True) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if pct else f"{value:.3f}"


@eval_app.command("answers")
def answers_cmd(
    ctx: typer.Context,
    qa: Optional[Path] = typer.Option(None, "--qa", help="JSONL con 'question', 'answer' (la referencia) y opcionalmente 'doc' y 'kind'."),
    from_approved: bool = typer.Option(False, "--from-approved", help="Evaluar contra las respuestas que el equipo aprobó (activas) en vez de un archivo: qué tan cerca quedan los borradores de lo que se envió."),
    method: Optional[str] = typer.Option(None, "--method", help="Métodos de generación separados por comas (rag, derivation); por defecto, el de la configuración."),
    k: Optional[str] = typer.Option(None, "--k", help="Cantidades de fragmentos recuperados, separadas por comas; por defecto, la de la configuración."),
    chunking: Optional[str] = typer.Option(None, "--chunking", help="Estrategias de fragmentación separadas por comas; por defecto, la de la configuración."),
    effort: Optional[str] = typer.Option(None, "--effort", help="Niveles de esfuerzo separados por comas (low, medium, high, xhigh, max) para los modelos que lo aceptan; por defecto, el de la configuración."),
    temperature: Optional[str] = typer.Option(None, "--temperature", help="Temperaturas separadas por comas, solo para modelos que aceptan parámetros de muestreo (las combinaciones que un modelo rechaza se informan, nunca se envían)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Solo las primeras N preguntas (o una muestra pareja con --sample)."),
    sample: bool = typer.Option(False, "--sample", help="Con --limit: tomar una muestra a intervalos regulares en vez de las primeras N."),
    docs: Optional[list[Path]] = typer.Option(None, "--docs", help="Carpetas de documentos a indexar para las estrategias de fragmentación aún no indexadas."),
    chart: Optional[Path] = typer.Option(None, "--chart", help="Escribir aquí el gráfico comparativo (PNG) (por defecto: <carpeta de datos>/reports/answers.png)."),
    details: Optional[Path] = typer.Option(None, "--details", help="Escribir una línea JSON por pregunta y configuración (pregunta, borrador, método, referencias, documento esperado, cifras)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Responde cada pregunta con cada configuración, la evalúa y compara (con caché, reanudable)."""
    from bot.ops.answer_eval import evaluate_answers, grid
    from bot.ops.documents import read_jsonl
    from review.charts import comparison_chart

    if (qa is None) == (not from_approved):
        fail("indicá --qa ARCHIVO o --from-approved (una de las dos)")
    if qa is not None and not qa.exists():
        fail(f"no existe el archivo {qa}")
    svc = services(ctx)
    s = svc.settings
    if from_approved:
        from bot.ops.answer_eval import approved_rows

        rows = approved_rows(svc)
        if not rows:
            fail("no hay respuestas aprobadas activas todavía: aprobá borradores o guardalas con `orienta answers save`")
    else:
        rows = read_jsonl(qa)  # type: ignore[arg-type]
    if any("question" not in r for r in rows):
        fail("cada línea de --qa necesita una 'question'")
    if limit:
        rows = rows[:: max(1, len(rows) // limit)][:limit] if sample else rows[:limit]
    configs = grid(
        methods=_split(method, str, "method") if method else [s.llm.method],
        ks=_split(k, int, "k") if k else [s.retrieval.k],
        chunkings=_split(chunking, str, "chunking") if chunking else [s.retrieval.chunking],
        efforts=_split(effort, str, "effort") if effort else [None],
        temperatures=_split(temperature, float, "temperature") if temperature else [None],
    )
    out = None
    if details is not None:
        import json

        details.parent.mkdir(parents=True, exist_ok=True)
        out = details.open("w", encoding="utf-8")
    try:
        report = evaluate_answers(svc, rows, configs, docs=docs, memory=not from_approved, progress=lambda m: err_console.print(m, highlight=False), details=(lambda line: out.write(json.dumps(line, ensure_ascii=False) + "\n")) if out else None)
    finally:
        if out is not None:
            out.close()
    chart_path = chart or s.paths.reports_dir / "answers.png"
    chart_path.parent.mkdir(parents=True, exist_ok=True)
    if report["configs"]:
        chart_path.write_bytes(comparison_chart(report["configs"]))
    report["chart"] = str(chart_path)
    if as_json:
        print_json(report)
        return
    from rich.table import Table

    table = Table(title=f"{report['n_questions']} preguntas · {report['computed']} calculadas, {report['cached']} en caché")
    for col in ("configuración", "ejecutó", "aceptables", "respondidas", "corrección", "total", "fidelidad", "F1", "doc@k", "latencia p50", "costo"):
        table.add_column(col, justify="left" if col in ("configuración", "ejecutó") else "right")
    for r in report["configs"]:
        table.add_row(r["label"], ", ".join(r["ran"]), _fmt(r["acceptable_rate"]), _fmt(r["answered_rate"]), _fmt(r["correctness"], False), _fmt(r["total"], False), _fmt(r["faithfulness"], False), _fmt(r["token_f1"], False), _fmt(r["doc_hit_rate"]), f"{r['latency_ms_p50'] or 0:.0f} ms", f"US$ {r['cost_usd']:.4f}")
    for r in report["impossible"]:
        table.add_row(r["label"], f"imposible: {r['reason']}", *["—"] * 9)
    console.print(table)
    kinds = Table(title="por tipo de pregunta (consultas del plan de estudios / reglamentos, trámites y guías)")
    for col in ("configuración", "tipo", "preguntas", "respondidas", "F1", "doc@k", "listos"):
        kinds.add_column(col, justify="left" if col in ("configuración", "tipo") else "right")
    for r in report["configs"]:
        for kind, k in (r.get("by_kind") or {}).items():
            kinds.add_row(r["label"], KIND_LABELS.get(kind, kind), str(k["n"]), _fmt(k["answered_rate"]), _fmt(k["token_f1"], False), _fmt(k["doc_hit_rate"]), _fmt(k.get("ready_rate")))
    if kinds.row_count:
        console.print(kinds)
    if report["note"]:
        console.print(report["note"])
    console.print(f"gráfico: {chart_path}")
