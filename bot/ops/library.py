"""The document library behind the index: files added, replaced or deleted (console or CLI), each re-indexed and audited."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError
from bot.ops.documents import ingest_documents
from bot.wiring.services import EMBEDDED_DOCUMENTS, Services
from pipeline.ingest import IngestReport
from review import queue
from review.db import session_scope

UPLOAD_TYPES = (".pdf", ".docx", ".md", ".markdown", ".html", ".htm", ".txt", ".csv")
_SAFE_NAME = re.compile(r"^[\w][\w .()+,-]{0,150}$")


class LibraryError(BotError):
    """A document operation that cannot be done; the message says why, in Spanish."""


class TooLarge(LibraryError):
    """The upload is larger than retrieval.max_document_mb."""


@dataclass
class Change:
    """What a library operation did: the document, the file written or removed, and the ingestion report."""

    doc_id: str
    path: Path | None
    report: IngestReport | None = None


def check_name(filename: str) -> str:
    """The upload's file name, or LibraryError for a name with a folder, a hidden name or an unsupported type (never cleaned silently)."""
    name = filename or ""
    if not name.strip():
        raise LibraryError("el archivo no tiene nombre")
    if "/" in name or "\\" in name or "\x00" in name or name.startswith(".") or ".." in name:
        raise LibraryError(f"nombre de archivo no permitido {name!r}: sin carpetas, sin '..' y sin empezar con un punto")
    if not _SAFE_NAME.match(name):
        raise LibraryError(f"nombre de archivo no permitido {name!r}: usá letras, números, espacios y . _ - ( ) + , (hasta 150)")
    if Path(name).suffix.lower() not in UPLOAD_TYPES:
        raise LibraryError(f"tipo de archivo no admitido {Path(name).suffix or '(sin extensión)'}: se aceptan {', '.join(UPLOAD_TYPES)}")
    return name


def check_size(services: Services, size: int) -> None:
    limit = services.settings.retrieval.max_document_mb
    if size > limit * 1024 * 1024:
        raise TooLarge(f"el archivo pesa {size / 1024 / 1024:.1f} MB y el máximo es {limit:g} MB (ORIENTA_RETRIEVAL__MAX_DOCUMENT_MB)")
    if size == 0:
        raise LibraryError("el archivo está vacío")


def _audit(services: Services, actor: str, event: str, details: dict) -> None:
    with session_scope(services.engine) as session:
        queue.audit(session=session, actor=actor, event=event, details=details)


def _ingest(services: Services, path: Path, progress: Callable[[int, int], None] | None) -> IngestReport:
    return ingest_documents(services, [path], embed_progress=progress)


def add_document(services: Services, filename: str, data: bytes, *, actor: str, progress: Callable[[int, int], None] | None = None) -> Change:
    """Save an uploaded file among the console's documents and index it (a file with the same name is refused: use replace)."""
    name = check_name(filename)
    check_size(services, len(data))
    folder = services.settings.paths.uploads_dir
    folder.mkdir(parents=True, exist_ok=True)
    doc_id = Path(name).stem
    if doc_id in services.index.documents() or any(p.stem == doc_id for p in folder.iterdir()):
        raise LibraryError(f"ya hay un documento {doc_id!r}: para cambiarlo usá «Reemplazar»")
    path = folder / name
    path.write_bytes(data)
    _audit(services, actor, "document_added", {"doc_id": doc_id, "file": name, "bytes": len(data)})
    report = _ingest(services, path, progress)
    if str(path) in report.failed:
        path.unlink(missing_ok=True)  # nothing half-added: the reason is in the report
    return Change(doc_id, path, report)


def source_of(services: Services, doc_id: str) -> Path | None:
    """The file a document was indexed from, when it still exists."""
    info = services.index.documents().get(doc_id)
    source = Path(info["source"]) if info and info.get("source") else None
    return source if source is not None and source.is_file() else None


