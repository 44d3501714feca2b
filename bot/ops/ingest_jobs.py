"""Ingestion as a background job: a record in the database (state, documents and chunks done, ETA) that the CLI,
`orienta run`'s console and `orienta ingest --status` all read.

A job runs in this process (`run_job`, the console's worker thread) or in a detached process (`spawn_job`, what
`orienta ingest --background` does). A job whose process died (killed, machine restarted) shows as interrupted;
running ingestion again resumes it: documents already written are unchanged and skipped, the one cut short is
discarded and redone, and texts already embedded come from the embedding cache.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from sqlmodel import Session, select

from pipeline.ingest import IngestProgress, IngestReport
from review.db import session_scope
from review.ingest_job_models import IngestJob

if TYPE_CHECKING:
    from bot.wiring.services import Services

SAVE_EVERY_S = 0.5  # progress is written to the database at most twice a second


def _now() -> datetime:
    return datetime.now(timezone.utc)


def create_job(services: "Services", paths: Sequence[Path] | None = None, *, reset: bool = False, actor: str = "", office: str | None = None) -> IngestJob:
    """A queued job record."""
    job = IngestJob(actor=actor[:128], office=office, paths=[str(Path(p).resolve()) for p in paths or []], reset=reset)
    with session_scope(services.engine) as s:
        s.add(job)
        s.flush()
        s.refresh(job)
    return job


def _alive(job: IngestJob) -> bool:
    """Whether the process running a job still exists (only answerable on the same host)."""
    if job.pid is None or job.host != socket.gethostname():
        return True
    try:
        os.kill(job.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (killed, not yet reaped by its parent) is not running
        return Path(f"/proc/{job.pid}/stat").read_text().split()[2] != "Z"
    except (OSError, IndexError):
        return True


def view(job: IngestJob) -> dict:
    """What a page or `orienta ingest --status` shows: the record, a percentage and an ETA from the chunks' pace."""
    state = job.state
    if state in ("queued", "running") and job.pid is not None and not _alive(job):
        state = "interrupted"
    out = {k: getattr(job, k) for k in ("id", "actor", "office", "paths", "reset", "pid", "phase", "docs_total", "docs_done", "chunks_total", "chunks_done", "current", "report", "error")}
    out["state"] = state
    for k in ("created_at", "started_at", "updated_at", "finished_at"):
        v = getattr(job, k)
        out[k] = v.isoformat() if v else None
    out["percent"] = 100 if state == "done" else (int(100 * job.chunks_done / job.chunks_total) if job.chunks_total else 0)
    eta = None
    if state == "running" and job.phase == "writing" and job.chunks_done and job.started_at and job.updated_at:
        started = job.started_at if job.started_at.tzinfo else job.started_at.replace(tzinfo=timezone.utc)
        elapsed = (_now() - started).total_seconds()
        eta = round(elapsed / job.chunks_done * (job.chunks_total - job.chunks_done), 1)
    out["eta_seconds"] = eta
    return out


def get_job(services: "Services", job_id: int) -> IngestJob | None:
    with Session(services.engine) as s:
        return s.get(IngestJob, job_id)


def recent_jobs(services: "Services", limit: int = 10) -> list[dict]:
    with Session(services.engine) as s:
        return [view(j) for j in s.exec(select(IngestJob).order_by(IngestJob.id.desc()).limit(limit))]  # type: ignore[union-attr]


def _update(services: "Services", job_id: int, **fields) -> None:
    with session_scope(services.engine) as s:
        job = s.get(IngestJob, job_id)
        if job is not None:
            for k, v in fields.items():
                setattr(job, k, v)
            job.updated_at = _now()


def run_job(services: "Services", job_id: int, *, on_progress=None) -> IngestReport:
    """Run a queued job here, recording progress; the record ends done (with the report) or failed (with the reason)."""
    from bot.ops.documents import ingest_documents

    job = get_job(services, job_id)
    if job is None:
        raise LookupError(f"no ingestion job #{job_id}")
    _update(services, job_id, state="running", pid=os.getpid(), host=socket.gethostname(), started_at=_now(), error=None)
    last = 0.0

    def progress(p: IngestProgress) -> None:
        nonlocal last
        if on_progress:
            on_progress(p)
        now = time.monotonic()
        if now - last >= SAVE_EVERY_S or p.phase == "done":
            last = now
            _update(services, job_id, **p.as_dict())

    try:
        report = ingest_documents(services, [Path(p) for p in job.paths] or None, reset=job.reset, on_progress=progress)
    except Exception as exc:  # the record says why; the caller decides what else to do
        _update(services, job_id, state="failed", error=f"{type(exc).__name__}: {exc}", finished_at=_now())
        raise
    _update(services, job_id, state="done", report=report.as_dict(), finished_at=_now(), phase="done", current=None)
    return report


def spawn_job(services: "Services", job: IngestJob, *, log_dir: Path | None = None) -> subprocess.Popen:
    """Run a job in a detached process (it outlives the command that started it); its output goes to a log file."""
    settings = services.settings
    log_dir = log_dir or settings.paths.data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, "-c", "from bot.cli import main; main()", "--data-dir", str(Path(settings.data_dir).resolve())]
    if job.office:
        args += ["--office", job.office]
    args += ["ingest", "--run-job", str(job.id)]
    with (log_dir / f"ingest-job-{job.id}.log").open("ab") as log:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=os.getcwd())
    _update(services, job.id, pid=proc.pid, host=socket.gethostname())
    return proc
