"""`orienta ask`."""

from __future__ import annotations

from typing import Optional

import typer

from bot.cli._common import console, fail, print_json, services
from bot.loop.drafting import draft_for
from pipeline.derivation import render
from pipeline.redaction import redact
from pipeline.texts import t


METHODS = ("rag", "derivation", "long-context")


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)


def ask_cmd(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="La pregunta del estudiante."),
    method: Optional[str] = typer.Option(None, "--method", help="rag, derivation o long-context (con un LLM)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Redacta una respuesta a una pregunta, con referencias y la derivación."""
    svc = services(ctx)
    if method and method not in METHODS:
        fail(f"método desconocido {method!r}; opciones: {', '.join(METHODS)}")
    if method:
        svc.settings.llm.method = method  # type: ignore[assignment]
    answer, decision = draft_for(svc, redact(question).text)
    in_domain, score = (decision.in_domain, decision.score) if decision is not None else (None, None)
    data = answer.as_dict() | {"gate": {"in_domain": in_domain, "score": score, "outcome": decision.outcome if decision else None, "reasons": decision.reasons if decision else []}}
    if as_json:
        print_json(data)
        return
    if answer.outcome != "ok":
        console.print(f"[bold red]{t('review_outcome_' + answer.outcome)}[/]", highlight=False)
    console.print(answer.text, highlight=False, markup=False)
    if answer.derivation:
        console.print("\n[bold]Derivación[/]")
        titles = [h.chunk.doc_title for h in answer.hits]
        console.print(render(answer.derivation, titles), highlight=False, markup=False)
    gate = "sin gate" if in_domain is None else f"gate: {'en dominio' if in_domain else 'fuera de dominio'} ({score:.2f})"
    step_flags = [f for f in answer.flags if not f.get("kind")]
    if step_flags:
        console.print(f"\n[bold yellow]Verificador: {len(step_flags)} paso(s) marcados[/]")
        for f in step_flags:
            console.print(f"  [{f['step']}] {f['rule']}: {f['flag']}", highlight=False, markup=False)
    u = answer.usage
    tokens = f"tokens: {u.input_tokens} de entrada + {u.cache_read_tokens} caché leída + {u.cache_write_tokens} caché escrita / {u.output_tokens} de salida"
    fallback = " · FALLBACK a RAG" if answer.fallback else ""
    console.print(f"\n[dim]{answer.method}{fallback} · {answer.model} · {gate} · {answer.latency_ms:.0f} ms · {tokens} · US$ {answer.cost_usd:.4f}[/]")
    for note in answer.notes:
        console.print(f"[dim]{note}[/]")
