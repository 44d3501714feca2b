"""PDF: text per page with pypdf, repaired (pipeline.loaders.pdf_text), page numbers kept as character offsets."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError
from pipeline.loaders import register
from pipeline.loaders.pdf_text import repair_pages
from pipeline.loaders.titles import tidy_title, title_from_text

logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns loudly about recoverable damage


_JUNK_TITLE = re.compile(r"\.(tmp|docx?|pdf|indd)$|^microsoft (word|powerpoint)|^untitled|^sin t[íi]tulo|^documento\d*$", re.IGNORECASE)


def _has_images(page) -> bool:
    """True when the page draws images (a scanned page does)."""
    try:
        return len(page.images) > 0
    except Exception:  # a damaged image dictionary: still a page with pictures
        return True


@register(".pdf")
def load_pdf(path: Path) -> Document:
    """PDF: one block of text per page; `pages` maps character offsets to page numbers."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as exc:  # pypdf raises several types for unsupported encryption
                raise DocumentError(f"{path.name}: encrypted PDF; cannot read it without a password") from exc
        raw = [page.extract_text() or "" for page in reader.pages]
        pictured = {i for i, page in enumerate(reader.pages) if not raw[i].strip() and _has_images(page)}
    except PdfReadError as exc:
        raise DocumentError(f"{path.name}: not a readable PDF ({exc})") from exc
    repaired = repair_pages(raw, name=path.name, pictured=pictured)
    parts, pages, offset = [], [], 0
    for number, text in enumerate(repaired.pages, start=1):
        if not text:
            continue
        pages.append((offset, number))
        parts.append(text)
        offset += len(text) + 2
    if not parts:
        scanned = sum(1 for t in raw if not t.strip())
        what = "no text layer" if scanned == len(raw) else "no readable text"
        raise DocumentError(f"{path.name}: {what} on any of its {len(raw)} pages (scanned images need OCR first)")
    unusable = repaired.stats["pages_scanned"] + repaired.stats["pages_garbled"]
    if unusable * 2 >= len(raw):  # mostly scans or unreadable fonts: say so first, with the page count
        repaired.warnings.insert(
            0,
            f"{path.name}: mostly without usable text: {unusable} of {len(raw)} pages left out ({repaired.stats['pages_scanned']} scanned without a text layer, "
            f"{repaired.stats['pages_garbled']} unreadable); only {len(pages)} page(s) indexed; run OCR on it",
        )
    meta_title = ((reader.metadata.title if reader.metadata else None) or "").strip()
    text = "\n\n".join(parts)
    junk = len(meta_title) <= 3 or _JUNK_TITLE.search(meta_title) or re.fullmatch(r"[\w\-]+_[\w\-]+", meta_title)  # a tool's default or a file name
    title = title_from_text(text, path) if junk else tidy_title(meta_title, text)
    return Document(id=document_id(path), title=title, text=text, source=str(path), pages=pages, warnings=repaired.warnings)
