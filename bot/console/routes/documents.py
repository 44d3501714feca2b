"""Documents (lead only): upload, replace in place, (de)activate, delete, index status, background ingestion, the gate's freshness."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse

from bot.console.auth import current_office, lead, office_services, staff
from bot.console.csrf import upload_csrf
from bot.console.errors import spanish
from bot.console.index_status import IndexStatus
from bot.console.jobs import IngestLog, Job
from bot.console.render import page
from bot.ops import library
from review.staff import StaffAccount, actor_of

router = APIRouter()
READ_CHUNK = 1024 * 1024


def _status(request: Request, office: str | None = None) -> IndexStatus:
    """The index status of `office` (None: the default office), one per office for the app's life."""
    state = request.app.state
    if not hasattr(state, "index_status"):
        state.index_status = IndexStatus(state.services, state.jobs)
    if office is None:
        return state.index_status
    found = state.__dict__.setdefault("_office_status", {})  # app.state keeps its attributes in a dict of its own
    if office not in found:
        found[office] = IndexStatus(office_services(request, office), state.jobs)
    return found[office]


def _url(path: str, office: str | None, **params: str) -> str:
    """`path` with the office being looked at (campus mode) and `params` in its query."""
    from urllib.parse import urlencode

    query = urlencode({**({"office": office} if office else {}), **params})
    return f"{path}?{query}" if query else path


async def _read_upload(request: Request, upload: UploadFile) -> bytes:
    """The upload's bytes, refusing a bad name before reading and stopping at the size limit (never reading an oversized file whole)."""
    library.check_name(upload.filename or "")
    limit = int(request.app.state.services.settings.retrieval.max_document_mb * 1024 * 1024)
    data = bytearray()
    while chunk := await upload.read(READ_CHUNK):
        data += chunk
        if len(data) > limit:
            library.check_size(request.app.state.services, len(data))
    library.check_size(request.app.state.services, len(data))
    return bytes(data)


PAGE = 100


