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


# -- inside a line ---------------------------------------------------------------------------------------------------
# A watermark printed across the text also leaves its letters inside body lines, at a line's start or end ('SPICUA CARO
# profesionales y de', 'a. En los cursos o asio Sodran AROLIN', 'Del procedin: CUA CAROLI') or glued to a word
# ('evaluaOCTA-CAROLIN'). Such letters are told from acronyms and names by the stamp's own letters: the document's whole
# debris lines (above) name them ('NSPICO', 'CUA CAROLI'), and a capitals token that shares four letters in a row with one
# of those, and is no word of the document, is the same stamp. Next to it, tokens the document uses nowhere else and that
# are no common Spanish word ('Sodran', 'asio') are the stamp's letters read in lower case.
_STAMP_OVERLAP = 4  # letters in a row a token must share with the stamp's known letters
_FOREIGN_ZIPF = 3.0  # a lower-case neighbour this common in Spanish is a word, not stamp letters
_GLUED = re.compile(r"^([a-záéíóúüñ]{3,})([A-ZÁÉÍÓÚÜÑ][A-ZÁÉÍÓÚÜÑ-]{3,})([.,;:]?)$")  # 'evaluaOCTA-CAROLIN'
_GLUED_BEFORE = re.compile(r"^([A-ZÁÉÍÓÚÜÑ]{4,})([a-záéíóúüñ]{2,}[.,;:]?)$")  # 'ONSPICIpor la actualización'
_EDGE_PUNCT = ".,;:"


def stamp_letters(lines: list[str], usage: _Usage) -> set[str]:
    """The stamp's letters as the document's whole debris lines show them (folded, each token of such a line)."""
    return {fold(t) for ln in lines if (s := ln.strip()) and _debris_line(s, usage) for t in s.split() if len(t) >= _STAMP_OVERLAP - 1}


def _shares(token: str, letters: set[str]) -> bool:
    f = fold(token)
    if len(f) < _STAMP_OVERLAP:
        return any(f in s for s in letters)
    grams = {f[i : i + _STAMP_OVERLAP] for i in range(len(f) - _STAMP_OVERLAP + 1)}
    return any(g in s for s in letters if len(s) >= _STAMP_OVERLAP for g in grams)


class StampFilter:
    """Cuts a watermark's letters out of a document's lines (whole debris lines, and letters at a line's edges or glued to a word)."""

    def __init__(self, lines: list[str]) -> None:
        self.usage = _Usage(lines)
        self.letters = stamp_letters(lines, self.usage)

    def stamp(self, token: str) -> bool:
        """A capitals token made of the stamp's letters that the document does not use as a word."""
        t = token.strip(_EDGE_PUNCT)
        return bool(self.letters) and len(t) >= 3 and t.isalpha() and t.isupper() and not self.usage.word(t, glued=True) and _shares(t, self.letters)

    def foreign(self, token: str) -> bool:
        """A token the document says only here and Spanish does not commonly use ('Sodran', 'asio')."""
        t = token.strip(_EDGE_PUNCT)
        if not t.isalpha() or len(t) < 3:
            return False
        f = fold(t)
        return self.usage.lower[f] + self.usage.in_text[t] <= 1 and self.usage.base.get(f, 0.0) < _FOREIGN_ZIPF

    def _edge(self, words: list[str]) -> int:
        """How many of `words` (read from the edge inwards) are stamp letters: the run of stamp and foreign tokens at the
        edge, when it holds a stamp token (a foreign token with a closing stop or colon is sentence text: it ends the run)."""
        n, anchored = 0, False
        for w in words:
            if self.stamp(w):
                n, anchored = n + 1, True
            elif self.foreign(w) and not w.endswith(tuple(_EDGE_PUNCT)):
                n += 1
            else:
                break
        return n if anchored else 0

    def line(self, line: str) -> str | None:
        """The line without stamp letters; None when the whole line is debris."""
        s = line.strip()
        if not s or not self.letters:
            return line
        if _debris_line(s, self.usage):
            return None
        words = s.split()
        m = _GLUED.match(words[-1])
        if m and _shares(m.group(2).replace("-", ""), self.letters) and not self.usage.word(m.group(2).split("-")[0], glued=True):
            words[-1] = m.group(1) + m.group(3)
        m = _GLUED_BEFORE.match(words[0])
        if m and _shares(m.group(1), self.letters) and not self.usage.word(m.group(1), glued=True):
            words[0] = m.group(2)
        tail = self._edge(words[::-1])
        if tail >= len(words):
            return None  # the whole line is the stamp's letters
        if tail:
            words = words[: len(words) - tail]
        head = self._edge(words)
        if head and head < len(words):
            words = words[head:]
        out = " ".join(words)
        if out == s:
            return line
        if not any(ch.islower() for ch in out):
            return None  # what is left of a line of stamp letters ('CAROLINA' of 'ORBIS CONSPICUA CAROLINA ACADEM', 'A' of 'A ACA')
        end = line[len(line.rstrip("\r\n")) :]
        return out + end


def echo_line(line: str, previous: str) -> bool:
    """A short line that repeats the end or middle of the line before it ('… en un examen dado.' / 'n un examen dado.'): text
    extraction read a watermarked passage twice."""
    s = line.strip()
    return 2 <= len(s.split()) <= 4 and len(s) >= 10 and not s.startswith("|") and s in previous and s != previous.strip()


def without_stamps(lines: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A document's (line, offset) pairs without a watermark's letters (StampFilter) and the short lines it made text
    extraction read twice (echo_line); a document without whole debris lines is returned as it is. A dropped debris line
    after a sentence's end leaves a blank line (the break it stood in), elsewhere nothing (the sentence goes on)."""
    f = StampFilter([raw for raw, _ in lines])
    if not f.letters:
        return lines
    out: list[tuple[str, int]] = []
    previous, dropped = "", False
    for raw, at in lines:
        new = f.line(raw)
        if new is None or echo_line(new, previous):
            if previous.rstrip().endswith((".", ";", ":")) and out and out[-1][0].strip():
                out.append(("\n", at))
            dropped = True
            continue
        if dropped and new.strip() and out and out[-1][0].strip() and boundary(new.strip()) in ("article", "chapter", "md"):
            out.append(("\n", at))  # the debris line ended an unfinished line ('… la zona mini' / stamp / 'Artículo 78°. …'): the article starts anew
        dropped = dropped and not new.strip()
        out.append((new, at))
        if new.strip():
            previous = new
    return out
