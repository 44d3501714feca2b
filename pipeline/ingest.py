"""Ingestion: load files, chunk them, embed, and write them to the index incrementally."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.chunking import chunk_document
from pipeline.documents import iter_document_files
from pipeline.embeddings import Embedder
from pipeline.errors import DocumentError
from pipeline.index import ChunkIndex
from pipeline.loaders import load_document


@dataclass
class IngestReport:
    """What an ingest run did, file by file."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    chunks: int = 0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("added", "updated", "unchanged", "removed", "failed", "chunks")}


def ingest(
    paths: list[Path],
    *,
    index: ChunkIndex,
    embedder: Embedder,
    strategy: str = "structure",
    chunk_size: int = 800,
    overlap: int = 100,
    reset: bool = False,
    progress: Callable[[str], None] | None = None,
) -> IngestReport:
    """Index the documents under `paths`: only new or changed ones are embedded; deleted ones are removed."""
    report = IngestReport()
    if reset:
        index.reset()
    index.ensure(embedder.dim)
    known = index.documents()
    seen: set[str] = set()
    for path in iter_document_files(paths):
        if progress:
            progress(path.name)
        try:
            doc = load_document(path)
        except DocumentError as exc:
            report.failed[str(path)] = str(exc)
            continue
        except Exception as exc:  # a parser library failing on a corrupt file: report it, keep going
            report.failed[str(path)] = f"{path.name}: could not be read ({type(exc).__name__}: {exc})"
            continue
        seen.add(doc.id)
        previous = known.get(doc.id)
        if previous and previous["content_hash"] == doc.content_hash:
            report.unchanged.append(doc.id)
            continue
        chunks = chunk_document(doc, strategy, chunk_size, overlap)
        vectors = embedder.embed_passages([c.embed_text for c in chunks])
        index.delete_document(doc.id)
        index.upsert(chunks, vectors, content_hash=doc.content_hash)
        report.chunks += len(chunks)
        (report.updated if previous else report.added).append(doc.id)
    for doc_id in set(known) - seen:
        if not any(doc_id in f for f in report.failed):
            index.delete_document(doc_id)
            report.removed.append(doc_id)
    return report
