"""The question part of a student's message, cut to a character budget before any embedding or LLM call."""

from __future__ import annotations

import re
import unicodedata

DEFAULT_MAX_CHARS = 2000
SCAN_FACTOR = 25  # only the first and the last SCAN_FACTOR x budget characters are looked at: work per message stays bounded
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n+|$)")
_ASKS = re.compile(
    r"[?¿]|\b(?:qu[eé]|c[oó]mo|cu[aá]ndo|d[oó]nde|cu[aá]l(?:es)?|cu[aá]nt[oa]s?|qui[eé]n(?:es)?|puedo|podr[ií]a[ns]?|pueden|necesito|"
    r"quisiera|quiero\s+saber|me\s+gustar[ií]a|solicito|consulta|duda|what|how|when|where|which|can\s+i|could|would)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    return [s for s in (m.group(0) for m in _SENTENCE.finditer(text)) if s.strip()]


def _cut(sentence: str, room: int) -> str:
    """At most `room` characters of a sentence, ending at a word boundary."""
    if len(sentence) <= room:
        return sentence
    head = sentence[:room]
    space = head.rfind(" ")
    return head[:space] if space > room // 2 else head


def _cut_tail(sentence: str, room: int) -> str:
    """At most `room` characters of the end of a sentence, starting at a word boundary (a question ends its sentence)."""
    if len(sentence) <= room:
        return sentence
    tail = sentence[-room:]
    space = tail.find(" ")
    return tail[space + 1:] if 0 <= space < room // 2 else tail


def focus_question(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """At most `max_chars` of `text`: the sentences that ask first, then the others, kept in their original order."""
    if len(text) <= max_chars:
        return text
    window = max_chars * SCAN_FACTOR
    sentences = _sentences(text) if len(text) <= 2 * window else _sentences(text[:window]) + _sentences(text[-window:])
    asking = [i for i, s in enumerate(sentences) if _ASKS.search(s)]
    marked = set(asking)
    others = [i for i in range(len(sentences)) if i not in marked]
    chosen: dict[int, str] = {}
    room = max_chars
    for i in asking + others:
        if room <= 0:
            break
        piece = _cut_tail(sentences[i], room) if i in marked and sentences[i].rstrip().endswith("?") else _cut(sentences[i], room)
        if len(piece) < len(sentences[i]) and len(piece) < 40:  # a stub of a sentence says nothing
            continue
        if piece.strip():
            chosen[i] = piece
            room -= len(piece)
    return "".join(chosen[i] for i in sorted(chosen)).strip()


def fence_question(question: str) -> str:
    """Student text as data: fence tags inside it are neutralised (also spaced, fullwidth and small-form variants, folded by NFKC)."""
    cleaned = re.sub(r"<\s*/?\s*consulta\b[^>]*>", "", unicodedata.normalize("NFKC", question), flags=re.IGNORECASE)
    return f"<consulta>\n{cleaned}\n</consulta>"
