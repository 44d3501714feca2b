"""Running headers and footers in text converted from a PDF without page markers: found as repeated blocks, cut out, the text joined."""

from __future__ import annotations

import re
from collections import Counter

from pipeline.headings import boundary
from pipeline.text import fold

MIN_REPEATS = 3  # a block of page furniture is printed on three or more pages
_PAGE_NUMBER = re.compile(r"^(?:p[áa]g(?:ina)?\.?\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:de|/)\s*\d{1,4})?$", re.IGNORECASE)
_NOT_FURNITURE = re.compile(
    r"^(?:[-•*▪●]\s|\d{1,3}[.)]\s|[a-zA-Z][.)]\s|\||-{3,}$|\*{3,}$|_{3,}$|#)"  # list items, table rows, rules, Markdown headings
    r"|^[A-Za-zÁÉÍÓÚáéíóúñÑ_][A-Za-zÁÉÍÓÚáéíóúñÑ_ ]{1,24}:\s"  # 'campo: valor' records
)


def _key(line: str) -> str:
    """Lines that differ only in their numbers ('Página 3', 'Página 4') are one line of furniture."""
    return re.sub(r"\d+", "#", fold(line.strip()))


def _candidate(line: str) -> bool:
    """A line that can belong to page furniture: short, not a list item, record, table row, heading or article."""
    return bool(line) and len(line.split()) <= 20 and not _NOT_FURNITURE.match(line) and boundary(line) not in ("chapter", "article", "faq")


def furniture_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """[start, end) line ranges of running headers and footers: runs of repeated lines (with the page number and blank lines
    between them) that recur as a block on three or more pages. A block needs two repeated lines, or one and a page number,
    so a heading that happens to repeat a footer's words ('DEPARTAMENTO DE EPS' above an article) stays."""
    keys = [_key(ln) for ln in lines]
    count = Counter(k for k, ln in zip(keys, lines) if ln.strip())
    rep = [bool(ln.strip()) and count[k] >= MIN_REPEATS and _candidate(ln.strip()) and not _PAGE_NUMBER.match(ln.strip()) for k, ln in zip(keys, lines)]
    number = [bool(_PAGE_NUMBER.match(ln.strip())) for ln in lines]
    runs: list[tuple[int, int, frozenset[str], int]] = []
    i = 0
    while i < len(lines):
        if not rep[i]:
            i += 1
            continue
        j = i
        while j < len(lines) and (rep[j] or number[j] or not lines[j].strip()):
            j += 1
        runs.append((i, j, frozenset(keys[k] for k in range(i, j) if rep[k]), sum(number[i:j])))
        i = j
    runs = [r for r in runs if len(r[2]) >= 2 or r[3]]
    shapes = Counter(shape for _, _, shape, _ in runs)
    known = frozenset().union(*(shape for shape, n in shapes.items() if n >= MIN_REPEATS))
    out = [(a, b) for a, b, shape, _ in runs if shapes[shape] >= MIN_REPEATS or shape <= known]  # also a page's header alone
    return out


def strip_running(text: str) -> tuple[str, int]:
    """The text without its running headers and footers, each cut joined so a sentence or list the page break split goes on
    (a word hyphenated across it is rejoined); returns the text and how many blocks were cut."""
    lines = text.split("\n")
    blocks = furniture_blocks(lines)
    if not blocks:
        return text, 0
    pieces, at = [], 0
    for a, b in blocks:
        pieces.append("\n".join(lines[at:a]))
        at = b
    pieces.append("\n".join(lines[at:]))
    out = pieces[0].rstrip()
    for piece in pieces[1:]:
        piece = piece.strip("\n")
        if not piece.strip():
            continue
        if not out:
            out = piece
        elif re.search(r"[a-záéíóúñ]-$", out) and piece[:1].islower():
            out = out[:-1] + piece  # 'soli-' / 'citadas'
        else:
            out = f"{out}\n{piece}"  # a page break is not a paragraph break
        out = out.rstrip()
    return out, len(blocks)
