"""Hand-made chunks: a CSV with `title,url,text` per row, kept as they are."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from pipeline.documents import Document, document_id
from pipeline.errors import DocumentError
from pipeline.loaders import decode_text, register

REQUIRED = ("title", "text")


@register(".csv")
def load_csv(path: Path) -> Document:
    """CSV of hand-made chunks (`title,url,text`): each row becomes one chunk, unsplit."""
    raw, warning = decode_text(path.read_bytes(), path.name)
    reader = csv.DictReader(io.StringIO(raw))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    missing = [f for f in REQUIRED if f not in fields]
    if missing:
        raise DocumentError(f"{path.name}: CSV of chunks needs the columns title,url,text (missing: {', '.join(missing)})")
    reader.fieldnames = fields
    rows = []
    for n, row in enumerate(reader, start=2):
        text = (row.get("text") or "").strip()
        if not text:
            continue
        if None in row:
            raise DocumentError(f"{path.name}: line {n} has more fields than the header (quote texts with commas)")
        rows.append(((row.get("title") or "").strip() or None, (row.get("url") or "").strip() or None, text))
    if not rows:
        raise DocumentError(f"{path.name}: no rows with text")
    title = path.stem.replace("_", " ").capitalize()
    body = "\n\n".join(f"{t}\n{x}" if t else x for t, _, x in rows)
    return Document(id=document_id(path), title=title, text=body, source=str(path), handmade=rows, warnings=[warning] if warning else [])
