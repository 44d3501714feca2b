"""`orienta ingest`, `orienta search` and `orienta docs`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from bot.wiring import spanish as _spanish
from bot.cli._common import console, err_console, fail, print_json, services
from bot.ops.documents import ingest_documents, set_document_active
from pipeline.chunking import CHUNKERS
from pipeline.retrieval import MODES

docs_app = typer.Typer(help="Lista los documentos indexados y los activa o desactiva para la recuperación.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest_cmd)
    app.command("search")(search_cmd)
    app.add_typer(docs_app, name="docs")


def ingest_cmd(
    ctx: typer.Context,
    paths: Optional[List[Path]] = typer.Argument(None, help="Archivos o carpetas (por defecto: las carpetas configuradas o la oficina de ejemplo)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", help="Fragmentación: fixed, sentence, recursive, structure."),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", min=50, help="Tamaño objetivo de cada fragmento, en caracteres."),
    reset: bool = typer.Option(False, "--reset", help="Reconstruir el índice desde cero."),
    background: bool = typer.Option(False, "--background", help="Indexar en segundo plano (un trabajo registrado en la base; ver su avance con --status)."),
    status: bool = typer.Option(False, "--status", help="Mostrar los últimos trabajos de indexación (estado, documentos, fragmentos, tiempo restante)."),
    run_job: Optional[int] = typer.Option(None, "--run-job", hidden=True, help="Ejecutar el trabajo de indexación con este id (lo usa --background)."),
    as_json: bool = typer.Option(False, "--json", help="Informe en JSON."),
) -> None:
    """Indexa documentos: solo se procesan los nuevos o modificados; los borrados se quitan del índice. Si se interrumpe, volver a correrlo retoma donde quedó."""
    from bot.ops import ingest_jobs

    if status:
        _show_jobs(ingest_jobs.recent_jobs(services(ctx)), as_json)
        return
    if run_job is not None:
        svc = services(ctx)
        try:
            report = ingest_jobs.run_job(svc, run_job)
        except LookupError as exc:
            fail(str(exc))
        print_json(report.as_dict())
        return
    if strategy and strategy not in CHUNKERS:
        fail(f"--strategy desconocida {strategy!r}; opciones: {', '.join(sorted(CHUNKERS))}")
    for p in paths or []:
        if not p.exists():
            fail(f"no existe el archivo o carpeta {p}")
    svc = services(ctx)
    if background:
        if strategy or chunk_size:
            fail("--background usa la fragmentación configurada: quitá --strategy/--chunk-size o configuralos (ORIENTA_RETRIEVAL__...)")
        job = ingest_jobs.create_job(svc, paths, reset=reset, actor=_actor(), office=ctx.obj.office)
        svc.close()  # the local index is locked by one process at a time: the job's process opens it
        ingest_jobs.spawn_job(svc, job)
        if as_json:
            print_json({"job": job.id})
        else:
            console.print(f"indexación #{job.id} en segundo plano; avance: `orienta ingest --status`", highlight=False)
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("quedan"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=as_json) as progress:
        docs_task = progress.add_task("Documentos", total=None)
        chunks_task = progress.add_task("Fragmentos", total=None)

        def show(p) -> None:
            progress.update(docs_task, completed=p.docs_done, total=p.docs_total or None, description=f"Documentos ({'leyendo' if p.phase == 'reading' else 'indexando'} {p.current[:40]})" if p.current else "Documentos")
            if p.phase != "reading":
                progress.update(chunks_task, completed=p.chunks_done, total=p.chunks_total)

        report = ingest_documents(svc, paths, strategy=strategy, chunk_size=chunk_size, reset=reset, on_progress=show)
    if as_json:
        print_json(report.as_dict())
        if report.failed and not (report.added or report.updated or report.unchanged):
            raise SystemExit(1)
        return
    console.print(
        f"{len(report.added)} agregados, {len(report.updated)} actualizados, {len(report.unchanged)} sin cambios, {len(report.removed)} quitados, "
        f"{len(report.failed)} fallidos; {report.chunks} fragmentos escritos ({report.chunks_per_second:.1f}/s)"
    )
    if report.recovered:
        console.print(f"retomado: una indexación anterior quedó a medias ({len(report.recovered.get('completed', []))} documento(s) completados, {len(report.recovered.get('discarded', []))} descartados y rehechos)", highlight=False)
    for path, warnings in report.warnings.items():
        for w in warnings:
            console.print(f"[yellow]aviso[/] {w}", highlight=False)
    for path, reason in report.failed.items():
        console.print(f"[red]omitido[/] {_spanish.library(reason)}", highlight=False)
    _gate_notice(svc, report)
    if report.failed and not (report.added or report.updated or report.unchanged):
        fail("no se pudo indexar ningún documento")


STATES = {"queued": "en cola", "running": "en curso", "done": "terminado", "failed": "falló", "interrupted": "interrumpido (volver a indexar lo retoma)"}


def _show_jobs(jobs: list[dict], as_json: bool) -> None:
    if as_json:
        print_json(jobs)
        return
    if not jobs:
        console.print("no hay trabajos de indexación registrados")
        return
    table = Table("#", "estado", "documentos", "fragmentos", "quedan", "iniciado", "detalle")
    for j in jobs:
        eta = f"{j['eta_seconds']:.0f} s" if j.get("eta_seconds") is not None else ""
        detail = j.get("error") or (f"{len(j['report'].get('failed', {}))} fallidos" if j.get("report") else (j.get("current") or ""))
        table.add_row(str(j["id"]), STATES.get(j["state"], j["state"]), f"{j['docs_done']}/{j['docs_total']}", f"{j['chunks_done']}/{j['chunks_total']}", eta, (j.get("started_at") or "")[:19], str(detail)[:60])
    console.print(table)


def search_cmd(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="La pregunta a buscar."),
    k: int = typer.Option(5, "-k", min=1, max=100, help="Cuántos fragmentos."),
    mode: Optional[str] = typer.Option(None, "--mode", help="dense, sparse o hybrid (por defecto, el de la configuración)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Muestra los fragmentos que la recuperación encuentra para una pregunta."""
    if mode and mode not in MODES:
        fail(f"--mode desconocido {mode!r}; opciones: {', '.join(MODES)}")
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
def docs_list(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Los documentos indexados, con su cantidad de fragmentos y si la recuperación los usa."""
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
        fail(f"no hay ningún documento indexado con id {doc_id!r} (ver `orienta docs list`)")
    console.print(f"{doc_id}: {'activo' if active else 'inactivo'} ({n} fragmentos)")


@docs_app.command("replace")
def docs_replace(
    ctx: typer.Context,
    doc_id: str = typer.Argument(..., help="Id del documento a reemplazar (ver `orienta docs list`)."),
    file: Path = typer.Argument(..., help="El archivo nuevo (PDF, DOCX, Markdown, HTML, TXT o CSV)."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Pone un archivo nuevo en lugar de un documento, manteniendo su id; las respuestas aprobadas que lo citan quedan desactualizadas."""
    from bot.ops import library

    svc = services(ctx)
    try:
        change = library.replace_document(svc, doc_id, file.name, library.read_given_file(file), actor=_actor())
    except library.LibraryError as exc:
        fail(str(exc))
    report = change.report
    if as_json:
        print_json({"doc_id": doc_id, "path": str(change.path) if change.path else None, "report": report.as_dict() if report else None})
    elif change.path is not None:
        console.print(f"{doc_id}: reemplazado por {file.name} ({report.chunks if report else 0} fragmentos); el documento anterior quedó en {change.path.parent}.", highlight=False)
    if report is not None and report.failed:
        fail("no se pudo leer el archivo nuevo; el documento anterior sigue indexado: " + "; ".join(_spanish.library(r) for r in report.failed.values()))
    _gate_notice(svc, report)


@docs_app.command("delete")
def docs_delete(ctx: typer.Context, doc_id: str = typer.Argument(..., help="Id del documento (ver `orienta docs list`).")) -> None:
    """Quita un documento del índice (y su archivo, si es de la oficina); las respuestas que lo citan quedan desactualizadas."""
    from bot.ops import library

    try:
        library.delete_document(services(ctx), doc_id, actor=_actor())
    except library.LibraryError as exc:
        fail(str(exc))
    console.print(f"{doc_id}: borrado del índice.", highlight=False)
    _gate_notice(services(ctx), None, changed=True)


def _actor() -> str:
    import getpass
    import os

    return f"cli:{os.environ.get('USER') or getpass.getuser()}"


def _gate_notice(svc, report, *, changed: bool = False) -> None:
    """After the documents changed: say that the gate is stale, with the command that retrains it."""
    if not changed and (report is None or not (report.added or report.updated or report.removed)):
        return
    from classifiers.errors import GateError

    try:
        gate = svc.gate
    except GateError:
        return
    if gate.is_stale(svc.corpus_hash()):
        err_console.print("[yellow]aviso:[/] los documentos cambiaron: el gate quedó desactualizado (hasta reentrenarlo, se redacta sin el filtro). Reentrenalo con `orienta gate train`.", highlight=False)


@docs_app.command("activate")
def docs_activate(ctx: typer.Context, doc_id: str = typer.Argument(..., help="Id del documento (nombre del archivo sin extensión).")) -> None:
    """Vuelve a usar un documento en la recuperación."""
    _switch(ctx, doc_id, True)


@docs_app.command("deactivate")
def docs_deactivate(ctx: typer.Context, doc_id: str = typer.Argument(..., help="Id del documento (nombre del archivo sin extensión).")) -> None:
    """Excluye un documento de la recuperación sin borrarlo."""
    _switch(ctx, doc_id, False)
