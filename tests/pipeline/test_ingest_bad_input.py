"""Bad input at office scale: a corrupt PDF among 100 files, a file just under the size limit, a scanned PDF."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.embeddings import HashingEmbedder
from pipeline.index import ChunkIndex
from pipeline.ingest import IngestProgress, ingest
from pipeline.loaders import MAX_BYTES
from tests.pipeline.docs_factory import write_pdf


def _small_docs(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"tramite{i:03d}.md").write_text(f"# Trámite {i}\n\nEl trámite {i} se pide en Bedelía con la constancia {i}.\n", encoding="utf-8")


def _scanned_pdf(path: Path, text_pages: list[str], scanned_pages: int, *, pixels: int = 64, seed: int = 0) -> Path:
    """A PDF whose first pages carry text and the rest only an image each (a scan without a text layer)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    rng = np.random.default_rng(seed)
    with PdfPages(path) as pdf:
        for text in text_pages:
            fig = plt.figure(figsize=(8.27, 11.69))
            fig.text(0.05, 0.95, text, va="top", fontsize=9, family="DejaVu Sans")
            pdf.savefig(fig)
            plt.close(fig)
        for _ in range(scanned_pages):
            fig = plt.figure(figsize=(max(8.27, pixels / 72), max(11.69, pixels / 72)), dpi=72)
            fig.figimage(rng.integers(0, 255, size=(pixels, pixels, 3), dtype=np.uint8), resize=False)
            pdf.savefig(fig)
            plt.close(fig)
    return path


def test_a_corrupt_pdf_in_a_batch_of_100_fails_alone_with_its_reason(tmp_path):
    docs = tmp_path / "docs"
    _small_docs(docs, 98)
    write_pdf(docs / "reglamento.pdf", ["Artículo 1. La inscripción es anual.", "Artículo 2. Las reválidas se piden en Bedelía."])
    good = (docs / "reglamento.pdf").read_bytes()
    (docs / "roto.pdf").write_bytes(good[: len(good) // 3])  # cut mid-file: a download that stopped
    index = ChunkIndex(path=tmp_path / "qdrant")
    try:
        report = ingest([docs], index=index, embedder=HashingEmbedder(dim=64))
        assert len(report.added) == 99 and "reglamento" in report.added
        assert list(report.failed) == [str(docs / "roto.pdf")]
        reason = report.failed[str(docs / "roto.pdf")]
        assert reason.startswith("roto.pdf: ") and ("PDF" in reason or "text" in reason), reason
        assert len(index.documents()) == 99
    finally:
        index.close()


def test_a_file_just_under_the_size_limit_is_written_after_the_others(tmp_path):
    """A 20 MB PDF (incompressible scans plus a text page) next to small files: the small ones are indexed first,
    each committed on its own, so they are searchable while the big one is embedded; none of them waits for it."""
    docs = tmp_path / "docs"
    _small_docs(docs, 20)
    big = _scanned_pdf(docs / "archivo_escaneado.pdf", ["Memoria anual. " * 400] * 3, 3, pixels=1460)
    size = big.stat().st_size
    assert 15_000_000 < size < MAX_BYTES, size
    order: list[tuple[str, int]] = []
    index = ChunkIndex(path=tmp_path / "qdrant")
    committed_before_big: list[int] = []

    def watch(p: IngestProgress) -> None:
        if p.phase == "writing" and p.current == big.name and not committed_before_big:
            committed_before_big.append(len(index.documents()))
        order.append((p.current, p.docs_done))

    try:
        report = ingest([docs], index=index, embedder=HashingEmbedder(dim=64), on_progress=watch)
        assert len(report.added) == 21 and not report.failed
        assert committed_before_big == [20]  # every small document was already in the index when the big one started
        assert any("mostly without usable text" in w or "no text layer" in w for w in report.warnings[str(big)])
    finally:
        index.close()


def test_a_mostly_scanned_pdf_is_reported_as_such_with_its_page_count(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    _scanned_pdf(docs / "escaneado.pdf", ["Resolución 12/2026. La inscripción tardía se pide en Bedelía."], 9)
    _scanned_pdf(docs / "solo_imagenes.pdf", [], 4)
    index = ChunkIndex(path=tmp_path / "qdrant")
    try:
        report = ingest([docs], index=index, embedder=HashingEmbedder(dim=64))
        assert report.added == ["escaneado"]
        warning = report.warnings[str(docs / "escaneado.pdf")][0]
        assert "mostly without usable text: 9 of 10 pages left out (9 scanned without a text layer, 0 unreadable); only 1 page(s) indexed" in warning
        assert report.failed == {str(docs / "solo_imagenes.pdf"): "solo_imagenes.pdf: no text layer on any of its 4 pages (scanned images need OCR first)"}
    finally:
        index.close()
