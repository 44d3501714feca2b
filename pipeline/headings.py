"""Which lines of a document are headings (Markdown, articles, chapters, FAQ questions, capitals) and page markers.

Shared by the chunker (sections) and the answer units (heading context)."""

from __future__ import annotations

import re

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
