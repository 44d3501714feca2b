"""Repair of text extracted from PDFs, page by page: page furniture, hyphenation, run-together words, headings, checklists,
stamp and seal debris (`pipeline.loaders.debris`).

Pages whose text cannot be repaired (no text layer, or mostly unreadable) are left out with a warning per page range.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from pipeline.headings import boundary
from pipeline.loaders.debris import drop_debris_pages
from pipeline.loaders.vocabulary import WORD, Vocabulary
from pipeline.text import fold

_LIGATURE = re.compile(r"(?<=\w) ?([\ufb00-\ufb06]) ?(?=\w)|[\ufb00-\ufb06]")
_CID = re.compile(r"\(cid:\d+\)")
_URLISH = re.compile(r"[/@]|\w\.\w|^www", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^(?:p[áa]g(?:ina)?\.?\s*)?[-–—]?\s*(\d{1,4})\s*[-–—]?(?:\s*(?:de|/)\s*\d{1,4})?$", re.IGNORECASE)
_PAGE_OF = re.compile(r"^p[áa]g(?:ina)?\.?\s*\d{1,4}(?:\s*(?:de|/)\s*\d{1,4})?$", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"^0?(\d{1,2})[.)]?$")
_NUMBER_ROW = re.compile(r"^(?:0?\d{1,2}\s+){1,}0?\d{1,2}$")  # '1 2 3': markers of a layout in columns
_FIELD = re.compile(r"^[^:]{1,30}:\s")
_ITEM = re.compile(r"^(?:[-•*▪●]|\d{1,3}[.)]|[a-zA-Z][.)])\s+")
_ICON = re.compile(r"[\ue000-\uf8ff\U000f0000-\U0010ffff\u2600-\u27bf\u2b00-\u2bff\U0001f300-\U0001faff\ufe0f]")  # private-use, dingbat and emoji glyphs: icons of a designed page
_LONE_SYMBOL = re.compile(r"^[^\w\s(\[¿¡\"'«“]$|^[\u0370-\u03ff]$")  # a line that is one symbol or one Greek letter ('!', '$', 'Ο'): an icon's glyph
_FILE_NAME = re.compile(r"^\S*_\S*$")  # 'Solvencia_#carné': the file name that closes a box of a checklist
_EDGE = 5  # running headers and footers sit in the first or last lines of a page
UNREADABLE_SHARE = 0.5  # a page where more than half the words are not words cannot be repaired


@dataclass
class RepairedText:
    """Repaired page texts ('' for a page left out), warnings for the operator, and what was repaired."""

    pages: list[str]
    warnings: list[str] = field(default_factory=list)
    stats: Counter = field(default_factory=Counter)


def repair_pages(pages: list[str], *, name: str = "document", pictured: set[int] | frozenset[int] = frozenset()) -> RepairedText:
    """Repair the text of each page of one PDF (or of a PDF converted to text).

    `pictured`: indexes of pages that hold images; one of them without text is a scan (warned), any other empty page is blank.
    """
    lines = [_page_lines(p) for p in pages]
    vocab = Vocabulary("\n".join("\n".join(p) for p in lines))
    stats: Counter = Counter()
    unreadable = [i for i, p in enumerate(lines) if _unreadable(p, vocab)]
    for i in unreadable:
        lines[i] = []
    _drop_furniture(lines, stats)
    scrambled = []
    out = []
    for i, page in enumerate(lines):
        page, in_columns = _checklists(page, stats)
        if in_columns:
            scrambled.append(i)
        page = _join_hyphens(page, vocab, stats)
        page = _undouble(page, stats)
        page = [_split_words(ln, vocab, stats) for ln in page]
        page = _boxes(page, stats)
        page = _headings(page, stats)
        out.append("\n".join(page))
    out, stats["seal_debris"] = drop_debris_pages(out)
    warnings = []
    empty = [i for i, p in enumerate(pages) if not p.strip()]
    stats["pages_blank"] = sum(1 for i in empty if i not in pictured)
    garbled = [i for i in unreadable if i not in empty]
    empty = [i for i in empty if i in pictured]
    total = len(pages)
    for rng in _ranges(empty):
        warnings.append(f"{name}: {_pages(rng)} of {total}: no text layer (scanned images need OCR first); left out")
        stats["pages_scanned"] += rng[1] - rng[0] + 1
    for rng in _ranges(garbled):
        warnings.append(f"{name}: {_pages(rng)} of {total}: unreadable text (a font without a usable encoding); left out")
        stats["pages_garbled"] += rng[1] - rng[0] + 1
    for rng in _ranges(scrambled):
        warnings.append(f"{name}: {_pages(rng)} of {total}: laid out in columns; numbered steps there could not be matched to their text")
    return RepairedText(pages=out, warnings=warnings, stats=stats)


def _page_lines(page: str) -> list[str]:
    """Stripped lines; a run of blank lines (a paragraph break) kept as one ''."""
    out: list[str] = []
    for ln in _normalise(page).splitlines():
        ln = ln.strip()
        if _LONE_SYMBOL.match(ln):
            continue  # an icon's glyph on a line of its own
        if ln or (out and out[-1]):
            out.append(ln)
    return out[:-1] if out and not out[-1] else out


def _normalise(text: str) -> str:
    text = text.replace("\u00ad", "").replace("\ufffd", " ")
    text = _LIGATURE.sub(lambda m: unicodedata.normalize("NFKC", m.group(1) or m.group(0)), text)
    text = _CID.sub(" ", text)
    text = _ICON.sub(" ", text)
    return re.sub(r"[ \t]+", " ", text)


def _unreadable(lines: list[str], vocab: Vocabulary) -> bool:
    """No text, or mostly strings that are not words (a font without a usable encoding)."""
    text = " ".join(lines)
    if not text.strip():
        return True
    letters = sum(c.isalpha() for c in text)
    odd = sum(1 for c in text if not (c.isalnum() or c.isspace() or c in ".,;:¿?¡!()[]{}\"'«»“”‘’-–—/\\_#@%&$*+=<>|°º·…"))
    if odd > 0.3 * max(1, len(text.replace(" ", ""))):
        return True
    words = [w for w in WORD.findall(text) if len(w) >= 3]
    if len(words) < 8:
        return letters == 0 and len(text) > 20
    bad = sum(1 for w in words if not vocab.known(w) and not vocab.split(w) and not w.isupper() and not vocab.inflected(w))
    return bad / len(words) > UNREADABLE_SHARE


def _drop_furniture(pages: list[list[str]], stats: Counter) -> None:
    """Running headers and footers (kept once, where first seen) and page numbers, in place."""
    if len(pages) < 3:
        return
    edge = lambda p: {p[j] for j in _edge_indexes(p)}  # noqa: E731
    key = lambda ln: re.sub(r"\d+", "#", fold(ln))  # noqa: E731  ('Página 3' and 'Página 4' are one header)
    on: dict[str, set[int]] = {}
    for i, p in enumerate(pages):
        for k in {key(ln) for ln in edge(p) if _header_like(ln)}:
            on.setdefault(k, set()).add(i)
    seen = Counter({k: len(v) for k, v in on.items() if any(i + 1 in v or i + 2 in v for i in v)})  # running: on pages in a row
    repeated = {
        k
        for k, n in seen.items()
        if n >= 3 and len(k.split()) <= 20 and not k.endswith((".", ",", ";")) and not _ITEM.match(k) and not re.fullmatch(r"#[.)]?", k)
    }
    numbers = _page_number_lines(pages)
    kept: set[str] = set()
    for i, page in enumerate(pages):
        keep = []
        edges = _edge_indexes(page)
        for j, ln in enumerate(page):
            at_edge = j in edges
            if at_edge and (i, j) in numbers:
                stats["page_numbers"] += 1
                continue
            k = key(ln)
            if at_edge and k in repeated:
                if k in kept or _PAGE_OF.match(ln) or re.fullmatch(r"[#\s./-]*", k):
                    stats["furniture"] += 1
                    continue
                kept.add(k)
            keep.append(ln)
        page[:] = [ln for k, ln in enumerate(keep) if ln or (0 < k < len(keep) - 1 and keep[k - 1])]


def _header_like(line: str) -> bool:
    """A line that can be a running header or footer: not a chapter or article heading, not a sentence's middle."""
    return bool(line) and not line[:1].islower() and not line.startswith("(") and boundary(line) not in ("chapter", "article", "faq")


