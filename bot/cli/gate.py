"""`orienta gate train|eval`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services
from bot.gating import evaluate_gate, train_gate_offline
from bot.operations import read_jsonl

gate_app = typer.Typer(help="The out-of-domain gate.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(gate_app, name="gate")


@gate_app.command("train")
def train_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """Train the gate from the indexed documents and the bundled out-of-domain bank."""
    with console.status("Entrenando el gate…"):
        gate = train_gate_offline(services(ctx))
    if as_json:
        print_json(gate.meta | {"threshold": gate.threshold, "features": gate.features})
        return
    console.print(f"gate trained: {gate.meta['n_in']} in-domain / {gate.meta['n_out']} out-of-domain examples, threshold {gate.threshold:.3f}, held-out accuracy {gate.meta['heldout_accuracy']:.3f}")


@gate_app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    in_domain: Path = typer.Option(..., "--in", help="JSONL of in-domain questions (field 'question')."),
    out_of_domain: Path = typer.Option(..., "--out", help="JSONL of out-of-domain questions (field 'question')."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Precision, recall and F1 of the stored gate on labelled questions."""
    for p in (in_domain, out_of_domain):
        if not p.exists():
            fail(f"no such file: {p}")
    ins = [r["question"] for r in read_jsonl(in_domain)]
    outs = [r["question"] for r in read_jsonl(out_of_domain)]
    report = evaluate_gate(services(ctx), ins, outs)
    if as_json:
        print_json(report)
        return
    console.print(f"n={report['n']}  F1 in={report['f1_in']:.3f}  F1 out={report['f1_out']:.3f}  accuracy={report['accuracy']:.3f}  threshold={report['threshold']:.3f}")
