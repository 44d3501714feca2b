"""PDF: text per page with pypdf, repaired (pipeline.loaders.pdf_text), page numbers kept as character offsets."""

from __future__ import annotations

import logging
import re
import statistics
from collections import Counter
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError
from pipeline.loaders import register
from pipeline.loaders.pdf_layout import page_layout
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


_BARE = re.compile(r"^\s*0?\d{1,2}\s*$|^\s*(?:0?\d{1,2}\s+){1,}0?\d{1,2}\s*$", re.MULTILINE)


def _designed(text: str) -> bool:
    """A page that may be laid out in boxes or columns: step numbers on lines of their own, or mostly short lines."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(_BARE.findall(text)) >= 2:
        return True
    return len(lines) >= 10 and statistics.median(len(ln) for ln in lines) < 40


def _running(raw: list[str]) -> set[str]:
    """Lines found on three or more pages (running headers and footers), as written."""
    seen = Counter(ln for page in raw for ln in {x.strip() for x in page.splitlines() if x.strip()})
    return {ln for ln, n in seen.items() if n >= 3} if len(raw) >= 3 else set()


def _reading_order(pages, raw: list[str], name: str) -> tuple[list[str], list[str]]:
    """Page texts with designed pages (boxes, columns, step numbers) rebuilt in reading order from pypdf's layout mode
    (pipeline.loaders.pdf_layout); other pages as the plain extraction gave them. Also a warning per page range where step
    numbers could not be matched to their boxes."""
    out = list(raw)
    furniture = _running(raw)
    unmatched: list[int] = []
    last = 0
    for i, page in enumerate(pages):
        if not raw[i].strip() or not _designed(raw[i]):
            last = 0
            continue
        try:
            lay = page_layout(page.extract_text(extraction_mode="layout") or "", furniture, after=last)
        except Exception:  # noqa: BLE001  (layout mode fails on some damaged pages: the plain text stays)
            lay = None
        if lay is None:
            last = 0
            continue
        out[i] = "\n".join(lay.lines)
        last = lay.last
        if lay.markers_unmatched:
            unmatched.append(i)
    warnings = [
        f"{name}: {_page_range(a, b)} of {len(raw)}: laid out in boxes; some step numbers could not be matched to their text and were left out"
        for a, b in _ranges(unmatched)
    ]
    return out, warnings


def _ranges(indexes: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in indexes:
        if out and i == out[-1][1] + 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def _page_range(a: int, b: int) -> str:
    return f"page {a + 1}" if a == b else f"pages {a + 1}-{b + 1}"


def _continues(before: str, after: str) -> bool:
    """The page after goes on with the page before's last sentence: that one ends without a stop and this one opens in lower case."""
    last = before.rstrip().rsplit("\n", 1)[-1]
    return bool(last) and not re.search(r"[.:;!?]$", last) and not last.startswith("#") and after.lstrip()[:1].islower()


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
        text_pages, layout_warnings = _reading_order(reader.pages, raw, path.name)
    except PdfReadError as exc:
        raise DocumentError(f"{path.name}: not a readable PDF ({exc})") from exc
    repaired = repair_pages(text_pages, name=path.name, pictured=pictured)
    repaired.warnings.extend(layout_warnings)
    parts, pages, offset = [], [], 0
    for number, text in enumerate(repaired.pages, start=1):
        if not text:
            continue
        if parts:
            # a sentence or list item the page break cut ('… se asignará según la' / 'tabla siguiente') goes on: one line break, not a
            # paragraph break; a word hyphenated across the break ('soli-' / 'citadas') is joined
            sep = "\n" if _continues(parts[-1], text) else "\n\n"
            if re.search(r"[a-záéíóúñ]-$", parts[-1]) and text[:1].islower():
                parts[-1], sep = parts[-1][:-1], ""
                offset -= 1
            parts.append(sep)
            offset += len(sep)
        pages.append((offset, number))
        parts.append(text)
        offset += len(text)
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
    text = "".join(parts)
    junk = len(meta_title) <= 3 or _JUNK_TITLE.search(meta_title) or re.fullmatch(r"[\w\-]+_[\w\-]+", meta_title)  # a tool's default or a file name
    title = title_from_text(text, path) if junk else tidy_title(meta_title, text)
    return Document(id=document_id(path), title=title, text=text, source=str(path), pages=pages, warnings=repaired.warnings)
