"""`orienta ingest`, `orienta search` and `orienta docs`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bot.cli._common import console, fail, print_json, services
from bot.operations import ingest_documents, set_document_active
from pipeline.chunking import CHUNKERS
from pipeline.retrieval import MODES

docs_app = typer.Typer(help="List the indexed documents and switch them on or off for retrieval.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_cmd)
    app.command("search")(search_cmd)
    app.add_typer(docs_app, name="docs")


def ingest_cmd(
    ctx: typer.Context,
    paths: Optional[List[Path]] = typer.Argument(None, help="Files or folders (default: configured folders or the sample office)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", help="Chunking: fixed, sentence, recursive, structure."),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", min=50, help="Target chunk size in characters."),
    reset: bool = typer.Option(False, "--reset", help="Rebuild the index from scratch."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Index documents: only new or changed ones are embedded; deleted ones are removed."""
    if strategy and strategy not in CHUNKERS:
        fail(f"unknown --strategy {strategy!r}; choose from {', '.join(sorted(CHUNKERS))}")
    for p in paths or []:
        if not p.exists():
            fail(f"no such file or folder: {p}")
    svc = services(ctx)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=as_json) as progress:
        task = progress.add_task("Leyendo documentos", total=None)
        report = ingest_documents(
            svc,
            paths,
            strategy=strategy,
            chunk_size=chunk_size,
            reset=reset,
            progress=lambda name: progress.update(task, description=f"Indexando {name}"),
            embed_progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    if as_json:
        print_json(report.as_dict())
        return
    console.print(
        f"added {len(report.added)}, updated {len(report.updated)}, unchanged {len(report.unchanged)}, removed {len(report.removed)}, "
        f"failed {len(report.failed)}; chunks written {report.chunks} ({report.chunks_per_second:.1f}/s)"
    )
    for path, warnings in report.warnings.items():
        for w in warnings:
            console.print(f"[yellow]warning[/] {w}", highlight=False)
    for path, reason in report.failed.items():
        console.print(f"[red]skipped[/] {reason}", highlight=False)


def search_cmd(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="The question to search for."),
    k: int = typer.Option(5, "-k", min=1, max=100, help="How many chunks."),
    mode: Optional[str] = typer.Option(None, "--mode", help="dense, sparse or hybrid (default from settings)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Show the chunks retrieval finds for a question."""
    if mode and mode not in MODES:
        fail(f"unknown --mode {mode!r}; choose from {', '.join(MODES)}")
    svc = services(ctx)
    if mode:
        svc.settings.retrieval.mode = mode  # type: ignore[assignment]
    hits = svc.retriever.retrieve(question, k)
    if as_json:
        print_json([{"score": h.score, "doc_id": h.chunk.doc_id, "title": h.chunk.doc_title, "chunk_id": h.chunk.id, "section": h.chunk.section, "page": h.chunk.page, "text": h.chunk.text} for h in hits])
        return
    table = Table("score", "documento", "fragmento", show_lines=True)
    for h in hits:
        where = h.chunk.doc_id + (f" (p. {h.chunk.page})" if h.chunk.page else "")
        table.add_row(f"{h.score:.3f}", where, h.chunk.text[:160].replace("\n", " ") + ("…" if len(h.chunk.text) > 160 else ""))
    console.print(table)


@docs_app.command("list")
def docs_list(ctx: typer.Context, as_json: bool = typer.Option(False, "--json")) -> None:
    """The indexed documents with their chunk counts and whether retrieval uses them."""
    docs = services(ctx).index.documents()
    if as_json:
        print_json(docs)
        return
    table = Table("documento", "título", "fragmentos", "activo", "indexado")
    for doc_id, d in sorted(docs.items()):
        table.add_row(doc_id, (d.get("title") or "")[:60], str(d["chunks"]), "sí" if d["active"] else "no", (d.get("ingested_at") or "")[:19])
    console.print(table)


def _switch(ctx: typer.Context, doc_id: str, active: bool) -> None:
    n = set_document_active(services(ctx), doc_id, active)
    if not n:
        fail(f"no indexed document with id {doc_id!r} (see `orienta docs list`)")
    console.print(f"{doc_id}: {'active' if active else 'inactive'} ({n} chunks)")


@docs_app.command("activate")
def docs_activate(ctx: typer.Context, doc_id: str = typer.Argument(..., help="Document id (file name without extension).")) -> None:
    """Use a document for retrieval again."""
    _switch(ctx, doc_id, True)


@docs_app.command("deactivate")
def docs_deactivate(ctx: typer.Context, doc_id: str = typer.Argument(..., help="Document id (file name without extension).")) -> None:
    """Exclude a document from retrieval without deleting it."""
    _switch(ctx, doc_id, False)
