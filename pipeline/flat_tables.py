"""Tables that PDF text extraction flattened into one cell per line, read back as rows.

A two-column table under a lead-in ('… un máximo de créditos, dependiendo la siguiente tabla:') often comes out of a PDF
column by column: the first column's header and labels, then the second's header and values, each on a line of its own
('PROMEDIO', 'Promedio ≤70', '71 a 85', '86 a 100', 'CRÉDITOS CLAR (MÁXIMOS)', '32', '37', '42'). Read as prose it is a
run of stray numbers; read back, it is one row per label ('Promedio ≤70 | 32'), written as a Markdown table so the unit
extraction makes table rows of it.
"""

from __future__ import annotations

import re

from pipeline.headings import heading_case
from pipeline.loaders.vocabulary import WORD, Vocabulary
from pipeline.text import fold

MAX_ROWS = 12  # a longer run of values is not read as one table's column
MAX_CELL_WORDS = 6  # a longer line is prose, not a cell
_VALUE = re.compile(r"^(?:Q\.?\s?)?\d{1,6}(?:[.,]\d{1,2})?\s*%?$")  # '32', 'Q.250.00', '15 %'
_LEAD = re.compile(r":\s*$")
_SENTENCE_END = re.compile(r"[.;!?]$")
_ITEM = re.compile(r"^(?:[-•*▪●]|\d{1,3}[.)]|[a-zA-Z][.)])\s+")
_MEASURE = re.compile(r"\b(?:m[aá]ximo|m[ií]nimo|n[uú]mero|cantidad|total) de ([a-záéíóúñ]{4,})\b", re.IGNORECASE)  # '… un máximo de créditos, …'


def _cell(line: str) -> bool:
    return 0 < len(line.split()) <= MAX_CELL_WORDS and not _SENTENCE_END.search(line) and not _LEAD.search(line) and not _ITEM.match(line) and "|" not in line


def _stamp(word: str, vocab: Vocabulary) -> bool:
    """A seal's or watermark's letters ('ISTISEIVIND', 'COA'): an upper-case token the dictionary does not know."""
    return word.isupper() and len(word) >= 3 and not vocab.known(word)


def _clean_cell(line: str, vocab: Vocabulary) -> str:
    """The cell without the stamp letters run into it ('70≤ promedio <75 ISTISEIVIND' → '70≤ promedio <75')."""
    kept = " ".join(w for w in line.split() if not (WORD.fullmatch(w) and _stamp(w, vocab)))
    return re.sub(r"\s*([≤≥<>])\s*", r" \1 ", kept).strip()  # "70≤ promedio <75" → "70 ≤ promedio < 75"


_HOMOGLYPHS = str.maketrans("ΑΒΕΗΙΚΜΝΟΡΤΧΥΖοаеорсхі", "ABEHIKMNOPTXYZoaeopcxi")  # Greek and Cyrillic letters a PDF set for Latin ones ('PROMEDIΟ')


def _header(line: str, vocab: Vocabulary) -> str:
    """A column header when it reads as words ('CRÉDITOS CLAR (MÁXIMOS)'); '' for a stamp or a cut word ('COA', 'éditos')."""
    words = WORD.findall(line)
    long = [w for w in words if len(w) >= 4]
    if not long or any(not vocab.known(w) for w in long) or not vocab.known(long[0]):
        return ""
    text = line.strip()
    return heading_case(text) if text.isupper() and len(words) > 1 else text[:1] + text[1:].lower() if text.isupper() else text


def _read_table(lead: str, block: list[str], vocab: Vocabulary) -> tuple[list[str], list[tuple[str, str, int]], int] | None:
    """(header, rows as (label, value, index of the label's line), lines used) of a column-flattened two-column table at
    the start of `block`, or None."""
    start = next((i for i, line in enumerate(block) if _VALUE.match(line)), None)
    if start is None:
        return None
    end = start
    while end < len(block) and _VALUE.match(block[end]):
        end += 1
    values = block[start:end]
    before = block[:start]
    labels = [i for i, line in enumerate(before) if re.search(r"\d", line)]
    if not 2 <= len(values) <= MAX_ROWS or len(labels) != len(values):
        return None  # one label per value: anything else is not this shape
    others = [_header(line, vocab) for i, line in enumerate(before) if i not in labels]
    label_name = _header(before[0], vocab) if labels[0] > 0 else ""
    named = [n for n in others if n and n != label_name]
    value_name = named[0] if named else ""
    if (m := _MEASURE.search(lead)) is not None:  # the lead-in names what the values count ('un máximo de créditos')
        measure = m.group(1).lower()
        value_name = next((n for n in named if fold(measure) in fold(n)), measure.capitalize())
    rows = []
    for i, value in zip(labels, values, strict=True):
        label = _clean_cell(before[i], vocab)
        if label_name and fold(label_name) not in fold(label):
            label = f"{label_name} {label}"
        rows.append((label[:1].upper() + label[1:], value, i))
    used = end
    while used < len(block) and all(_stamp(w, vocab) for w in block[used].split()):
        used += 1  # a stamp's letters left after the values
    return [label_name or "col0", value_name or "col1"], rows, used


def rebuild_tables(lines: list[tuple[str, int]], vocab: Vocabulary | None = None) -> list[tuple[str, int]]:
    """The (line, offset) pairs with every column-flattened table after a lead-in rewritten as Markdown table rows (each
    row keeps the offset of its label's line); other lines unchanged."""
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(lines):
        line, at = lines[i]
        out.append((line, at))
        i += 1
        if not _LEAD.search(line.strip()) or i >= len(lines) or not _cell(lines[i][0].strip()):
            continue
        j = i
        while j < len(lines) and j - i < 3 * MAX_ROWS and _cell(lines[j][0].strip()):
            j += 1
        block = [x.strip().translate(_HOMOGLYPHS) for x, _ in lines[i:j]]
        vocab = vocab or Vocabulary()
        lead = [line]
        for prev, _ in reversed(out[max(0, len(out) - 4) : -1]):
            if not prev.strip() or _SENTENCE_END.search(prev.strip()):
                break
            lead.insert(0, prev)
        found = _read_table(" ".join(x.strip() for x in lead), block, vocab)  # the lead-in's sentence, over the lines it wraps
        if found is None:
            continue
        header, rows, used = found
        out.append((f"| {' | '.join(header)} |", lines[i][1]))
        for label, value, k in rows:
            out.append((f"| {label} | {value} |", lines[i + k][1]))
        out.append(("", lines[i + used - 1][1]))  # the table ends here
        i += used
    return out
