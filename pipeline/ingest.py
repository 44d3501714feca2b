"""Ingestion: load files, chunk them, embed, and write them to the index incrementally."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.chunking import Chunk, chunk_document
from pipeline.documents import Document, iter_document_files
from pipeline.embeddings import Embedder
from pipeline.errors import DocumentError, PipelineError
from pipeline.index import ChunkIndex
from pipeline.loaders import MAX_BYTES, load_document
from pipeline.sparse import BM25Encoder
from pipeline.units import UNITS_VERSION


@dataclass
class IngestProgress:
    """How far an ingest run got: documents and chunks written out of those to write (read phase: files read)."""

    phase: str = "reading"  # reading | writing | done
    docs_total: int = 0
    docs_done: int = 0
    chunks_total: int = 0
    chunks_done: int = 0
    current: str = ""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("phase", "docs_total", "docs_done", "chunks_total", "chunks_done", "current")}


@dataclass
class IngestReport:
    """What an ingest run did, file by file."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    chunks: int = 0
    seconds: float = 0.0
    recovered: dict[str, list[str]] = field(default_factory=dict)  # what an interrupted earlier run left: completed / discarded versions
    embedding: dict[str, int] = field(default_factory=dict)  # texts embedded now / taken from the embedding cache (when one is used)

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("added", "updated", "unchanged", "removed", "failed", "warnings", "chunks", "recovered", "embedding")}
        out.update(seconds=round(self.seconds, 3), chunks_per_second=round(self.chunks_per_second, 2))
        return out


def chunking_signature(strategy: str, chunk_size: int, overlap: int) -> str:
    """What the stored chunks depend on besides the text; a change re-chunks and re-embeds the document."""
    return f"{strategy}:{chunk_size}:{overlap}:units{UNITS_VERSION}"


def squash(text: str) -> str:
    """Whitespace-normalised text: the key under which equal texts share one embedding."""
    return " ".join(text.split())


def late_pooling(embedder: Embedder) -> str | None:
    """The name of `embedder`'s late-pooled vectors, when it has them and they are switched on (else None)."""
    return getattr(embedder, "late_name", None)


LOOK_AHEAD = 6  # a unit is looked for in its own chunk and up to this many next ones (a paragraph's sentences share its start)


