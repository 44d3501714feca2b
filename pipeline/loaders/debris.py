"""Stamp and seal debris in text extracted from PDFs: short upper-case strings that are no word of the document.

A rubber stamp or seal printed over a page comes out of text extraction as a line of a few capital letters ('SISETENE',
'CETF', 'POTERASS', 'ISC ACA') between body lines, or glued to a sentence's end ('inmediata superior. INI'). Such a
string is debris when none of its tokens is a word the document itself uses elsewhere: not an acronym its sentences
use ('EPS', 'USAC'), not a word it writes in lower case ('TESIS' → 'tesis'), and not a long common Spanish word
('CONSIDERANDO', 'ACUERDA'). Chapter, article and Markdown headings are never debris (an upper-case line counts as a heading only by its letters). Dictionary look-ups alone cannot
tell: wordfreq's list holds most short letter strings ('cet', 'emi', 'orbe'), so the document's own usage decides.
"""

from __future__ import annotations

import re
from collections import Counter

from pipeline.headings import boundary
from pipeline.loaders.vocabulary import SHORT_WORDS, WORD, Vocabulary
from pipeline.text import fold

MAX_TOKENS = 3  # a stamp leaves one to three strings on a line
MAX_LETTERS = 8  # each short: longer upper-case strings are headings or names
_WORD_ZIPF = 3.5  # a token this common in Spanish (and of five letters or more) is a word, e.g. 'ACUERDA'
_WORD_LETTERS = 5  # shorter strings are too often in the list by chance ('cet', 'emi', 'mia')
_CAPS = re.compile(r"^[A-ZÁÉÍÓÚÜÑ]{2,%d}$" % MAX_LETTERS)
_TRAILING = re.compile(r"(?<=[.;])\s+([A-ZÁÉÍÓÚÜÑ]{3,%d})$" % MAX_LETTERS)  # not after ':' (an 'EI' read for 'El' opens a sentence)


class _Usage:
    """Which upper-case tokens the document uses as words: in a line with lower-case text, or written in lower case."""

    def __init__(self, lines: list[str]) -> None:
        self.in_text: Counter = Counter()
        self.lower: Counter = Counter()
        for ln in lines:
            words = WORD.findall(ln)
            if any(w.islower() for w in words):
                self.in_text.update(w for w in words if w.isupper())
            self.lower.update(fold(w) for w in words if not w.isupper())
        self.base = Vocabulary().base

    def word(self, token: str, *, glued: bool = False) -> bool:
        """True when `token` is a word of the document (its own use of it in a sentence is not counted when `glued`)."""
        f = fold(token)
        return (self.in_text[token] > int(glued)) or self.lower[f] > 0 or (len(token) >= _WORD_LETTERS and self.base.get(f, 0.0) >= _WORD_ZIPF)


def _debris_line(line: str, usage: _Usage) -> bool:
    tokens = line.split()
    return (0 < len(tokens) <= MAX_TOKENS and all(_CAPS.match(t) for t in tokens) and boundary(line) in (None, "caps")
            and not any(usage.word(t) for t in tokens))


def _continues(previous: str) -> bool:
    """A line ending in a function word ('Tesis o', 'la carrera de'): the next line goes on with its sentence."""
    words = previous.split()
    return bool(words) and fold(words[-1]) in SHORT_WORDS


def clean_lines(lines: list[str], usage: _Usage) -> tuple[list[str], int]:
    """`lines` without seal debris (whole lines, and a token glued after a sentence's end); returns how many were cut."""
    out, cut = [], 0
    for ln in lines:
        s = ln.strip()
        if s and _debris_line(s, usage) and not (out and _continues(out[-1])):
            cut += 1
            if out and out[-1].rstrip().endswith((".", ";", ":")):
                out.append("")  # between two paragraphs the stamp stood where a break was: the break stays
            continue
        m = _TRAILING.search(ln.rstrip())
        if m and not usage.word(m.group(1), glued=True):
            ln = ln.rstrip()[: m.start()]
            cut += 1
        out.append(ln)
    out = [ln for i, ln in enumerate(out) if ln.strip() or not (i and not out[i - 1].strip())]  # one blank line for a run
    return out, cut


def drop_debris(text: str) -> tuple[str, int]:
    """The text without seal debris; returns the text and how many debris strings were cut."""
    lines = text.split("\n")
    out, cut = clean_lines(lines, _Usage(lines))
    return ("\n".join(out), cut) if cut else (text, 0)


def drop_debris_pages(pages: list[str]) -> tuple[list[str], int]:
    """Each page without seal debris, judged by the whole document's usage; returns the pages and how many were cut."""
    split = [p.split("\n") for p in pages]
    usage = _Usage([ln for p in split for ln in p])
    out, total = [], 0
    for p in split:
        kept, cut = clean_lines(p, usage)
        out.append("\n".join(kept))
        total += cut
    return out, total
