"""Chunking strategies: split a Document into Chunks that carry their title and position."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.documents import Document
from pipeline.headings import MD_HEADING, PAGE_MARKER, boundary
from pipeline.units import assign, extract_units

Span = tuple[int, int]  # [start, end) character offsets in the document text


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
    units: list | None = None  # pipeline.units.Unit that start in this chunk; None: not extracted (an index built before units)

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
    """Register a chunking strategy by name."""

    def deco(fn: Chunker) -> Chunker:
        CHUNKERS[name] = fn
        return fn

    return deco




def _chunks(doc: Document, pieces: list[tuple[str | None, Span]]) -> list[Chunk]:
    out = []
    for section, (start, end) in pieces:
        text = PAGE_MARKER.sub("", doc.text[start:end]).strip()
        if len(text) >= 2:
            out.append(Chunk(doc_id=doc.id, doc_title=doc.title, text=text, position=len(out), url=doc.url, section=section, page=doc.page_at(start), meta={"span": (start, end)}))
    return out


def _windows(text: str, span: Span, size: int, overlap: int) -> list[Span]:
    """Fixed windows over `span`, cut at whitespace where possible."""
    start, stop = span
    step = max(1, size - overlap)
    out: list[Span] = []
    while start < stop:
        end = min(stop, start + size)
        if end < stop:
            cut = text.rfind(" ", start + step // 2, end)
            cut = max(cut, text.rfind("\n", start + step // 2, end))
            end = cut if cut > start else end
        out.append((start, end))
        if end >= stop:
            break
        nxt = max(end - overlap, start + 1)
        if overlap and not text[nxt - 1].isspace():  # start the next window at a word boundary
            gap = re.search(r"\s", text[nxt:end])
            nxt = nxt + gap.end() if gap else end
        start = nxt
    return out


def _pack(atoms: list[Span], size: int, overlap: int) -> list[Span]:
    """Greedily join consecutive atoms into windows of at most `size`, repeating trailing atoms up to `overlap`."""
    out: list[Span] = []
    buf: list[Span] = []
    for atom in atoms:
        if buf and atom[1] - buf[0][0] > size:
            out.append((buf[0][0], buf[-1][1]))
            keep: list[Span] = []
            for a in reversed(buf):
                if sum(e - s for s, e in keep) + (a[1] - a[0]) > overlap:
                    break
                keep.insert(0, a)
            buf = keep if keep and atom[1] - keep[0][0] <= size else []
        buf.append(atom)
    if buf:
        out.append((buf[0][0], buf[-1][1]))
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?…:;])\s+|\n\s*\n|\n(?=\s*(?:[-•*]|\d{1,3}[.)]|[a-z][.)])\s)")


def _sentence_atoms(text: str, span: Span, size: int) -> list[Span]:
    """Sentence (and list item) spans within `span`; sentences longer than `size` are cut into windows."""
    atoms: list[Span] = []
    start, stop = span
    for m in _SENTENCE_END.finditer(text, start, stop):
        if m.start() > start:
            atoms.append((start, m.start()))
        start = m.end()
    if start < stop:
        atoms.append((start, stop))
    out: list[Span] = []
    for s, e in atoms:
        out.extend(_windows(text, (s, e), size, 0) if e - s > size else [(s, e)])
    return out


@register("fixed")
def fixed_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Fixed windows of `size` characters overlapping by `overlap`, cut at whitespace."""
    return _chunks(doc, [(None, w) for w in _windows(doc.text, (0, len(doc.text)), size, overlap)])


