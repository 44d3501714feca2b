"""Chunking strategies: split a Document into Chunks that carry their title and position."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.documents import Document


@dataclass(slots=True)
class Chunk:
    """A retrievable piece of a document."""

    doc_id: str
    doc_title: str
    text: str
    position: int
    url: str | None = None
    section: str | None = None
    page: int | None = None
    meta: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.doc_id}#{self.position}"

    @property
    def embed_text(self) -> str:
        """The text that gets embedded: the document title (and section) first."""
        head = self.doc_title if not self.section or self.section == self.doc_title else f"{self.doc_title} — {self.section}"
        return f"{head}\n{self.text}"

    @property
    def text_hash(self) -> str:
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()


Chunker = Callable[..., list[Chunk]]
CHUNKERS: dict[str, Chunker] = {}


def register(name: str) -> Callable[[Chunker], Chunker]:
    def deco(fn: Chunker) -> Chunker:
        CHUNKERS[name] = fn
        return fn

    return deco


def _chunks(doc: Document, pieces: list[tuple[str | None, str]]) -> list[Chunk]:
    out = []
    for section, text in pieces:
        text = text.strip()
        if text:
            out.append(Chunk(doc_id=doc.id, doc_title=doc.title, text=text, position=len(out), url=doc.url, section=section))
    return out


@register("fixed")
def fixed_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Fixed windows of `size` characters overlapping by `overlap`, cut at whitespace."""
    text, pieces, start = doc.text, [], 0
    step = max(1, size - overlap)
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + step // 2, end)
            end = cut if cut > start else end
        pieces.append((None, text[start:end]))
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return _chunks(doc, pieces)


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@register("structure")
def structure_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Split at Markdown headings, then pack paragraphs up to `size`; each chunk knows its section."""
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in doc.text.splitlines():
        m = _HEADING.match(line)
        if m:
            sections.append((m.group(2).strip(), []))
        else:
            sections[-1][1].append(line)
    pieces: list[tuple[str | None, str]] = []
    for title, lines in sections:
        paragraphs = [p.strip() for p in "\n".join(lines).split("\n\n") if p.strip()]
        buf = ""
        for para in paragraphs:
            if buf and len(buf) + len(para) + 2 > size:
                pieces.append((title, buf))
                buf = ""
            if len(para) > size:
                for sub in fixed_chunks(Document(id="", title="", text=para, source=""), size, overlap):
                    pieces.append((title, sub.text))
                continue
            buf = f"{buf}\n\n{para}" if buf else para
        if buf:
            pieces.append((title, buf))
    return _chunks(doc, pieces)


def chunk_document(doc: Document, strategy: str = "structure", size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Chunk a document with a registered strategy."""
    try:
        chunker = CHUNKERS[strategy]
    except KeyError:
        raise ValueError(f"unknown chunking strategy {strategy!r}; choose from {sorted(CHUNKERS)}") from None
    return chunker(doc, size=size, overlap=overlap)
