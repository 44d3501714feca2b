"""`orienta gate train|eval|retrain`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from bot.cli._common import console, describe, fail, print_json, services
from bot.learning.gate_training import TrainOptions, evaluate_gate, train
from bot.ops.documents import read_jsonl
from classifiers.errors import GateError

gate_app = typer.Typer(help="El filtro de preguntas fuera de dominio (gate).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(gate_app, name="gate")


@gate_app.command("train")
def train_cmd(
    ctx: typer.Context,
    llm: bool = typer.Option(False, "--llm", help="Generar las preguntas sintéticas con el LLM (necesita ANTHROPIC_API_KEY)."),
    offline: bool = typer.Option(False, "--offline", help="Generarlas con las plantillas sin conexión (por defecto)."),
    features: Optional[str] = typer.Option(None, "--features", help="Unidas con '+': embedding, similarity, tfidf, lexical, intent."),
    model: Optional[str] = typer.Option(None, "--model", help="svm, logreg o knn."),
    balanced: Optional[bool] = typer.Option(None, "--balanced/--full", help="Entrenar con el conjunto balanceado por clase o con el completo."),
    include_feedback: bool = typer.Option(False, "--include-feedback", help="Después, aprender de las decisiones del equipo como `gate retrain` (correcciones con peso, memoria; se adopta solo si no empeora)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Entrena el gate con los documentos del índice (preguntas sintéticas, más las decisiones del equipo si se pide)."""
    if llm and offline:
        fail("elegí --llm o --offline, no las dos")
    if model is not None and model not in ("svm", "logreg", "knn"):
        fail(f"modelo desconocido {model!r}: elegí svm, logreg o knn")
    svc = services(ctx)
    from bot.learning.routing import other_office_negatives

    near_misses = other_office_negatives(svc, svc.office)  # campus mode: the other offices' business is not this office's
    options = TrainOptions(generator="llm" if llm else "offline", features=features, model=model, balanced=balanced, near_misses=near_misses or None)
    try:
        with console.status("Entrenando el gate…"):
            if include_feedback:  # the same learning from staff as `gate retrain`
                from bot.learning.gate_retraining import train_with_feedback

                gate = train_with_feedback(svc, options)
            else:
                gate = train(svc, options)
    except GateError as exc:
        fail(describe(exc))
    from bot.learning.unit_ranking import train_unit_ranker

    with console.status("Entrenando el orden de los pasajes del borrador sin LLM…"):
        ranker = train_unit_ranker(services(ctx))
    if as_json:
        print_json(gate.meta | {"threshold": gate.threshold, "features": gate.features, "model": gate.model, "unit_ranker": ranker})
        return
    console.print(_ranker_line(ranker), highlight=False)
    held = gate.meta["heldout"]
    console.print(
        f"gate entrenado ({gate.model}, {gate.features}, {'balanceado' if gate.meta['balanced'] else 'completo'}, {gate.meta['generator']}): "
        f"{gate.meta['n_in']} ejemplos del dominio / {gate.meta['n_out']} fuera de dominio ({gate.meta['feedback_examples']} del equipo), "
        f"umbral {gate.threshold:.3f}, F1 en sintéticas reservadas: dentro {held['f1_in']:.3f} / fuera {held['f1_out']:.3f}"
    )


def _ranker_line(report: dict) -> str:
    if "precision_at_1_learned" not in report:
        return f"orden de pasajes: sin modelo ({report.get('reason')})"
    verdict = "adoptado" if report["adopted"] else f"no adoptado ({report.get('reason')})"
    return f"orden de pasajes aprendido: precisión@1 en preguntas reservadas {report['precision_at_1_learned']:.3f} vs {report['precision_at_1_hand']:.3f} sin aprender ({report['held_out_counted']} preguntas): {verdict}"


@gate_app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    in_domain: Path = typer.Option(..., "--in-domain", help="JSONL de preguntas del dominio de la oficina (campo 'question')."),
    out_of_domain: Path = typer.Option(..., "--out-of-domain", help="JSONL de preguntas fuera de dominio (campo 'question')."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Escribir una vista PCA 2-D coloreada por cluster K-Means y clase real."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Precisión, recall, F1, exactitud y matriz de confusión del gate guardado sobre preguntas etiquetadas."""
    for p in (in_domain, out_of_domain):
        if not p.exists():
            fail(f"no existe el archivo {p}")
    ins = [r["question"] for r in read_jsonl(in_domain)]
    outs = [r["question"] for r in read_jsonl(out_of_domain)]
    try:
        report = evaluate_gate(services(ctx), ins, outs, plot=plot)
    except GateError as exc:
        fail(describe(exc))
    if as_json:
        print_json(report)
        return
    (ii, io), (oi, oo) = report["confusion"]
    console.print(f"n={report['n']} (dentro {report['n_in']}, fuera {report['n_out']})  umbral={report['threshold']:.3f}  exactitud={report['accuracy']:.3f}")
    for name, label in (("in", "dentro"), ("out", "fuera")):
        console.print(f"  {label:6}  precisión={report[f'precision_{name}']:.3f}  recall={report[f'recall_{name}']:.3f}  F1={report[f'f1_{name}']:.3f}")
    console.print(f"  confusión (filas: real; columnas: predicho dentro/fuera): dentro [{ii} {io}]  fuera [{oi} {oo}]")
    if report.get("stale"):
        console.print("[yellow]el gate está desactualizado: los documentos cambiaron desde que se entrenó[/]")
    if "plot" in report:
        console.print(f"  gráfico: {report['plot']} (acuerdo K-Means/clase {report['cluster_agreement']:.2f})")


@gate_app.command("retrain")
def retrain_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Reentrena el gate con las decisiones del equipo (correcciones con peso y memoria de mensajes marcados); se adopta solo si no empeora en decisiones no vistas (validación cruzada) ni en las sintéticas reservadas."""
    from bot.learning.gate_retraining import figures_moved, retrain_from_feedback

    try:
        with console.status("Reentrenando el gate con las decisiones del equipo…"):
            report = retrain_from_feedback(services(ctx))
    except GateError as exc:
        fail(describe(exc))
    if as_json:
        print_json(report.as_dict())
        return
    console.print(f"{report.n_feedback} decisiones ({report.n_corrections} correcciones): {figures_moved(report)}", highlight=False)
    if report.adopted_kind == "memory":
        console.print(f"solo la memoria del equipo: el clasificador no cambia (con menos de {report.min_decisions} decisiones no se reentrena)" if report.n_feedback < report.min_decisions
                      else "solo la memoria del equipo: el clasificador reentrenado no se adoptó", highlight=False)
    for who in report.set_aside:
        r = report.reviewers[who]
        console.print(f"[yellow]el gate discrepa seguido con las decisiones de {who} ({r['disagreements']} de {r['decisions']}): no se aprendió de ellas[/]")