@register("sentence")
def sentence_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Whole sentences accumulated up to `size` characters, the last ones repeated up to `overlap`."""
    atoms = _sentence_atoms(doc.text, (0, len(doc.text)), size)
    return _chunks(doc, [(None, w) for w in _pack(atoms, size, overlap)])


SEPARATORS = ("\n\n", "\n", ". ", " ")


def _recursive_atoms(text: str, span: Span, size: int, seps: tuple[str, ...]) -> list[Span]:
    start, stop = span
    if stop - start <= size:
        return [span]
    for i, sep in enumerate(seps):
        if text.find(sep, start, stop) >= 0:
            break
    else:
        return _windows(text, span, size, 0)
    parts, pos = [], start
    while pos < stop:
        j = text.find(sep, pos, stop)
        end = stop if j < 0 else j + len(sep)
        parts.append((pos, end))
        pos = end
    out: list[Span] = []
    for part in parts:
        out.extend(_recursive_atoms(text, part, size, seps[i + 1 :]) if part[1] - part[0] > size else [part])
    return out


@register("recursive")
def recursive_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Split by paragraphs, then lines, sentences and words until pieces fit, then merge up to `size`."""
    atoms = _recursive_atoms(doc.text, (0, len(doc.text)), size, SEPARATORS)
    return _chunks(doc, [(None, w) for w in _pack(atoms, size, overlap)])


def _sections(text: str) -> list[tuple[str | None, Span, str | None]]:
    """Split at headings: (label, span, kind of the heading that opens it)."""
    blocks: list[tuple[str | None, Span, str | None]] = []
    label, start, kind, pos = None, 0, None, 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        new = boundary(stripped) if stripped else None
        if new:
            blocks.append((label, (start, pos), kind))
            m = MD_HEADING.match(stripped)
            label = m.group(2) if m else stripped[:100]
            start = pos + len(line) if m else pos
            kind = new
        pos += len(line)
    blocks.append((label, (start, pos), kind))
    return [b for b in blocks if text[b[1][0] : b[1][1]].strip() or b[2] == "md"]


@register("structure")
def structure_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Split at headings (Markdown, 'Artículo N', chapters, numbered FAQ items, capitalised PDF headings), then pack sentences up to `size`."""
    merged: list[tuple[str | None, Span, str | None]] = []
    for label, (s, e), kind in _sections(doc.text):
        if merged:
            plabel, (ps, pe), pkind = merged[-1]
            heading_only = pkind not in ("article", "faq") and len(doc.text[ps:pe].strip()) < 120
            if heading_only and e - ps <= size:  # a bare chapter/heading joins what it introduces
                merged[-1] = (label or plabel, (ps, e), kind)
                continue
            if kind == "caps" and pe - ps < size // 3 and e - ps <= size:  # weak PDF headings do not split small blocks
                merged[-1] = (plabel, (ps, e), pkind)
                continue
        merged.append((label, (s, e), kind))
    pieces: list[tuple[str | None, Span]] = []
    for label, span, _ in merged:
        if span[1] - span[0] <= size:
            pieces.append((label, span))
        else:
            pieces.extend((label, w) for w in _pack(_sentence_atoms(doc.text, span, size), size, overlap))
    return _chunks(doc, pieces)


def handmade_chunks(doc: Document) -> list[Chunk]:
    """Rows of a hand-made chunk table, one chunk each."""
    return [Chunk(doc_id=doc.id, doc_title=doc.title, text=text, position=i, url=url or doc.url, section=title) for i, (title, url, text) in enumerate(doc.handmade)]


def chunk_document(doc: Document, strategy: str = "structure", size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Chunk a document with a registered strategy (hand-made chunks are kept as they are)."""
    try:
        chunker = CHUNKERS[strategy]
    except KeyError:
        raise ValueError(f"unknown chunking strategy {strategy!r}; choose from {sorted(CHUNKERS)}") from None
    if overlap >= size:
        raise ValueError(f"chunk overlap ({overlap}) must be smaller than the chunk size ({size})")
    if doc.handmade:
        chunks = handmade_chunks(doc)
        for c in chunks:
            c.units = extract_units(c.text, skip=set())
        return chunks
    chunks = chunker(doc, size=size, overlap=overlap)
    spans = [c.meta.pop("span", None) for c in chunks]
    if all(spans):  # units come from the whole document (table headers, headings and FAQ questions reach every chunk)
        for c, mine in zip(chunks, assign(extract_units(doc.text), spans), strict=True):
            c.units = mine
    else:
        for c in chunks:
            c.units = extract_units(c.text)
    return chunks
