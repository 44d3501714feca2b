"""Builders for real document files (PDF, DOCX, HTML, ...) written into a temporary folder."""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, pages: list[str], metadata: dict[str, str] | None = None) -> Path:
    """A real multi-page PDF with a text layer (drawn by matplotlib); `metadata` as the document information ('Title', ...)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    with PdfPages(path, metadata=metadata) as pdf:
        for text in pages:
            fig = plt.figure(figsize=(8.27, 11.69))
            fig.text(0.05, 0.95, text, va="top", fontsize=9, family="DejaVu Sans")
            pdf.savefig(fig)
            plt.close(fig)
    return path


def write_docx(path: Path, title: str, sections: list[tuple[str, str]], table: list[list[str]] | None = None) -> Path:
    """A DOCX with a title, headed sections and an optional table."""
    import docx

    d = docx.Document()
    d.add_heading(title, level=1)
    for heading, body in sections:
        d.add_heading(heading, level=2)
        d.add_paragraph(body)
    if table:
        t = d.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                t.cell(r, c).text = cell
    d.save(str(path))
    return path
