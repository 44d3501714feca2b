"""Text formats: Markdown, plain text and HTML."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError
from pipeline.loaders import decode_text, register
from pipeline.loaders.debris import drop_debris
from pipeline.loaders.pdf_text import repair_pages
from pipeline.loaders.running import strip_running
from pipeline.loaders.titles import title_from_text

_URL_LINE = re.compile(r"^(?:fuente|source|url)\s*:\s*(https?://\S+)", re.IGNORECASE | re.MULTILINE)


def _read(path: Path) -> tuple[str, list[str]]:
    text, warning = decode_text(path.read_bytes(), path.name)
    return text, [warning] if warning else []


# Stamp and seal debris in a converted text without page markers: the rule finds it (47 of the 49 strings in FIUSAC's
# evaluation normativo) but cutting it moves that text's section boundaries (an upper-case stamp line was read as a
# heading), which cost 2 of 447 FIUSAC dev questions their expected document (doc cited 0.902 -> 0.897, under bar 08).
# Off until retrieval is re-tuned on the cleaned text; the PDF repairs (and converted text with page markers) drop it.
SEAL_DEBRIS_UNMARKED = False

_PAGE = re.compile(r"^-{2,}\s*p[áa]gina\s+(\d+)\s*-{2,}\s*$", re.IGNORECASE | re.MULTILINE)


def page_offsets(text: str) -> list[tuple[int, int]]:
    """(offset, page) for '--- Página N ---' markers left by PDF-to-text conversions."""
    return [(m.start(), int(m.group(1))) for m in _PAGE.finditer(text)]


def repair_converted(text: str, name: str) -> tuple[str, list[str]]:
    """A PDF converted to text ('--- Página N ---' markers) gets the PDF repairs page by page; without markers, its running
    headers and footers (blocks repeated on three or more pages) are cut and the sentences they split joined. Stamp and
    seal debris (`pipeline.loaders.debris`) is dropped with the page repairs, and without markers only when
    SEAL_DEBRIS_UNMARKED is on."""
    marks = list(_PAGE.finditer(text))
    if not marks:
        text = strip_running(text)[0]
        return (drop_debris(text)[0] if SEAL_DEBRIS_UNMARKED else text), []
    head = text[: marks[0].start()]
    bodies = [text[m.end() : (marks[k + 1].start() if k + 1 < len(marks) else len(text))] for k, m in enumerate(marks)]
    repaired = repair_pages(bodies, name=name)
    out = head + "".join(f"{m.group(0)}\n{body}\n" for m, body in zip(marks, repaired.pages, strict=True))
    return out.strip(), repaired.warnings


def _url(text: str) -> str | None:
    m = _URL_LINE.search(text)
    return m.group(1) if m else None


@register(".md", ".markdown")
def load_markdown(path: Path) -> Document:
    """Markdown: title from the first heading, URL from a 'Fuente: https://...' line."""
    text, warnings = _read(path)
    m = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    title = m.group(1).strip() if m else title_from_text(text, path)
    text, repairs = repair_converted(text.strip(), path.name)
    warnings += repairs
    return Document(id=document_id(path), title=title, text=text, source=str(path), url=_url(text), pages=page_offsets(text), warnings=warnings)


@register(".txt")
def load_text(path: Path) -> Document:
    """Plain text: the first non-empty line is the title."""
    text, warnings = _read(path)
    text, repairs = repair_converted(text.strip(), path.name)
    warnings += repairs
    return Document(id=document_id(path), title=title_from_text(text, path), text=text, source=str(path), url=_url(text), pages=page_offsets(text), warnings=warnings)


_BOILERPLATE = ["nav", "header", "footer", "script", "style", "noscript", "aside", "form", "iframe", "svg", "button"]
_BOILERPLATE_HINTS = re.compile(r"cookie|menu|navbar|breadcrumb|footer|header|sidebar|banner|skip|social|share", re.IGNORECASE)


def html_to_text(html: str) -> tuple[str, str | None, str | None]:
    """Main text of an HTML page with links kept as explicit URLs; returns (text, title, canonical url)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "lxml")
    title = None
    if soup.title and soup.title.string:
        title = soup.title.string.strip()
    h1 = soup.find("h1")
    if h1 and h1.get_text(strip=True):
        title = h1.get_text(" ", strip=True)
    canonical = soup.find("link", rel="canonical")
    url = canonical.get("href") if canonical else None
    for tag in soup(_BOILERPLATE):
        tag.decompose()
    for tag in soup.find_all(True):
        if tag.attrs is None:
            continue
        marker = " ".join([*(tag.get("class") or []), tag.get("id") or "", tag.get("role") or ""])
        if marker.strip() and _BOILERPLATE_HINTS.search(marker) and tag.name not in ("main", "article", "body"):
            tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    for a in root.find_all("a"):
        href = (a.get("href") or "").strip()
        label = a.get_text(" ", strip=True)
        if href.startswith(("http://", "https://", "mailto:")) and href.removeprefix("mailto:") not in label:
            a.replace_with(f"{label} ({href.removeprefix('mailto:')})")
    lines: list[str] = []
    for el in root.find_all(["h1", "h2", "h3", "h4", "p", "li", "td", "th", "dt", "dd", "pre", "blockquote", "table"]):
        if el.name == "table":
            if not el.find_parent("table"):
                lines.extend(_table_lines(el))
            continue
        if el.find(["p", "li", "table"]) or el.find_parent("table"):  # containers: their children are visited
            continue
        txt = _inline_text(el)
        if not txt:
            continue
        if el.name in ("h1", "h2", "h3", "h4"):
            txt = "#" * int(el.name[1]) + " " + txt
        elif el.name == "li":
            txt = "- " + txt
        lines.append(txt)
    return "\n\n".join(lines), title, url


_SPACE_BEFORE = re.compile(r"\s+([,.;:!?)])")


def _inline_text(el) -> str:
    """An element's text on one line; no space left before punctuation where an inline tag ended."""
    txt = re.sub(r"\s+", " ", el.get_text(" ", strip=True)).strip()
    return re.sub(r"\(\s+", "(", _SPACE_BEFORE.sub(r"\1", txt))


def _table_lines(table) -> list[str]:
    """A table as one Markdown table block (header row, separator, rows) so its rows keep their header."""
    rows = []
    for tr in table.find_all("tr"):
        cells = [_inline_text(c).replace("|", "/") for c in tr.find_all(["th", "td"])]
        if any(cells):
            rows.append(cells)
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    md = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width] + ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return ["\n".join(md)]


@register(".html", ".htm")
def load_html(path: Path) -> Document:
    """HTML: boilerplate (nav, header, footer, cookie banners) dropped, links kept as URLs."""
    html, warnings = _read(path)
    text, title, url = html_to_text(html)
    if not text.strip():
        raise DocumentError(f"{path.name}: no readable text in this HTML page")
    return Document(id=document_id(path), title=title or path.stem, text=text, source=str(path), url=url, warnings=warnings)
