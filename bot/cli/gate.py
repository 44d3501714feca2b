"""`orienta gate train|eval|retrain`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services
from bot.gating import TrainOptions, evaluate_gate, train
from bot.operations import read_jsonl
from classifiers.errors import GateError

gate_app = typer.Typer(help="The out-of-domain gate.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(gate_app, name="gate")


@gate_app.command("train")
def train_cmd(
    ctx: typer.Context,
    llm: bool = typer.Option(False, "--llm", help="Generate the synthetic questions with the LLM (needs ANTHROPIC_API_KEY)."),
    offline: bool = typer.Option(False, "--offline", help="Generate them with the offline templates (default)."),
    features: Optional[str] = typer.Option(None, "--features", help="'+'-joined: embedding, similarity, tfidf, lexical, intent."),
    model: Optional[str] = typer.Option(None, "--model", help="svm, logreg or knn."),
    balanced: Optional[bool] = typer.Option(None, "--balanced/--full", help="Train on the class-balanced or the full dataset."),
    include_feedback: bool = typer.Option(False, "--include-feedback", help="Add staff decisions (out-of-scope rejections, approvals)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Train the gate from the documents in the index (synthetic questions only, plus staff feedback if asked)."""
    if llm and offline:
        fail("choose --llm or --offline, not both")
    if model is not None and model not in ("svm", "logreg", "knn"):
        fail(f"unknown model {model!r}: choose svm, logreg or knn")
    options = TrainOptions(generator="llm" if llm else "offline", features=features, model=model, balanced=balanced, include_feedback=include_feedback)
    try:
        with console.status("Entrenando el gate…"):
            gate = train(services(ctx), options)
    except GateError as exc:
        fail(str(exc))
    if as_json:
        print_json(gate.meta | {"threshold": gate.threshold, "features": gate.features, "model": gate.model})
        return
    held = gate.meta["heldout"]
    console.print(
        f"gate trained ({gate.model}, {gate.features}, {'balanced' if gate.meta['balanced'] else 'full'}, {gate.meta['generator']}): "
        f"{gate.meta['n_in']} in-domain / {gate.meta['n_out']} out-of-domain examples ({gate.meta['feedback_examples']} from staff), "
        f"threshold {gate.threshold:.3f}, held-out synthetic F1 in {held['f1_in']:.3f} / out {held['f1_out']:.3f}"
    )


@gate_app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    in_domain: Path = typer.Option(..., "--in", help="JSONL of in-domain questions (field 'question')."),
    out_of_domain: Path = typer.Option(..., "--out", help="JSONL of out-of-domain questions (field 'question')."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write a 2-D PCA view coloured by K-Means cluster and true class."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Precision, recall, F1, accuracy and confusion matrix of the stored gate on labelled questions."""
    for p in (in_domain, out_of_domain):
        if not p.exists():
            fail(f"no such file: {p}")
    ins = [r["question"] for r in read_jsonl(in_domain)]
    outs = [r["question"] for r in read_jsonl(out_of_domain)]
    try:
        report = evaluate_gate(services(ctx), ins, outs, plot=plot)
    except GateError as exc:
        fail(str(exc))
    if as_json:
        print_json(report)
        return
    (ii, io), (oi, oo) = report["confusion"]
    console.print(f"n={report['n']} (in {report['n_in']}, out {report['n_out']})  threshold={report['threshold']:.3f}  accuracy={report['accuracy']:.3f}")
    for name in ("in", "out"):
        console.print(f"  {name:3}  precision={report[f'precision_{name}']:.3f}  recall={report[f'recall_{name}']:.3f}  F1={report[f'f1_{name}']:.3f}")
    console.print(f"  confusion (rows true, cols predicted in/out): in [{ii} {io}]  out [{oi} {oo}]")
    if report.get("stale"):
        console.print("[yellow]the gate is stale: the documents changed since it was trained[/]")
    if "plot" in report:
        console.print(f"  plot: {report['plot']} (K-Means/class agreement {report['cluster_agreement']:.2f})")


@gate_app.command("retrain")
def retrain_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Retrain the gate from staff decisions (corrections weigh more); adopted only if it does not do worse on held-out decisions."""
    from bot.gate_retraining import figures_moved, retrain_from_feedback

    try:
        with console.status("Reentrenando el gate con las decisiones del equipo…"):
            report = retrain_from_feedback(services(ctx))
    except GateError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.as_dict())
        return
    console.print(f"{report.n_feedback} decisiones ({report.n_corrections} correcciones): {figures_moved(report)}", highlight=False)
