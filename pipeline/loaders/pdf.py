"""PDF: text per page with pypdf, page numbers kept as character offsets."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError
from pipeline.loaders import register
from pipeline.loaders.titles import tidy_title, title_from_text

logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns loudly about recoverable damage


_JUNK_TITLE = re.compile(r"\.(tmp|docx?|pdf|indd)$|^microsoft (word|powerpoint)|^untitled|^sin t[íi]tulo|^documento\d*$", re.IGNORECASE)


def _clean_page(text: str) -> str:
    text = text.replace("\u00ad", "")  # soft hyphens
    text = re.sub(r"-\n(?=[a-záéíóúñ])", "", text)  # words hyphenated across lines
    text = re.sub(r"[ \t]+", " ", text)
    return "\n".join(line.strip() for line in text.splitlines()).strip()


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
        parts, pages, offset = [], [], 0
        for number, page in enumerate(reader.pages, start=1):
            text = _clean_page(page.extract_text() or "")
            if not text:
                continue
            pages.append((offset, number))
            parts.append(text)
            offset += len(text) + 2
    except PdfReadError as exc:
        raise DocumentError(f"{path.name}: not a readable PDF ({exc})") from exc
    if not parts:
        raise DocumentError(f"{path.name}: no text layer in this PDF (scanned images need OCR first)")
    meta_title = ((reader.metadata.title if reader.metadata else None) or "").strip()
    text = "\n\n".join(parts)
    junk = len(meta_title) <= 3 or _JUNK_TITLE.search(meta_title) or re.fullmatch(r"[\w\-]+_[\w\-]+", meta_title)  # a tool's default or a file name
    title = title_from_text(text, path) if junk else tidy_title(meta_title, text)
    return Document(id=document_id(path), title=title, text=text, source=str(path), pages=pages)
