"""Reading order of PDF pages laid out in columns (brochures, checklists), from pypdf's layout text.

pypdf's plain extraction follows the content stream, which on a designed page interleaves the titles, the bodies and the
step numbers of side-by-side boxes ('1 2 3 / 4 5 6 / … / Constancia de Inscripción / Solvencia General'). Its layout
mode instead places every character at its position on a fixed grid. This module cuts that grid into blocks (a
recursive XY cut: section breaks of two or more blank rows, then gutters, blank columns across every row of a region
that part two columns of prose, then paragraph breaks) and reads the blocks top to bottom and left to right within each
region. Step numbers and letters (a bare '1', '01' or 'A' standing alone on the grid, counting up with the others) are
taken off the grid first and given to the boxes they label: a row of them over a row of boxes labels those boxes left
to right, a single one the nearest block level with it or just below, at or right of it. A numbered box comes out as one
list line, 'N. Title: body.', with the blocks below it in its column up to the next numbered one.

Only pages with columns of prose or with step numbers are rebuilt. Columns that are not prose (a table's cells, or the
words of justified lines that happen to align) are not cut apart: their rows are read whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.loaders.pdf_text import doubled_at_break

_MARKER = re.compile(r"(?<!\S)(0?\d{1,2}|[A-H])(?!\S)")
_LETTER = 1000  # letters count as 1001 (A), 1002 (B), …: one sequence apart from the numbers
_MIN_GUTTER = 3  # blank columns between two columns of text (justified text has wider gaps, but not on every row)
_SECTION_GAP = 2  # blank rows that end a section (a paragraph break is one)


@dataclass
class Block:
    """A paragraph of the page: its grid rows and columns and its text lines."""

    top: int
    bottom: int
    left: int
    right: int
    lines: list[str]
    widths: list[int] = field(default_factory=list)  # each line's extent on the grid (justified lines fill the column)
    section: int = 0
    edge: bool = False  # among the page's first or last rows of text, where running headers and footers sit
    marker: int | None = None
    label: str = ""  # the step number or letter as the page prints it, without a leading zero
    order: int = 0


@dataclass
class Layout:
    """The page's lines in reading order, and what was found on it."""

    lines: list[str]
    columns: bool = False
    items: int = 0
    markers_unmatched: list[int] = field(default_factory=list)
    last: int = 0  # the highest step number on the page


def page_layout(grid_text: str, furniture: set[str] | frozenset[str] = frozenset(), after: int = 0) -> Layout | None:
    """Reading-ordered lines of a page from its layout-mode text, or None when the page has neither columns nor step numbers.

    `furniture`: the document's running header and footer lines, never taken into a list item; `after`: the last step
    number of the page before, which a page's run of two numbers ('11 12') may continue."""
    rows = [ln.replace("\t", " ").rstrip() for ln in grid_text.splitlines()]
    if not any(r.strip() for r in rows):
        return None
    markers = _in_sequence(_markers(rows), after)
    grid = [list(r) for r in rows]
    for row, col, text, _ in markers:
        for k in range(col, col + len(text)):
            grid[row][k] = " "
    rows = ["".join(r).rstrip() for r in grid]
    blocks: list[Block] = []
    state = {"columns": False, "section": 0}
    _cut(rows, 0, len(rows), 0, max((len(r) for r in rows), default=0), blocks, state, top_level=True)
    if not blocks:
        return None
    counting = bool(markers)
    if not state["columns"] and not counting:
        return None
    first, last = min(b.top for b in blocks), max(b.bottom for b in blocks)
    for i, b in enumerate(blocks):
        b.order = i
        b.edge = b.top <= first + 3 or b.bottom >= last - 3
    unmatched = []
    if counting:
        taken: set[int] = set()
        for row, col, text, n in _by_row(markers, blocks, taken):
            best = _labelled(blocks, row, col, taken)
            if best is None:
                unmatched.append(n)
                continue
            taken.add(best.order)
            best.marker, best.label = n, text.lstrip("0") or text
    lines, items = _render(blocks, {_key(x) for x in furniture})
    return Layout(lines=lines, columns=state["columns"], items=items, markers_unmatched=unmatched, last=max((m[3] for m in markers if m[3] < _LETTER), default=0))


