"""Folding text for matching: lower case, accents stripped, ñ kept, compatibility forms decomposed."""

from __future__ import annotations

import unicodedata

from pipeline.text import fold, tokens


def _reference(text: str) -> str:
    """The definition: NFKD, combining marks dropped, ñ kept."""
    text = text.lower().replace("ñ", "\x01")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).replace("\x01", "ñ")


def test_fold_strips_accents_and_keeps_enie():
    assert fold("ÑANDÚ Árbol pingüino Çedilla") == "ñandu arbol pinguino cedilla"
    assert fold("Artículo 5º… “así”") == "articulo 5o... “asi”"  # compatibility forms decomposed, quotes kept
    assert fold("cafe\u0301 man\u0303ana") == "cafe manana"  # decomposed input: marks dropped (a decomposed ñ is an n)
    assert tokens("¿Cuándo ABREN las inscripciones?") == ["cuando", "abren", "las", "inscripciones"]


def test_fold_matches_its_definition_on_every_character():
    for start in (0x80, 0x300, 0x1E00, 0x2000, 0x3000, 0xFB00, 0x1D400):
        text = "".join(chr(c) for c in range(start, start + 0x400) if not 0xD800 <= c < 0xE000)
        assert fold(text) == _reference(text), hex(start)