def _writable_home(services: Services, source: Path | None) -> Path:
    """Where a replaced file goes: next to the original, unless that is the bundled sample office (read-only: the console's folder)."""
    if source is not None and EMBEDDED_DOCUMENTS.resolve() not in source.resolve().parents:
        return source.parent
    return services.settings.paths.uploads_dir


def replace_document(services: Services, doc_id: str, filename: str, data: bytes, *, actor: str, progress: Callable[[int, int], None] | None = None) -> Change:
    """Put a new file in place of a document, keeping its id; the approved answers citing it become stale."""
    name = check_name(filename)
    check_size(services, len(data))
    known = services.index.documents()
    if doc_id not in known:
        raise LibraryError(f"no hay ningún documento indexado con id {doc_id!r}")
    source = source_of(services, doc_id)
    folder = _writable_home(services, source)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{doc_id}{Path(name).suffix.lower()}"
    backup = path.read_bytes() if path.exists() else None
    path.write_bytes(data)
    report = _ingest(services, path, progress)
    if str(path) in report.failed:  # the new file is unreadable: the previous version stays, on disk and in the index
        if backup is not None:
            path.write_bytes(backup)
        else:
            path.unlink(missing_ok=True)
        _audit(services, actor, "document_replace_failed", {"doc_id": doc_id, "file": name, "reason": report.failed[str(path)]})
        return Change(doc_id, None, report)
    if source is not None and source != path and source.parent == folder:
        source.unlink(missing_ok=True)  # same id, new type: the old file would come back at the next ingest
    _audit(services, actor, "document_replaced", {"doc_id": doc_id, "file": name, "bytes": len(data), "previous_hash": known[doc_id].get("content_hash")})
    return Change(doc_id, path, report)


def delete_document(services: Services, doc_id: str, *, actor: str) -> Change:
    """Remove a document from the index and, when it is the office's own file, from disk; answers citing it become stale."""
    from bot.learning.answer_memory import refresh_staleness

    if doc_id not in services.index.documents():
        raise LibraryError(f"no hay ningún documento indexado con id {doc_id!r}")
    source = source_of(services, doc_id)
    removed = None
    if source is not None and EMBEDDED_DOCUMENTS.resolve() not in source.resolve().parents:
        source.unlink()
        removed = source
    services.index.delete_document(doc_id)
    refresh_staleness(services)
    _audit(services, actor, "document_deleted", {"doc_id": doc_id, "file": str(removed) if removed else None})
    return Change(doc_id, removed)


def set_active(services: Services, doc_id: str, active: bool, *, actor: str) -> int:
    """Include or exclude a document from retrieval; audited."""
    from bot.ops.documents import set_document_active

    changed = set_document_active(services, doc_id, active)
    if not changed:
        raise LibraryError(f"no hay ningún documento indexado con id {doc_id!r}")
    _audit(services, actor, "document_activated" if active else "document_deactivated", {"doc_id": doc_id, "chunks": changed})
    return changed


def write_faq(services: Services, *, slug: str, question: str, answer: str, actor: str, progress: Callable[[int, int], None] | None = None) -> Change:
    """An FAQ entry written by staff (from a content gap), saved as a Markdown document and indexed."""
    question, answer = question.strip(), answer.strip()
    if not question or not answer:
        raise LibraryError("la entrada necesita una pregunta y una respuesta")
    slug = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")[:60] or "entrada"
    folder = services.settings.paths.uploads_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"faq-{slug}.md"
    n = 2
    while path.exists():
        path, n = folder / f"faq-{slug}-{n}.md", n + 1
    title = question if question.startswith("¿") else f"¿{question.rstrip('?')}?"
    path.write_text(f"# Preguntas frecuentes: {title}\n\n{title}\n\n{answer}\n", encoding="utf-8")
    _audit(services, actor, "faq_entry_added", {"doc_id": path.stem, "question": question[:300]})
    return Change(path.stem, path, _ingest(services, path, progress))


def read_given_file(file: Path) -> bytes:
    """The bytes of a file given on the command line (refusing folders and missing files)."""
    if not file.is_file():
        raise LibraryError(f"no existe el archivo {file}")
    return file.read_bytes()