def _markers(rows: list[str]) -> list[tuple[int, int, str, int]]:
    """(row, column, text, number) of bare numbers that stand alone on the grid: three blank columns each side, or a row of them."""
    out = []
    for r, row in enumerate(rows):
        for m in _MARKER.finditer(row):
            before, after = row[max(0, m.start() - _MIN_GUTTER) : m.start()], row[m.end() : m.end() + _MIN_GUTTER]
            alone = not before.strip() and not after.strip()
            near = [rows[k][max(0, m.start() - 1) : m.end() + 1] for k in (r - 1, r + 1) if 0 <= k < len(rows)]
            inside = any(x.strip() for x in near)  # a number inside a paragraph ('notificará   5   días'), text above or below it
            value = int(m.group(1)) if m.group(1).isdigit() else _LETTER + ord(m.group(1)) - ord("A") + 1
            if alone and not inside and (m.start() == 0 or len(before) == _MIN_GUTTER) and value > 0:
                out.append((r, m.start(), m.group(1), value))
    return out


def _in_sequence(markers: list[tuple[int, int, str, int]], after: int = 0) -> list[tuple[int, int, str, int]]:
    """The markers whose numbers count up by one (1 2 3 …, 01 02 03 …, A B C …): each run of three or more, or of two that
    continues the page before's (`after`), each number once; a number standing alone elsewhere ('48 a   72' in justified
    text) is not a step."""
    numbers = sorted({n for *_, n in markers})
    keep: set[int] = set()
    run: list[int] = []
    for n in numbers + [-1]:
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if len(run) >= 3 or (after and len(run) >= 2 and run[0] == after + 1):
            keep.update(run)
        run = [n]
    out, seen = [], set()
    for m in sorted(markers):
        if m[3] in keep and m[3] not in seen:
            seen.add(m[3])
            out.append(m)
    return out


def _by_row(markers: list[tuple[int, int, str, int]], blocks: list[Block], taken: set[int]) -> list[tuple[int, int, str, int]]:
    """A row of step numbers over a row of boxes ('1   2   3' above three columns) labels those boxes left to right, wherever
    in its box each number sits; the markers that remain are returned for matching one by one."""
    rest = []
    rows: dict[int, list] = {}
    for m in markers:
        rows.setdefault(m[0], []).append(m)
    for row, ms in sorted(rows.items()):
        if len(ms) < 2:
            rest.extend(ms)
            continue
        below = sorted((b for b in blocks if row <= b.top <= row + 8 and b.order not in taken), key=lambda b: (b.top, b.left))
        tops: list[Block] = []
        for b in below:
            if all(b.right <= t.left or b.left >= t.right for t in tops):
                tops.append(b)
        tops.sort(key=lambda b: b.left)
        if len(tops) == len(ms):
            pairs = list(zip(sorted(ms, key=lambda m: m[1]), tops))
        else:  # more boxes than numbers: each number labels the box under it (nearest horizontally), if one is close
            pairs = []
            for m in sorted(ms, key=lambda m: m[1]):
                used = {p[1].order for p in pairs}
                free = [b for b in tops if b.order not in used]
                near = min(free, key=lambda b: max(0, b.left - m[1], m[1] - b.right) * 100 + abs((b.left + b.right) / 2 - m[1]), default=None)
                if near is not None and max(0, near.left - m[1], m[1] - near.right) <= 15:
                    pairs.append((m, near))
                else:
                    rest.append(m)
        for m, b in pairs:
            b.marker, b.label = m[3], m[2].lstrip("0") or m[2]
            taken.add(b.order)
    return sorted(rest)


def _blank_rows(rows: list[str], r0: int, r1: int, c0: int, c1: int) -> list[bool]:
    return [not rows[r][c0:c1].strip() for r in range(r0, r1)]