def embed_document(chunks: list[Chunk], embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Embed a document's chunks and answer units, each distinct text once; returns the chunk vectors.

    Units get their vectors set (generation reads them). A unit whose text repeats a chunk's text takes that
    chunk's vector; units repeating each other, or a chunk, after whitespace normalisation share one vector.
    With an embedder that can late-pool (`late_pooling`), a unit found in its chunk (or one of the next ones) takes
    the mean of that chunk's token states over its words, from the chunk's own pass: only chunks are embedded, plus
    the few units found in no chunk. `progress(done, total)` counts texts sent (only embedders that take a progress
    callback report it).
    """
    if late_pooling(embedder):
        return _embed_late(chunks, embedder, progress)
    texts: list[str] = []  # the first spelling of each distinct text: chunks first, then units
    slots: dict[str, int] = {}

    def slot(text: str) -> int:
        key = squash(text)
        if key not in slots:
            slots[key] = len(texts)
            texts.append(text)
        return slots[key]

    chunk_slots = [slot(c.embed_text) for c in chunks]
    by_chunk_text = {squash(c.text): s for c, s in zip(chunks, chunk_slots, strict=True)}
    unit_slots = []
    for u in (u for c in chunks for u in c.units or () if u.kind != "heading"):
        same = by_chunk_text.get(squash(u.text), by_chunk_text.get(squash(u.embed_text)))
        unit_slots.append((u, same if same is not None else slot(u.embed_text)))
    if progress is not None and hasattr(embedder, "cache"):
        vectors = embedder.embed_passages(texts, progress=progress)  # type: ignore[call-arg]
    else:
        vectors = embedder.embed_passages(texts)
    vectors = np.asarray(vectors, dtype=np.float32)
    for u, s in unit_slots:
        u.set_vec(vectors[s])
    return vectors[chunk_slots]


@dataclass
class LatePlan:
    """What late pooling embeds for a document: each distinct text once with the character spans to pool."""

    items: list[tuple[str, list[tuple[int, int]]]]  # (text, spans): the chunks, then the units found in no chunk
    chunk_slots: list[int]  # item of each chunk
    where: list[tuple[object, int, int | None]]  # unit, item, span index (None: the item's own vector)


def plan_late(chunks: list[Chunk]) -> LatePlan:
    """Find each unit's words in its chunk, or one of the LOOK_AHEAD next ones (units come in document order)."""
    from pipeline.e5_states import find_span, unit_words

    items: list[tuple[str, list[tuple[int, int]]]] = []
    slots: dict[str, int] = {}

    def slot(text: str) -> int:
        key = squash(text)
        if key not in slots:
            slots[key] = len(items)
            items.append((text, []))
        return slots[key]

    chunk_slots = [slot(c.embed_text) for c in chunks]
    by_chunk_text = {squash(c.text): s for c, s in zip(chunks, chunk_slots, strict=True)}
    after = {s: len(c.embed_text) - len(c.text) for c, s in zip(chunks, chunk_slots, strict=True)}
    where: list[tuple[object, int, int | None]] = []
    for i, c in enumerate(chunks):
        for u in c.units or ():
            if u.kind == "heading":
                continue
            same = by_chunk_text.get(squash(u.text), by_chunk_text.get(squash(u.embed_text)))
            if same is not None:
                where.append((u, same, None))
                continue
            words = unit_words(u.text)
            for s in dict.fromkeys(chunk_slots[i : i + 1 + LOOK_AHEAD]):
                text, spans = items[s]
                span = find_span(text, words, after[s])
                if span is not None:
                    after[s] = span[0]
                    where.append((u, s, len(spans)))
                    spans.append(span)
                    break
            else:  # not found in these chunks: embedded alone
                where.append((u, slot(u.embed_text), None))
    return LatePlan(items, chunk_slots, where)


def _embed_late(chunks: list[Chunk], embedder: Embedder, progress: Callable[[int, int], None] | None) -> np.ndarray:
    plan = plan_late(chunks)
    if progress is not None and hasattr(embedder, "cache"):
        out = embedder.embed_late(plan.items, progress=progress)  # type: ignore[attr-defined]
    else:
        out = embedder.embed_late(plan.items)  # type: ignore[attr-defined]
    for u, s, k in plan.where:
        u.set_vec(out[s][0] if k is None else out[s][1][k])  # type: ignore[attr-defined]
    if not chunks:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([out[s][0] for s in plan.chunk_slots]).astype(np.float32)


def _under(source: str | None, roots: list[Path]) -> bool:
    if not source:
        return False
    src = Path(source).resolve()
    return any(src == r or r in src.parents for r in roots)


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
    embed_progress: Callable[[int, int], None] | None = None,
    on_progress: Callable[[IngestProgress], None] | None = None,
    sparse: BM25Encoder | None = None,
    max_bytes: int = MAX_BYTES,
) -> IngestReport:
    """Index the documents under `paths`: only new or changed ones are embedded; deleted ones are removed.

    Each document is written atomically (ChunkIndex.replace_document); a run killed part-way is finished on the next
    run (`ChunkIndex.recover`), which re-does only the documents not yet written. Documents are written smallest
    first, so one huge file does not hold back the others. A file that cannot be read or indexed fails alone, with
    its reason in `report.failed`.
    """
    started = time.perf_counter()
    report = IngestReport()
    sparse = sparse or BM25Encoder()
    signature = chunking_signature(strategy, chunk_size, overlap)
    if late_pooling(embedder):  # unit vectors from the chunk's pass: another version of every document
        signature += f":{late_pooling(embedder)}"
    chunk_document(Document(id="", title="", text="x", source=""), strategy, chunk_size, overlap)  # validate options first
    if reset:
        index.reset()
    index.ensure(embedder.dim)
    recovered = index.recover()
    if recovered["completed"] or recovered["discarded"]:
        report.recovered = recovered
    known = index.documents()
    seen: dict[str, str] = {}
    todo: list[tuple[Document, list[Chunk], dict | None]] = []
    files = iter_document_files(paths)
    state = IngestProgress(docs_total=len(files))

    def tell() -> None:
        if on_progress:
            on_progress(state)

    for path in files:
        state.current = path.name
        tell()
        if progress:
            progress(path.name)
        try:
            doc = load_document(path, max_bytes=max_bytes)
        except DocumentError as exc:
            report.failed[str(path)] = str(exc)
            seen.setdefault(path.stem, str(path))  # a broken file keeps its previous version
            state.docs_done += 1
            continue
        if doc.id in seen and seen[doc.id] != str(path):
            report.failed[str(path)] = f"{path.name}: another file ({Path(seen[doc.id]).name}) already has the document id {doc.id!r}"
            state.docs_done += 1
            continue
        seen[doc.id] = str(path)
        if doc.warnings:
            report.warnings[str(path)] = doc.warnings
        previous = known.get(doc.id)
        if previous and (previous["content_hash"], previous.get("title"), previous.get("chunking"), previous.get("embedder")) == (doc.content_hash, doc.title, signature, embedder.name):
            report.unchanged.append(doc.id)
            state.docs_done += 1
            continue
        doc.active = bool(previous["active"]) if previous else True
        try:
            chunks = chunk_document(doc, strategy, chunk_size, overlap)
        except Exception as exc:  # noqa: BLE001 - one document's failure must not stop the batch
            report.failed[str(path)] = f"{path.name}: could not be split into chunks ({type(exc).__name__}: {str(exc)[:120]})"
            state.docs_done += 1
            continue
        todo.append((doc, chunks, previous))
    todo.sort(key=lambda t: len(t[1]))  # small documents first: a huge one does not hold back the others
    total, done = sum(len(c) for _, c, _ in todo), 0
    state.phase, state.chunks_total = "writing", total
    tell()
    for doc, chunks, previous in todo:
        state.current = Path(doc.source).name if doc.source else doc.id
        tell()
        if progress:
            progress(doc.id)
        ok = False
        try:
            texts = [c.embed_text for c in chunks]

            def step(d: int, t: int, base: int = done, n: int = len(chunks)) -> None:
                state.chunks_done = base + d * n // max(t, 1)
                tell()
                if embed_progress:
                    embed_progress(state.chunks_done, total)

            vectors = embed_document(chunks, embedder, step if (embed_progress or on_progress) else None)
            meta = {**doc.metadata(), "chunking": signature, "embedder": embedder.name}
            index.replace_document(chunks, vectors, sparse.encode_passages(texts), doc_meta=meta)
            ok = True
        except PipelineError as exc:
            report.failed[doc.source] = str(exc)
        except Exception as exc:  # noqa: BLE001 - an unexpected error in one document fails that document, with its reason
            report.failed[doc.source] = f"{Path(doc.source).name if doc.source else doc.id}: could not be indexed ({type(exc).__name__}: {str(exc)[:160]})"
        finally:
            done += len(chunks)
            state.chunks_done, state.docs_done = done, state.docs_done + 1
            tell()
            if embed_progress:
                embed_progress(done, total)
        if ok:
            report.chunks += len(chunks)
            (report.updated if previous else report.added).append(doc.id)
    roots = [p.resolve() for p in paths]
    for doc_id, info in known.items():
        if doc_id not in seen and (reset or _under(info.get("source"), roots) or not info.get("source")):
            index.delete_document(doc_id)
            report.removed.append(doc_id)
    state.phase, state.current = "done", ""
    tell()
    report.seconds = time.perf_counter() - started
    return report
