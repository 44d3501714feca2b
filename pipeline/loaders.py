"""Loaders turn files into Documents, one function per format, registered by extension."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError

Loader = Callable[[Path], Document]
LOADERS: dict[str, Loader] = {}

MAX_BYTES = 20 * 1024 * 1024


def register(*extensions: str) -> Callable[[Loader], Loader]:
    """Register a loader for file extensions (with the dot, lower case)."""

    def deco(fn: Loader) -> Loader:
        for ext in extensions:
            LOADERS[ext] = fn
        return fn

    return deco


def read_text(path: Path) -> str:
    """Read a text file as UTF-8, falling back to windows-1252 for legacy files."""
    data = path.read_bytes()
    if b"\x00" in data[:4096]:
        raise DocumentError(f"{path.name}: looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


_URL_LINE = re.compile(r"^(?:fuente|source|url)\s*:\s*(https?://\S+)", re.IGNORECASE | re.MULTILINE)


@register(".md", ".markdown")
def load_markdown(path: Path) -> Document:
    """Markdown: title from the first heading, URL from a 'Fuente: https://...' line."""
    text = read_text(path)
    m = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    title = m.group(1).strip() if m else path.stem.replace("_", " ").capitalize()
    url = _URL_LINE.search(text)
    return Document(id=document_id(path), title=title, text=text.strip(), source=str(path), url=url.group(1) if url else None)


@register(".txt")
def load_text(path: Path) -> Document:
    """Plain text: the first non-empty line is the title."""
    text = read_text(path)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), path.stem)
    url = _URL_LINE.search(text)
    return Document(id=document_id(path), title=first[:120], text=text.strip(), source=str(path), url=url.group(1) if url else None)


_BOILERPLATE = ["nav", "header", "footer", "script", "style", "noscript", "aside", "form", "iframe", "svg"]
_BOILERPLATE_HINTS = re.compile(r"cookie|menu|navbar|breadcrumb|footer|header|sidebar|banner|skip", re.IGNORECASE)


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
    for el in root.find_all(["h1", "h2", "h3", "h4", "p", "li", "td", "th", "dt", "dd", "pre", "blockquote"]):
        if el.find(["p", "li", "table"]):  # containers: their children are visited
            continue
        txt = re.sub(r"\s+", " ", el.get_text(" ", strip=True)).strip()
        if not txt:
            continue
        if el.name in ("h1", "h2", "h3", "h4"):
            txt = "#" * int(el.name[1]) + " " + txt
        elif el.name == "li":
            txt = "- " + txt
        lines.append(txt)
    return "\n\n".join(lines), title, url


@register(".html", ".htm")
def load_html(path: Path) -> Document:
    """HTML: boilerplate (nav, header, footer, cookie banners) dropped, links kept as URLs."""
    text, title, url = html_to_text(read_text(path))
    if not text.strip():
        raise DocumentError(f"{path.name}: no readable text in this HTML page")
    return Document(id=document_id(path), title=title or path.stem, text=text, source=str(path), url=url)


def load_document(path: Path) -> Document:
    """Load one file with the loader for its extension; raise DocumentError with a clear reason."""
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        raise DocumentError(f"{path.name}: unsupported file type {path.suffix or '(none)'}")
    size = path.stat().st_size
    if size == 0:
        raise DocumentError(f"{path.name}: empty file")
    if size > MAX_BYTES:
        raise DocumentError(f"{path.name}: too large ({size / 1e6:.0f} MB > {MAX_BYTES / 1e6:.0f} MB)")
    doc = loader(path)
    if not doc.text.strip():
        raise DocumentError(f"{path.name}: no text could be extracted")
    return doc
