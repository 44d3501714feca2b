"""Office documents: DOCX with python-docx (headings become Markdown headings)."""

from __future__ import annotations

from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.loaders import register


@register(".docx")
def load_docx(path: Path) -> Document:
    """DOCX: paragraphs in order, 'Heading N' styles as Markdown headings, tables as rows."""
    import docx

    d = docx.Document(str(path))
    lines: list[str] = []
    title = (d.core_properties.title or "").strip()
    for block in d.iter_inner_content():
        if isinstance(block, docx.table.Table):
            for row in block.rows:
                cells = [c.text.strip() for c in row.cells]
                if any(cells):
                    lines.append(" | ".join(dict.fromkeys(cells)))
            continue
        text = block.text.strip()
        if not text:
            continue
        style = (block.style.name if block.style is not None else "") or ""
        if style == "Title" or (style.startswith("Heading") and style[-1:].isdigit()):
            level = 1 if style == "Title" else min(6, int(style.split()[-1]))
            title = title or text
            text = "#" * level + " " + text
        lines.append(text)
    return Document(id=document_id(path), title=title or path.stem.replace("_", " "), text="\n\n".join(lines), source=str(path))
