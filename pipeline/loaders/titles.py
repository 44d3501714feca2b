"""A document's title from its own first lines when nothing else names it (OCR'd PDFs, plain text, junk PDF metadata)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from pipeline.text import STOPWORDS_ES, fold

_PAGE = re.compile(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}$", re.IGNORECASE)
_JOINERS = {"de", "del", "la", "las", "los", "el", "y", "e", "o", "u", "en", "a", "al", "para", "por", "con", "sobre"}
_WORD = re.compile(r"\w+")
_CONTACT = re.compile(r"@|://|\bwww\.|^[^:]{1,30}:\s")
SCAN_LINES = 40  # a title is among the first lines
MAX_WORDS = 25
MAX_CHARS = 160


def pretty_stem(path: Path) -> str:
    """'normativo_eps' → 'Normativo eps'."""
    text = re.sub(r"[_\-.]+", " ", path.stem).strip()
    return text[:1].upper() + text[1:] if text else path.name


def title_from_text(text: str, path: Path) -> str:
    """The heading that names the document among its first lines, wrapped lines joined; else the file name, prettified.

    The heading that shares most words with the file name wins (the first of equals); otherwise the first heading, unless it is page furniture (a line the pages
    repeat), a single word, cut off, or words the document never uses again (a seal's OCR). Capitals as the body writes them.
    """
    lines = [ln.strip(" #\t") for ln in text.splitlines()]
    repeats = Counter(ln for ln in lines if ln)
    blocks = _blocks([ln for ln in lines if not _PAGE.match(ln)][: SCAN_LINES * 2])
    blocks = [b for b in blocks if not all(repeats[ln] >= 3 for ln in b) and not _CONTACT.search(" ".join(b))]  # page headers and footers, addresses
    if not blocks:
        return pretty_stem(path)
    name = _keys(path.stem.replace("_", " "))
    body = _keys(text)
    scored = []
    for i, b in enumerate(blocks):
        keys = _keys(" ".join(b))
        agree = len({k for k in keys if any(_same(k, n) for n in name)})
        if agree:
            scored.append((-agree, i, b))
    if scored:
        return tidy_title(" ".join(min(scored)[2]), text)
    first = " ".join(blocks[0])
    keys = _keys(first)
    words_used_again = sum(body[k] > 1 for k in keys)
    if len(keys) >= 2 and first.count("(") == first.count(")") and words_used_again * 2 >= len(keys):
        return tidy_title(first, text)
    return pretty_stem(path)


def _blocks(lines: list[str]) -> list[list[str]]:
    """Runs of short lines that read as one heading ('... DE' / 'GUATEMALA', '... (EPS' / 'FINAL) ...'); sentences end a run."""
    out: list[list[str]] = []
    cur: list[str] = []
    scanned = 0
    for line in lines:
        if scanned >= SCAN_LINES:
            break
        if not line:
            if cur and not _open(cur):
                out.append(cur)
                cur = []
            continue
        scanned += 1
        heading = len(line.split()) <= 14 and not re.search(r"[.;:,]$", line)
        if cur and heading and _continues(cur, line):
            cur.append(line)
            continue
        if cur:
            out.append(cur)
        cur = [line] if heading else []
    if cur:
        out.append(cur)
    return [b for b in out if len(" ".join(b).split()) <= MAX_WORDS]


def _open(block: list[str]) -> bool:
    """The heading is cut: an unclosed parenthesis, or a last word that needs a next one ('DE', 'y')."""
    joined = " ".join(block)
    last = block[-1].split()[-1].lower() if block[-1].split() else ""
    return joined.count("(") > joined.count(")") or last in _JOINERS


def _continues(block: list[str], line: str) -> bool:
    first = line.split()[0]
    return _open(block) or first[:1].islower() or first.lower() in _JOINERS


def _keys(text: str) -> Counter:
    return Counter(w for w in (fold(x) for x in _WORD.findall(text)) if len(w) > 2 and w not in STOPWORDS_ES and not w.isdigit())


def _same(a: str, b: str) -> bool:
    n = min(len(a), len(b), 6)
    return n >= 4 and a[:n] == b[:n]


def tidy_title(title: str, text: str) -> str:
    """Spaces normalised; an all-capitals heading written with the capitals (and accents) the document's own sentences use."""
    title = re.sub(r"\s+", " ", title).strip(" -–—:")
    if sum(c.isupper() for c in title) > 0.6 * sum(c.isalpha() for c in title):
        forms: dict[str, Counter] = {}
        for line in text.splitlines():
            if line.upper() != line:  # lines in mixed case say how words are written
                for w in _WORD.findall(line):
                    forms.setdefault(fold(w), Counter())[w] += 1
        words = []
        for w in title.split(" "):
            core = _WORD.search(w)
            seen = forms.get(fold(core.group(0))) if core else None
            best = seen.most_common(1)[0][0] if seen else core.group(0).lower() if core else ""
            words.append(w.replace(core.group(0), best) if core else w)
        title = " ".join(words)
    title = title[:1].upper() + title[1:]
    if len(title) > MAX_CHARS:
        title = title[:MAX_CHARS].rsplit(" ", 1)[0]
    return title