def _cut(rows: list[str], r0: int, r1: int, c0: int, c1: int, out: list[Block], state: dict, top_level: bool = False) -> None:
    """Recursive XY cut of rows[r0:r1], columns c0:c1, appending leaf blocks to `out` in reading order."""
    blank = _blank_rows(rows, r0, r1, c0, c1)
    while r0 < r1 and blank[0]:  # trim
        r0, blank = r0 + 1, blank[1:]
    while r1 > r0 and blank[-1]:
        r1, blank = r1 - 1, blank[:-1]
    if r0 >= r1:
        return
    # 1. section breaks: two or more blank rows
    runs = _runs(blank)
    sections = [(a, b) for a, b in runs if b - a >= _SECTION_GAP]
    if sections:
        for a, b in _spans(r0, r1, [(r0 + a, r0 + b) for a, b in sections]):
            if top_level:
                state["section"] += 1
            _cut(rows, a, b, c0, c1, out, state, top_level)
        return
    # 2. gutters: columns blank on every row of the region
    used = [False] * (c1 - c0)
    for r in range(r0, r1):
        for k, ch in enumerate(rows[r][c0:c1]):
            if ch != " ":
                used[k] = True
    left = next((k for k, u in enumerate(used) if u), 0)
    right = len(used) - next((k for k, u in enumerate(reversed(used)) if u), 0)
    gutters = [(c0 + a, c0 + b) for a, b in _runs([not u for u in used[left:right]], offset=left) if b - a >= (_MIN_GUTTER if r1 - r0 >= 3 else 8)]
    if gutters and r1 - r0 >= 3:
        gutters = _solid(rows, r0, r1, c0 + left, c0 + right, gutters)
    if gutters and r1 - r0 >= 3:
        # a gutter parts two columns of prose; a narrow column of labels ('15.10', 'a)') stays with the text it labels, on its right
        parts = _spans(c0 + left, c0 + right, gutters)
        prose_parts = [_prose(rows, r0, r1, a, b) for a, b in parts]
        drop = {k if k < len(gutters) else k - 1 for k, ok in enumerate(prose_parts) if not ok}  # merged with the part on its right
        gutters = [g for k, g in enumerate(gutters) if k not in drop]
    if gutters:
        parts = _spans(c0 + left, c0 + right, gutters)
        prose = sum(_prose(rows, r0, r1, a, b) for a, b in parts)
        if prose * 2 > len(parts) or r1 - r0 < 3:
            state["columns"] = state["columns"] or prose >= 2
            for a, b in parts:
                _cut(rows, r0, r1, a, b, out, state)
            return
        # mostly columns of short cells: a table (or words of justified lines that happen to align): read row by row
    # 3. paragraph breaks: one blank row
    paras = [(a, b) for a, b in runs if b - a >= 1]
    if paras:
        for a, b in _spans(r0, r1, [(r0 + a, r0 + b) for a, b in paras]):
            _cut(rows, a, b, c0, c1, out, state)
        return
    raw = [rows[r][c0 + left : c0 + right].rstrip() for r in range(r0, r1)]
    raw = [ln for ln in raw if ln.strip()]
    if raw:
        lines = [re.sub(r"\s+", " ", ln).strip() for ln in raw]
        out.append(Block(top=r0, bottom=r1 - 1, left=c0 + left, right=c0 + right, lines=lines, widths=[len(ln.strip()) for ln in raw], section=state["section"]))