def _edge_indexes(page: list[str], n: int = _EDGE) -> set[int]:
    """Indexes of the first and last `n` non-empty lines of a page."""
    full = [j for j, ln in enumerate(page) if ln]
    return set(full[:n] + full[-n:])


def _page_number_lines(pages: list[list[str]]) -> set[tuple[int, int]]:
    """(page, line) of page numbers: a number at a page's top or bottom that counts up with the pages."""
    found: dict[int, list[tuple[int, int]]] = {}  # offset (number - page index) -> places
    for i, page in enumerate(pages):
        for j in sorted(_edge_indexes(page, 2)):
            m = _PAGE_NUMBER.match(page[j])
            if m:
                found.setdefault(int(m.group(1)) - i, []).append((i, j))
    out: set[tuple[int, int]] = set()
    for places in found.values():
        if len({i for i, _ in places}) >= max(2, len(pages) // 3):
            out.update(places)
    for i, page in enumerate(pages):  # 'Página 3 de 12' is a page number wherever it sits
        out.update((i, j) for j, ln in enumerate(page) if _PAGE_OF.match(ln))
    return out


def _checklists(page: list[str], stats: Counter) -> tuple[list[str], bool]:
    """Numbered items: a bare number line opens the item that follows it; '1 A 2 B 3 C' on one line is split.

    Also says whether the page had rows of bare numbers (a layout in columns), which are dropped."""
    out: list[str] = []
    in_columns = False
    expect = None
    numbers = [int(m.group(1)) for ln in page if (m := _BARE_NUMBER.match(ln))]
    counting = len(numbers) >= 2 and sum(b == a + 1 for a, b in zip(numbers, numbers[1:])) >= len(numbers) // 2
    if counting and _misplaced(page):  # step numbers printed apart from their boxes: left out rather than given to the wrong box
        stats["step_numbers_dropped"] += len(numbers)
        return _unnumbered(page), True
    i = 0
    while i < len(page):
        ln = page[i]
        if _NUMBER_ROW.match(ln) or (_BARE_NUMBER.match(ln) and i + 2 < len(page) and _BARE_NUMBER.match(page[i + 1]) and _BARE_NUMBER.match(page[i + 2])):
            run = i
            while run < len(page) and (_NUMBER_ROW.match(page[run]) or _BARE_NUMBER.match(page[run])):
                run += 1
            stats["number_runs_dropped"] += run - i
            in_columns = True
            i = run
            continue
        m = _BARE_NUMBER.match(ln)
        if m and counting and i + 1 < len(page) and page[i + 1][:1].isupper() and not _BARE_NUMBER.match(page[i + 1]):
            n = int(m.group(1))
            if expect is None or n == expect or n == 1:
                out.append(f"{n}. {page[i + 1]}")
                stats["items_restored"] += 1
                expect = n + 1
                i += 2
                continue
        split = _inline_items(ln)
        if split:
            out.extend(split)
            stats["items_restored"] += len(split)
        else:
            out.append(ln)
        i += 1
    return out, in_columns


def _unnumbered(page: list[str]) -> list[str]:
    """A page's boxes as items without their (misplaced) step numbers: a number before a box title marks an item, any other is dropped."""
    out: list[str] = []
    skip = False
    for i, ln in enumerate(page):
        if skip:
            skip = False
            continue
        if not _BARE_NUMBER.match(ln):
            out.append(ln)
            continue
        nxt = page[i + 1] if i + 1 < len(page) else ""
        if nxt and not _cannot_open(nxt) and not _BARE_NUMBER.match(nxt):
            out.append(f"- {nxt}")
            skip = True
    return out


def _cannot_open(line: str) -> bool:
    """A line that cannot open a numbered step: a lone letter, lower case or a web address first, a running title in capitals."""
    words = line.split()
    return len(line.strip()) <= 2 or line[:1].islower() or bool(words and _URLISH.search(words[0])) or (len(words) >= 3 and line.isupper())


def _misplaced(page: list[str]) -> bool:
    """Whether a page's step numbers sit apart from the boxes they number (text converted from a page laid out in boxes):
    one of them is followed by what cannot open a step: a lone letter, a line that goes on in lower case or with a
    web address, or a running title in capitals."""
    for i, ln in enumerate(page):
        if not _BARE_NUMBER.match(ln) or i + 1 >= len(page) or _BARE_NUMBER.match(page[i + 1]) or _NUMBER_ROW.match(page[i + 1]):
            continue
        if _cannot_open(page[i + 1]):
            return True
    return False


_INLINE_NUMBER = re.compile(r"(?:(?<=\s)|^)(\d{1,2})[.)]?\s+(?=[A-ZÁÉÍÓÚÑ¿])")


def _inline_items(line: str) -> list[str] | None:
    """'1 Constancia de inscripción 2 Solvencia general 3 Pago' -> three items (three or more numbers counting up from 1)."""
    marks = [(m.start(), m.end(), int(m.group(1))) for m in _INLINE_NUMBER.finditer(line)]
    run: list[tuple[int, int, int]] = []
    for mark in marks:
        if mark[2] == (run[-1][2] + 1 if run else 1):
            run.append(mark)
        elif mark[2] == 1:
            run = [mark]
    if len(run) < 3 or run[0][0] > 0 and not re.search(r"[:.]\s*$", line[: run[0][0]]):
        return None
    head = line[: run[0][0]].strip()
    items = [f"{n}. {line[end : (run[k + 1][0] if k + 1 < len(run) else len(line))].strip()}" for k, (_, end, n) in enumerate(run)]
    return ([head] if head else []) + items


def _join_hyphens(page: list[str], vocab: Vocabulary, stats: Counter) -> list[str]:
    """A word hyphenated across a line break is joined ('inscrip-' + 'ción'); a compound keeps its hyphen."""
    out: list[str] = []
    for ln in page:
        prev = out[-1] if out else ""
        m = re.search(r"(\S*?)([A-Za-zÁÉÍÓÚáéíóúñÑ]+) ?-$", prev)
        n = re.match(r"([A-Za-zÁÉÍÓÚáéíóúñÑ]+)(\S*)", ln)
        if m and n and not _ITEM.match(ln):
            left, right = m.group(2), n.group(1)
            joined = left + right
            urlish = _URLISH.search(m.group(1) + left) or _URLISH.search(n.group(2))
            if urlish:
                keep_hyphen = True
            elif vocab.known(joined):
                keep_hyphen = False
            else:
                keep_hyphen = right[:1].isupper() or (vocab.known(left) and vocab.known(right) and len(left) > 3)
            out[-1] = prev[: m.start(2)] + left + ("-" if keep_hyphen else "") + ln
            stats["hyphens_joined"] += 1
            continue
        out.append(ln)
    return out


def doubled_at_break(left: str, right: str) -> int:
    """How many words opening `right` repeat the words closing `left`, a phrase the layout set twice across a line break
    ('boleta de pago de' / 'pago de Alquiler'): 0 when none. Only whole words of letters, one of them of four letters or
    more ('de' / 'de' may be meant)."""
    lw, rw = left.split(), right.split()
    for k in (3, 2, 1):
        if len(lw) < k or len(rw) <= k:
            continue
        tail, head = lw[-k:], rw[:k]
        if all(w.isalpha() for w in tail + head) and [fold(w) for w in tail] == [fold(w) for w in head] and any(len(w) >= 4 for w in tail):
            return k
    return 0


def _undouble(page: list[str], stats: Counter) -> list[str]:
    """A phrase said twice across a line break is said once ('de pago de' / 'pago de Alquiler' -> 'de pago de' / 'Alquiler')."""
    out: list[str] = []
    for ln in page:
        k = doubled_at_break(out[-1], ln) if out and out[-1] and not _ITEM.match(ln) else 0
        if k:
            ln = ln.split(None, k)[k]
            stats["doubled_words"] += 1
        out.append(ln)
    return out


def _box_title(page: list[str], i: int) -> int:
    """How many lines from `i` are a checklist box's title (0 when none): one to three short lines without a stop, set apart
    from the body that follows, which opens with the same words ('Solvencia' / 'General' / 'Solvencia general (Matrícula…')
    or follows a step marker ('- ', see _unnumbered) or the file name that closes the box before ('…_#carné')."""
    for k in (1, 2, 3):
        lines = [re.sub(r"^- ", "", ln) for ln in page[i : i + k]]
        if i + k >= len(page) or not all(lines) or any(len(ln.split()) > 4 or re.search(r"[.,;:!?)]$", ln) or _ITEM.match(ln) or _URLISH.search(ln) or _FILE_NAME.match(ln) for ln in lines):
            return 0
        title = " ".join(lines).split()
        body = page[i + k]
        if not (2 <= len(title) <= 7 and title[0][:1].isupper()) or not body or body.startswith("#"):
            continue
        opens = [fold(w) for w in body.split()[: len(title)]] == [fold(w) for w in title]
        marked = page[i].startswith("- ") or i > 0 and bool(_FILE_NAME.match(page[i - 1]))  # a box's (misplaced) step number, or the box before closed
        after_box = marked and not _ITEM.match(body) and not opens
        if opens and len(body.split()) >= len(title) or after_box and body[:1].isupper() and len(body.split()) >= 4 and not _box_title(page, i + k):
            return k
    return 0


def _boxes(page: list[str], stats: Counter) -> list[str]:
    """Checklist boxes: each box's title becomes a heading and its body a list item, rather than one run-on text
    ('Constancia de Inscripción Constancia de Inscripción del ciclo … Nombre del archivo: Constancia_#carné Solvencia
    General …'). A lone letter before a title (an icon) is dropped."""
    out: list[str] = []
    i = 0
    while i < len(page):
        k = _box_title(page, i)
        if not k:
            out.append(page[i])
            i += 1
            continue
        if out and re.fullmatch(r"[A-Z]", out[-1]):
            out.pop()
        out += [f"## {' '.join(re.sub(r'^- ', '', ln) for ln in page[i : i + k])}", f"- {page[i + k]}"]
        stats["box_titles"] += 1
        i += k + 1
    return out


def _split_words(line: str, vocab: Vocabulary, stats: Counter) -> str:
    """Run-together words separated ('deinscripción' -> 'de inscripción'); inside a file name, joined as CamelCase."""

    def fix(chunk: re.Match) -> str:
        token = chunk.group(0)
        if _URLISH.search(token):
            return token
        ident = "_" in token or "#" in token

        def word(m: re.Match) -> str:
            w = m.group(0)
            if any(c.isupper() for c in w[1:]):  # CamelCase is written that way on purpose, except two words glued at a box edge
                glued = _GLUED.fullmatch(w)
                if glued and not ident and not vocab.known(w) and all(vocab.common(g) or vocab.known(g) for g in glued.groups()):
                    stats["words_split"] += 1
                    return f"{glued.group(1)} {glued.group(2)}"
                return w
            parts = vocab.split(w)
            if not parts:
                return w
            stats["words_split"] += 1
            return "".join(p[:1].upper() + p[1:] for p in parts) if ident else " ".join(parts)

        return WORD.sub(word, token)

    return re.sub(r"\S+", fix, line)


_GLUED = re.compile(r"([A-ZÁÉÍÓÚÑ]?[a-záéíóúñ]{3,})([A-ZÁÉÍÓÚÑ][a-záéíóúñ]{3,})")  # 'ExamenGeneral': the last word of one line glued to the next's first


_OPEN_ENDS = frozenset("a al con de del e el en la las lo los o para por que se su sus u un una y".split())  # a wrapped line, not a title


def _headings(page: list[str], stats: Counter) -> list[str]:
    """A short title line between a finished sentence and the text it heads becomes a Markdown heading."""
    out: list[str] = []
    for i, ln in enumerate(page):
        prev = out[-1] if out else ""
        nxt = page[i + 1] if i + 1 < len(page) else ""
        words = ln.split()
        title = (
            boundary(ln) is None  # articles, chapters and lines in capitals are headings already
            and 1 <= len(words) <= 8
            and len(ln) <= 70
            and ln[:1].isupper()
            and not re.search(r"[.,;:)]$", ln)
            and not _ITEM.match(ln)
            and not _FIELD.match(ln)
            and not re.search(r"\d{3,}|[#_@/]", ln)
            and sum(w[:1].isupper() for w in words if len(w) > 3) * 2 >= sum(len(w) > 3 for w in words) > 0
            and fold(words[-1]) not in _OPEN_ENDS
        )
        opens = not prev or prev.startswith("#") or re.search(r"[.!?]$", prev)
        if title and opens and nxt[:1].isupper() and len(nxt.split()) >= 4 and not nxt.startswith("#"):
            out.append(f"## {ln}")
            stats["headings"] += 1
            continue
        inline = _inline_heading(ln) if opens else None
        if inline:
            out.extend([f"## {inline[0]}", inline[1]])
            stats["headings"] += 1
            continue
        out.append(ln)
    return out


_INLINE_HEADING = re.compile(r"^([A-ZÁÉÍÓÚÑ][a-záéíóúñ]+(?: (?:de|del|la|las|los|y|e) [a-záéíóúñA-ZÁÉÍÓÚÑ]+)?) ((?:La|El|Las|Los|Se|Para|Cada|Todo|Toda|Todos|En|Los|Un|Una) [a-záéíóúñ].{20,})$")


def _inline_heading(line: str) -> tuple[str, str] | None:
    """'Plazos La renovación se pide…' -> ('Plazos', 'La renovación se pide…'): a one-word title run into its first sentence."""
    m = _INLINE_HEADING.match(line)
    if not m or fold(m.group(1)) in {"articulo", "capitulo", "inciso", "seccion"}:
        return None
    return m.group(1), m.group(2)


def _ranges(indexes: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in sorted(indexes):
        if out and i == out[-1][1] + 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def _pages(rng: tuple[int, int]) -> str:
    a, b = rng[0] + 1, rng[1] + 1
    return f"page {a}" if a == b else f"pages {a}-{b}"
