"""`orienta ingest` and `orienta search`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import Progress
from rich.table import Table

from bot.cli._common import console, print_json, services
from bot.operations import ingest_documents


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_cmd)
    app.command("search")(search_cmd)


def ingest_cmd(
    ctx: typer.Context,
    paths: Optional[List[Path]] = typer.Argument(None, help="Files or folders (default: configured folders or the sample office)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", help="Chunking: fixed, sentence, recursive, structure."),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="Target chunk size in characters."),
    reset: bool = typer.Option(False, "--reset", help="Rebuild the index from scratch."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Index documents: only new or changed ones are embedded; deleted ones are removed."""
    svc = services(ctx)
    with Progress(console=console, transient=True, disable=as_json) as progress:
        task = progress.add_task("Indexando", total=None)
        report = ingest_documents(svc, paths, strategy=strategy, chunk_size=chunk_size, reset=reset, progress=lambda name: progress.update(task, description=f"Indexando {name}"))
    if as_json:
        print_json(report.as_dict())
        return
    console.print(f"added {len(report.added)}, updated {len(report.updated)}, unchanged {len(report.unchanged)}, removed {len(report.removed)}, chunks written {report.chunks}")
    for path, reason in report.failed.items():
        console.print(f"[yellow]skipped[/] {reason}")


def search_cmd(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="The question to search for."),
    k: int = typer.Option(5, "-k", help="How many chunks."),
    mode: Optional[str] = typer.Option(None, "--mode", help="dense, sparse or hybrid (default from settings)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Show the chunks retrieval finds for a question."""
    svc = services(ctx)
    if mode:
        svc.settings.retrieval.mode = mode  # type: ignore[assignment]
    hits = svc.retriever.retrieve(question, k)
    if as_json:
        print_json([{"score": h.score, "doc_id": h.chunk.doc_id, "title": h.chunk.doc_title, "chunk_id": h.chunk.id, "section": h.chunk.section, "text": h.chunk.text} for h in hits])
        return
    table = Table("score", "documento", "fragmento", show_lines=True)
    for h in hits:
        table.add_row(f"{h.score:.3f}", h.chunk.doc_id, h.chunk.text[:160].replace("\n", " ") + ("…" if len(h.chunk.text) > 160 else ""))
    console.print(table)
