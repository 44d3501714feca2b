"""Which lines of a document are headings (Markdown, articles, chapters, FAQ questions, capitals) and page markers.

Shared by the chunker (sections) and the answer units (heading context)."""

from __future__ import annotations

import re

from pipeline.text import STOPWORDS_ES, fold

PAGE_MARKER = re.compile(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}\s*$", re.IGNORECASE | re.MULTILINE)
MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_ARTICLE = re.compile(r"^(?:art[íi]culo|art\.)\s*\d+", re.IGNORECASE)
_CHAPTER = re.compile(r"^(?:cap[íi]tulo|t[íi]tulo|secci[óo]n|anexo|parte)\s+(?:[ivxlcdm]+|\d+|[úu]nico)\b", re.IGNORECASE)
_FAQ = re.compile(r"^(?:\d{1,3}\s*[.)-]\s*)?¿[^?]{6,}\??\s*$|^\d{1,3}\s*[.)-]\s*¿")


def _caps_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return 4 <= len(line) <= 90 and len(letters) >= 4 and sum(c.isupper() for c in letters) / len(letters) > 0.85 and not line.endswith(",")


def boundary(line: str) -> str | None:
    """Kind of heading a line is: md, article, chapter, faq, caps, or None."""
    if MD_HEADING.match(line):
        return "md"
    if _ARTICLE.match(line):
        return "article"
    if _CHAPTER.match(line):
        return "chapter"
    if _FAQ.match(line):
        return "faq"
    if _caps_heading(line) and not PAGE_MARKER.match(line):
        return "caps"
    return None


_SMALL = frozenset("a al con de del el en la las lo los o para por que se su sus u un una y e".split())


def heading_case(ctx: str) -> str:
    """A heading in capitals said as a sentence ('ARTÍCULO 10. DURACIÓN DE LAS PRÁCTICAS' → 'Artículo 10. Duración de las prácticas');
    short acronyms (EPS, CUI) kept; a short all-capitals fragment (a watermark's letters, 'SPICUA CAROL') dropped."""
    letters = [ch for ch in ctx if ch.isalpha()]
    if not letters or sum(ch.isupper() for ch in letters) < 0.8 * len(letters):
        return ctx
    words = ctx.split()
    if len([w for w in words if any(ch.isalpha() for ch in w)]) <= 2 and not re.match(r"(?i)^(?:art[ií]culo|t[ií]tulo|cap[ií]tulo)\b", ctx):
        return ""
    out = []
    for i, w in enumerate(words):
        core = w.strip(".,;:()°º\"“”'")
        acronym = len(core) <= 3 or sum(ch in "AEIOUÁÉÍÓÚ" for ch in core) <= 1
        if i > 0 and core.isalpha() and len(core) <= 4 and acronym and core.lower() not in _SMALL and core.lower() not in STOPWORDS_ES:
            out.append(w)  # an acronym
        else:
            low = w.lower()
            out.append(low[:1].upper() + low[1:] if i == 0 or re.search(r"[.:]\s*$", words[i - 1]) else low)
    return " ".join(out)


# A short section heading that names how or by when something is asked for ('Cómo se solicita', 'Plazos de presentación',
# 'Procedimiento'), folded; a section titled by an article's opening line ('Artículo 52°. Del procedimiento…') is not one.
_REQUEST_HEADING = re.compile(r"\bcomo se (?:solicita|pide|tramita|presenta|postula)\b|\bplazos?\b|\bprocedimiento\b|\bsolicitud\b|\btramite\b|\bpostulacion\b|\bcomo (?:solicitar|pedir|postular)")
_ARTICLE_TITLE = re.compile(r"^\s*art[ií]culo\b|^\s*art\.", re.IGNORECASE)
REQUEST_HEADING_WORDS = 8  # a section title longer than this is a sentence, not a heading


def request_heading(section: str | None) -> bool:
    """Whether a section's title is a short heading naming how or by when something is requested."""
    s = (section or "").strip()
    return bool(s) and not _ARTICLE_TITLE.match(s) and len(s.split()) <= REQUEST_HEADING_WORDS and bool(_REQUEST_HEADING.search(fold(s)))
