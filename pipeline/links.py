"""Links in a draft (URLs, bare domains, e-mail addresses) that the office's documents do not contain."""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>()\[\]\"'|]+|\b(?:[a-z0-9-]+\.)+(?:com|org|net|edu|gob|gov|io|info|biz|ly|co|me|xyz|app|site|online|gt|mx|uy|es|ar)(?:/[^\s<>()\[\]\"'|]*)?\b")
_TRAILING = ".,;:!?»”’)"


def _norm(link: str) -> str:
    link = link.strip().rstrip(_TRAILING).lower()
    link = re.sub(r"^(?:https?://)?(?:www\.)?", "", link)
    return link.rstrip("/")


def links_in(text: str) -> list[str]:
    """E-mail addresses and URLs (also bare domains) of `text`, in order, without repeats."""
    found: dict[str, None] = {}
    for m in _EMAIL.finditer(text):
        found.setdefault(m.group(0).rstrip(_TRAILING), None)
    without = _EMAIL.sub(" ", text)
    for m in _URL.finditer(without):
        found.setdefault(m.group(0).rstrip(_TRAILING), None)
    return list(found)


def foreign_links(text: str, sources: str) -> list[str]:
    """Links of `text` that `sources` (the document extracts and their URLs) never mention."""
    known = {_norm(x) for x in links_in(sources)}
    folded = sources.lower()
    return [link for link in links_in(text) if _norm(link) not in known and _norm(link) not in folded]
