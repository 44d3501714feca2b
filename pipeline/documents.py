"""Documents: the office's knowledge base as loaded from files."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
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
    handmade: list[tuple[str | None, str | None, str]] = field(default_factory=list)  # (title, url, text) rows kept as chunks
    warnings: list[str] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def page_at(self, offset: int) -> int | None:
        """The page number holding character `offset` (None when the format has no pages)."""
        if not self.pages:
            return None
        i = bisect_right([o for o, _ in self.pages], offset) - 1
        return self.pages[max(0, i)][1]

    def metadata(self) -> dict:
        """What the index stores about the document next to each chunk."""
        return {
            "doc_id": self.id,
            "doc_title": self.title,
            "source": self.source,
            "url": self.url,
            "content_hash": self.content_hash,
            "ingested_at": self.ingested_at.isoformat(),
            "active": self.active,
        }


def document_id(path: Path) -> str:
    """The document id is the file name without its extension."""
    return path.stem


def iter_document_files(paths: list[Path]) -> list[Path]:
    """Expand folders into files (sorted, hidden files skipped)."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)))
        else:
            files.append(p)
    return files