def _solid(rows: list[str], r0: int, r1: int, lo: int, hi: int, gutters: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop gutters that cut off a part holding text on one row only (a word of a justified line, not a column)."""
    while gutters:
        parts = _spans(lo, hi, gutters)
        thin = next((k for k, (a, b) in enumerate(parts) if sum(bool(rows[r][a:b].strip()) for r in range(r0, r1)) < 2), None)
        if thin is None:
            return gutters
        gutters = gutters[:thin - 1] + gutters[thin:] if thin > 0 else gutters[1:]
    return gutters


def _prose(rows: list[str], r0: int, r1: int, c0: int, c1: int) -> bool:
    """A column of text rather than of table cells: some line of three or more words, or one block of six or more."""
    lines = [rows[r][c0:c1].split() for r in range(r0, r1)]
    return any(len(ws) >= 3 for ws in lines) or sum(len(ws) for ws in lines) >= 6


def _runs(flags: list[bool], offset: int = 0) -> list[tuple[int, int]]:
    """[start, end) of the runs of True."""
    out, start = [], None
    for i, f in enumerate(flags + [False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append((start + offset, i + offset))
            start = None
    return out


def _spans(lo: int, hi: int, gaps: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of [lo, hi) between the gaps."""
    out, at = [], lo
    for a, b in gaps:
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if hi > at:
        out.append((at, hi))
    return out


def _labelled(blocks: list[Block], row: int, col: int, taken: set[int]) -> Block | None:
    """The block a step number labels: starting at or right of it, level with it or just below; nearest first."""
    best, cost = None, None
    for b in blocks:
        if b.order in taken or b.left < col - 4 or b.bottom < row - 1:
            continue
        dy = 0 if b.top - 1 <= row <= b.bottom else b.top - row
        if dy > 4 or b.left - col > 60:
            continue
        c = dy * 8 + (b.left - col)
        if cost is None or c < cost:
            best, cost = b, c
    return best


_END = re.compile(r"[.:;!?)]$")


def _join(lines: list[str]) -> str:
    """One paragraph's grid lines as one line; a word hyphenated at a line end is joined, a phrase set twice across a line
    break ('boleta de pago de' / 'pago de Alquiler') is said once."""
    out = ""
    for ln in lines:
        if out and (k := doubled_at_break(out, ln)):
            ln = ln.split(None, k)[k]
        if out.endswith("-") and ln[:1].islower() and not out.endswith(" -"):
            out = out[:-1] + ln
        else:
            out = f"{out} {ln}" if out else ln
    return out


def _title_split(b: Block) -> tuple[str, list[str]]:
    """The short unpunctuated lines opening a block (its title, set in larger type) and the rest."""
    width = max(b.widths or [len(ln) for ln in b.lines])
    widths = b.widths or [len(ln) for ln in b.lines]
    k = 0
    while k < len(b.lines) - 1 and widths[k] < 0.75 * width and not re.search(r"[.:;!?]$", b.lines[k]) and len(b.lines[k].split()) <= 6:
        k += 1
    return _join(b.lines[:k]), b.lines[k:]


def _sentence(text: str) -> str:
    return text if _END.search(text) or not text else text + "."


_OPEN_END = re.compile(r"\b(?:a|al|con|de|del|e|el|en|la|las|lo|los|o|para|por|que|se|su|sus|u|un|una|y)$", re.IGNORECASE)


def _paragraphs(texts: list[str]) -> list[str]:
    """The paragraphs of one box in order, each closed by a stop; one that ends on an open word ('pagos en') or runs on in
    lower case was a line the box's layout broke, and goes on without one."""
    out: list[str] = []
    for k, text in enumerate(texts):
        nxt = texts[k + 1] if k + 1 < len(texts) else ""
        open_end = _OPEN_END.search(text) or (nxt[:1].islower())
        out.append(text if open_end and nxt else _sentence(text))
    return out


def _short(text: str) -> bool:
    return len(text.split()) <= 8 and not _END.search(text)


def _attach(blocks: list[Block], furniture: set[str]) -> dict[int, list[Block]]:
    """The unnumbered blocks that continue each numbered one: below it in its column (overlapping at least half the narrower
    width), before the next numbered block there, with at most five blank rows between; never a running header or footer."""
    chains: dict[int, list[Block]] = {b.order: [b] for b in blocks if b.marker is not None}
    for b in blocks:
        if b.marker is not None or (b.edge and _key(_join(b.lines)) in furniture):
            continue
        best = None
        for n in blocks:
            if n.marker is None or n.top >= b.top:
                continue
            lo, hi = min(x.left for x in chains[n.order]), max(x.right for x in chains[n.order])
            overlap = min(hi, b.right) - max(lo, b.left)
            if overlap < 0.5 * min(hi - lo, b.right - b.left):
                continue
            if best is None or n.top > best.top:
                best = n
        if best is not None and b.top - max(x.bottom for x in chains[best.order]) <= 6:
            chains[best.order].append(b)
    return chains


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", text.strip().lower()))


def _render(blocks: list[Block], furniture: set[str] = frozenset()) -> tuple[list[str], int]:
    """Lines in reading order: a numbered block opens a list line ('N. Title: body.') with the blocks that continue it."""
    chains = _attach(blocks, furniture)
    attached = {x.order for chain in chains.values() for x in chain[1:]}
    lines: list[str] = []
    for b in blocks:
        if b.order in attached:
            continue
        if b.marker is None:
            lines.extend(_plain(b))
            continue
        whole = _join(b.lines)
        if len(chains[b.order]) > 1 and _short(whole) and not any(re.search(r"[.:;!?]$", ln) for ln in b.lines):
            title, text = whole, ""  # a box's title set apart from its body
        else:
            title, body = _title_split(b)
            text = _join(body)
        rest = _paragraphs(([text] if text else []) + [_join(x.lines) for x in chains[b.order][1:]])
        if title:
            lines.append(f"{b.label}. {title}: {' '.join(rest)}" if rest else f"{b.label}. {title}")
        else:
            lines.append(f"{b.label}. {' '.join(rest)}")
    return lines, len(chains)


def _plain(b: Block) -> list[str]:
    """An unnumbered block: its lines as they are (the text repairs join hyphenated words, find headings and list items), and a
    blank line after it, where the block ends."""
    if len(b.lines) > 1 and len(_join(b.lines).split()) <= 12 and not any(re.search(r"[.,;:!?]$", ln) for ln in b.lines[:-1]):
        return [_join(b.lines), ""]  # a title set on several lines: one line, so that a running header is found whole
    return [*b.lines, ""]