def _documents_page(request: Request, *, status_code: int = 200, error: str | None = None, q: str = "", page_no: int = 1, office: str | None = None):
    status = _status(request, office)
    rows = status.rows(IngestLog(office_services(request, office)).read())
    problems = sum(1 for r in rows if r["failed"] or r["warnings"])
    if q.strip():
        needle = q.strip().lower()
        rows = [r for r in rows if needle in r["id"].lower() or needle in (r["title"] or "").lower()]
    rows.sort(key=lambda r: (not (r["failed"] or r["warnings"]), r["id"]))  # the ones that need attention first
    page_no = max(1, page_no)
    shown = rows[(page_no - 1) * PAGE: page_no * PAGE]
    return page(
        request, "documents.html", status_code=status_code, error=error, documents=shown, total=len(rows), problems=problems, q=q, page_no=page_no,
        pages=max(1, -(-len(rows) // PAGE)), gate=status.gate(), jobs=request.app.state.jobs.recent(), types=", ".join(library.UPLOAD_TYPES),
        ingest_jobs=_recorded_jobs(request),
    )


def _recorded_jobs(request: Request) -> list[dict]:
    from bot.ops import ingest_jobs

    return ingest_jobs.recent_jobs(request.app.state.services, limit=5)


@router.get("/documents")
def documents(request: Request, q: str = "", page_no: int = 1, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    return _documents_page(request, q=q[:200], page_no=page_no, office=office)


def _ingest_job(request: Request, label: str, me: StaffAccount, run, office: str | None = None) -> Job:
    """Run a library operation in the background; the page shows its progress and result."""
    svc, jobs = office_services(request, office), request.app.state.jobs

    def work(job: Job) -> str:
        change = run(jobs.progress(job))
        svc._gate = None  # reload the gate: its freshness is checked again against the new index
        report = change.report
        if report is None:
            return "hecho"
        IngestLog(svc).record(change.doc_id, report)
        if report.failed:
            raise library.LibraryError("; ".join(spanish(Exception(r)) for r in report.failed.values()))
        return f"{change.doc_id}: {len(report.added)} agregado(s), {len(report.updated)} actualizado(s), {report.chunks} fragmentos"

    return jobs.submit(label, actor_of(me), work)


@router.post("/documents/upload")
async def upload(request: Request, file: UploadFile = File(...), me: StaffAccount = Depends(lead), _csrf: None = Depends(upload_csrf), office: str | None = Depends(current_office)):
    try:
        data = await _read_upload(request, file)
        name = library.check_name(file.filename or "")
        svc = office_services(request, office)
        if name.rsplit(".", 1)[0] in svc.index.documents():
            raise library.LibraryError(f"ya hay un documento {name.rsplit('.', 1)[0]!r}: para cambiarlo usá «Reemplazar»")
    except library.TooLarge as exc:
        return _documents_page(request, status_code=413, error=str(exc), office=office)
    except library.LibraryError as exc:
        return _documents_page(request, status_code=400, error=str(exc), office=office)
    _ingest_job(request, f"Agregar {name}", me, lambda progress: library.add_document(svc, name, data, actor=actor_of(me), progress=progress), office)
    return RedirectResponse(_url("/documents", office, aviso="upload_started"), status_code=303)


@router.get("/documents/{doc_id}")
def document(request: Request, doc_id: str, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    status = _status(request, office)
    row = next((r for r in status.rows(IngestLog(office_services(request, office)).read()) if r["id"] == doc_id), None)
    if row is None:
        raise HTTPException(404)
    return page(request, "document.html", doc=row, chunks=status.chunks(doc_id), types=", ".join(library.UPLOAD_TYPES), jobs=request.app.state.jobs.recent(5))


@router.post("/documents/{doc_id}/replace")
async def replace(request: Request, doc_id: str, file: UploadFile = File(...), me: StaffAccount = Depends(lead), _csrf: None = Depends(upload_csrf), office: str | None = Depends(current_office)):
    svc = office_services(request, office)
    if doc_id not in svc.index.documents():
        raise HTTPException(404)
    try:
        data = await _read_upload(request, file)
        name = library.check_name(file.filename or "")
    except library.LibraryError as exc:
        status = _status(request, office)
        row = next(r for r in status.rows(IngestLog(svc).read()) if r["id"] == doc_id)
        return page(request, "document.html", status_code=413 if isinstance(exc, library.TooLarge) else 400, error=str(exc), doc=row, chunks=status.chunks(doc_id), types=", ".join(library.UPLOAD_TYPES), jobs=[])
    _ingest_job(request, f"Reemplazar {doc_id} por {name}", me, lambda progress: library.replace_document(svc, doc_id, name, data, actor=actor_of(me), progress=progress), office)
    return RedirectResponse(_url(f"/documents/{doc_id}", office, aviso="replace_started"), status_code=303)


def _switch(request: Request, doc_id: str, active: bool, me: StaffAccount, office: str | None):
    svc = office_services(request, office)
    try:
        library.set_active(svc, doc_id, active, actor=actor_of(me))
    except library.LibraryError:
        raise HTTPException(404) from None
    svc._gate = None
    _status(request, office).forget()
    return RedirectResponse(_url(f"/documents/{doc_id}", office, aviso="activated" if active else "deactivated"), status_code=303)


@router.post("/documents/{doc_id}/activate")
def activate(request: Request, doc_id: str, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    return _switch(request, doc_id, True, me, office)


@router.post("/documents/{doc_id}/deactivate")
def deactivate(request: Request, doc_id: str, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    return _switch(request, doc_id, False, me, office)


@router.post("/documents/{doc_id}/delete")
def delete(request: Request, doc_id: str, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    svc = office_services(request, office)
    try:
        library.delete_document(svc, doc_id, actor=actor_of(me))
    except library.LibraryError:
        raise HTTPException(404) from None
    svc._gate = None
    _status(request, office).forget()
    return RedirectResponse(_url("/documents", office, aviso="deleted"), status_code=303)


@router.post("/gate/retrain")
def retrain(request: Request, me: StaffAccount = Depends(lead), office: str | None = Depends(current_office)):
    """Train the gate on the current documents (the same training as `orienta gate train`), in the background."""
    from bot.learning.gate_retraining import train_with_feedback
    from bot.learning.gate_training import TrainOptions
    from review import queue
    from review.db import session_scope

    svc = office_services(request, office)

    def work(job: Job) -> str:
        gate = train_with_feedback(svc, TrainOptions(generator="offline"))
        with session_scope(svc.engine) as session:
            queue.audit(session=session, actor=actor_of(me), event="gate_trained", details={"threshold": gate.threshold, "n_in": gate.meta.get("n_in"), "n_out": gate.meta.get("n_out")})
        held = gate.meta.get("heldout", {})
        return f"gate entrenado: umbral {gate.threshold:.3f}, F1 dentro {held.get('f1_in', 0):.3f} / fuera {held.get('f1_out', 0):.3f}"

    request.app.state.jobs.submit("Reentrenar el gate", actor_of(me), work)
    return RedirectResponse(_url("/documents", office, aviso="retrain_started"), status_code=303)


@router.post("/documents/reindex")
def reindex(request: Request, me: StaffAccount = Depends(lead)):
    """Index the office's document folders again (only new or changed files are embedded), as a recorded ingestion job.

    The job runs in the console's worker thread (the console's process holds the local index); its record in the
    database is what `orienta ingest --status` and /ingest/jobs show. An ingest cut short resumes here too.
    """
    from bot.ops import ingest_jobs

    svc, jobs = request.app.state.services, request.app.state.jobs
    record = ingest_jobs.create_job(svc, actor=actor_of(me), office=svc.settings.paths.office)

    def work(job: Job) -> str:
        def show(p) -> None:
            job.done, job.total = p.chunks_done, p.chunks_total

        report = ingest_jobs.run_job(svc, record.id, on_progress=show)
        svc._gate = None
        for path in {*report.failed, *report.warnings}:
            IngestLog(svc).record(Path(path).stem, report)
        return (f"indexación #{record.id}: {len(report.added)} agregado(s), {len(report.updated)} actualizado(s), {len(report.unchanged)} sin cambios, "
                f"{len(report.removed)} quitado(s), {len(report.failed)} fallido(s); {report.chunks} fragmentos")

    jobs.submit(f"Reindexar los documentos (#{record.id})", actor_of(me), work)
    return RedirectResponse("/documents?aviso=reindex_started", status_code=303)


@router.get("/ingest/jobs")
def ingest_jobs_status(request: Request, me: StaffAccount = Depends(lead)):
    """The recorded ingestion jobs (from the console, `orienta ingest --background` or `orienta run`), newest first, with ETA."""
    from bot.ops import ingest_jobs

    return JSONResponse(ingest_jobs.recent_jobs(request.app.state.services))


@router.get("/jobs/{job_id}")
def job_status(request: Request, job_id: int, me: StaffAccount = Depends(lead)):
    job = request.app.state.jobs.get(job_id)
    if job is None:
        raise HTTPException(404)
    return JSONResponse(job.as_dict())


@router.get("/ask")
def ask_form(request: Request, me: StaffAccount = Depends(staff)):
    return page(request, "ask.html", question="", result=None)


@router.post("/ask")
def ask(request: Request, question: str = Form(...), me: StaffAccount = Depends(staff)):
    """«¿Qué respondería orienta?»: the draft orienta would write (references, derivation) and what retrieval finds; nothing is stored or sent."""
    from bot.console.views import derivation_rows
    from bot.loop.drafting import draft_for
    from pipeline.redaction import redact
    from review.models import Draft

    svc = request.app.state.services
    question = question.strip()[:2000]
    if not question:
        return page(request, "ask.html", question="", result=None, error="Escribí una pregunta.")
    try:
        text = redact(question).text
        answer, decision = draft_for(svc, text)
        hits = svc.retriever.retrieve(text, svc.settings.retrieval.k)
    except Exception as exc:  # the edge: an empty index or a model error is said on the page
        return page(request, "ask.html", status_code=400, question=question, result=None, error=spanish(exc))
    data = answer.as_dict()
    pseudo = Draft(message_id=0, text=data.get("text") or "", method=data.get("method") or "", model=data.get("model") or "", derivation=data.get("derivation") or [], chunks=[{"doc_id": h.chunk.doc_id, "doc_title": h.chunk.doc_title} for h in answer.hits])
    result = {
        "text": answer.text,
        "method": f"{answer.method} · {answer.model}",
        "references": data.get("references") or [],
        "derivation": derivation_rows(pseudo),
        "gate": None if decision is None else ("en dominio" if decision.in_domain else "fuera de dominio") + f" ({decision.score:.2f})",
        "hits": [{"score": h.score, "doc_id": h.chunk.doc_id, "title": h.chunk.doc_title, "text": h.chunk.text[:400]} for h in hits],
    }
    return page(request, "ask.html", question=question, result=result)
