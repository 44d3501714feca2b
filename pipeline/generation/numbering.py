"""How the source numbers a list's items ('a.)', 'a.1', 'd)' then 'e)'): the sub-items an item announces, the items a page break moved to the next chunk."""

from __future__ import annotations

import re

from pipeline.generation.selection import Candidate, units_of
from pipeline.units import Unit

_MARKER = re.compile(r"^\s*(?:(?P<bullet>[-•*▪●])|(?P<num>\d{1,3})[.)]|(?P<sub>[a-zA-Z]\.\d{1,2})\.?|(?P<letter>[a-zA-Z])\.?\)|(?P<roman>[IVXivx]{1,4})[.)]|(?P<let>[a-zA-Z])\.)\s+")


def _marker_style(chunk_text: str, unit_text: str) -> str | None:
    """How the source numbers a list item ('a.)' letter, 'a.1' sub, '1.' num, '-' bullet), read from its chunk's text; None when not found."""
    head = unit_text[:24]
    at = chunk_text.find(head)
    if at < 0:
        return None
    line = chunk_text[chunk_text.rfind("\n", 0, at) + 1 : at + len(head)]
    m = _MARKER.match(line)
    return next((k for k, v in m.groupdict().items() if v), None) if m else None


def sub_items(top: Candidate, units: list[Unit], at: int, cands: list[Candidate]) -> list[Candidate]:
    """The items an item ending in ':' announces: those after it numbered otherwise than it (its 'a.1', 'a.2' under its
    'a.)'), up to the next item numbered like it; without markers, the items up to the next one ending in ':'."""
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    style = _marker_style(top.chunk.text, top.unit.text)
    out: list[Candidate] = []
    for u in units[at + 1 :]:
        if u.kind != "item" or id(u) not in by_unit:
            break
        own = _marker_style(top.chunk.text, u.text)
        if (style is not None and own == style) or (style is None and u.text.rstrip().endswith(":")):
            break
        out.append(by_unit[id(u)])
    return out


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def continued(last: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """The items a list goes on with at the start of its document's next chunk (a page break cut it): those numbered in
    the same style and in sequence after the chunk's last item ('d)' → 'e)'); none when the numbering does not follow."""
    style = _marker_style(last.chunk.text, last.unit.text)
    if style is None:
        return []
    nxt = next((c.chunk for c in cands if c.chunk.doc_id == last.chunk.doc_id and c.chunk.position == last.chunk.position + 1), None)
    if nxt is None:
        return []
    by_unit = {id(c.unit): c for c in cands if c.chunk is nxt}
    prev = _marker_value(last.chunk.text, last.unit.text)
    out: list[Candidate] = []
    for u in units_of(nxt):
        if u.kind == "heading":
            continue
        value = _marker_value(nxt.text, u.text) if u.kind == "item" and id(u) in by_unit else None
        if value is None or _marker_style(nxt.text, u.text) != style or not _follows(prev, value):
            break
        out.append(by_unit[id(u)])
        prev = value
    return out


def _marker_value(chunk_text: str, unit_text: str) -> str | None:
    """The number or letter an item is numbered with in its chunk's text ('e' of 'e) Irrespeto…')."""
    at = chunk_text.find(unit_text[:24])
    if at < 0:
        return None
    m = re.match(r"\s*([a-zA-Z]|\d{1,3})[.)]", chunk_text[chunk_text.rfind("\n", 0, at) + 1 : at])
    return m.group(1).lower() if m else None


def _follows(prev: str | None, value: str) -> bool:
    if prev is None:
        return False
    if prev.isdigit() and value.isdigit():
        return int(value) == int(prev) + 1
    return prev in _LETTERS[:-1] and value == _LETTERS[_LETTERS.index(prev) + 1]


def nested(items: list[Candidate]) -> list[bool]:
    """Which items of a list are sub-items: those after an item ending in ':', until one numbered like it and next in its
    sequence ('c) … la penalización será:', 'a) Retiro…', 'b) Suspensión…', then 'd) Asistir tarde…' back at its level);
    without markers to tell, every item after it."""
    out: list[bool] = []
    parent: Candidate | None = None
    for c in items:
        if parent is not None:
            style, value = _marker_style(c.chunk.text, c.unit.text), _marker_value(c.chunk.text, c.unit.text)
            own = _marker_style(parent.chunk.text, parent.unit.text), _marker_value(parent.chunk.text, parent.unit.text)
            if style is None or style != own[0] or value is None or not _follows(own[1], value):
                out.append(True)
                continue
        out.append(False)
        parent = c if c.unit.text.rstrip().endswith(":") else None
    return out
