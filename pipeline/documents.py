"""Documents: the office's knowledge base as loaded from files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path


@dataclass(slots=True)
class Document:
    """One source document, already converted to plain text (Markdown-ish)."""

    id: str
    title: str
    text: str
    source: str
    url: str | None = None
    active: bool = True
    pages: list[tuple[int, int]] = field(default_factory=list)  # (char offset, page number) for PDFs
    ingested_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def document_id(path: Path) -> str:
    """The document id is the file name without its extension."""
    return path.stem


def iter_document_files(paths: list[Path]) -> list[Path]:
    """Expand folders into files (sorted, hidden files skipped)."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")))
        else:
            files.append(p)
    return files

