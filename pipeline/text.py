"""Spanish-aware text normalisation shared by lexical retrieval, the gate and the verifier."""

from __future__ import annotations

import functools
import re
import unicodedata

STOPWORDS_ES = frozenset(
    """
    a al algo algun alguna algunas alguno algunos ante antes aqui asi aun bajo bien cada como con contra cual cuales
    cuando cuanto cuantos de del desde donde dos el ella ellas ello ellos en entre era eran es esa esas ese eso esos
    esta estaba estado estan estar estas este esto estos fue fueron ha haber habia han has hasta hay he la las le les
    lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra otras otro otros para pero poco por porque que
    quien quienes se sea segun ser si sido sin sobre solo son su sus tambien tan tanto te tener tiene tienen todo todos
    tu tus un una uno unos usted ustedes vos ya yo hola buenas buenos dias tardes noches gracias saludos favor quisiera
    queria quiero saber consulta consultar pregunta preguntar puedo puede pueden debo tengo necesito
    the of and to in is are for on with what how when where who do does can i my you
    """.split()
)

_WORD = re.compile(r"[a-z0-9ñ]+(?:[.\-/][a-z0-9ñ]+)*")


def _strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# Latin letters with accents, folded once: most text needs no per-character normalisation after this table.
_LATIN = {c: _strip_marks(chr(c)) for c in (*range(0x80, 0x250), *range(0x1E00, 0x1F00), *range(0x2000, 0x2070)) if chr(c) != "ñ" and _strip_marks(chr(c)) != chr(c)}


@functools.cache
def _marks() -> re.Pattern:
    """Every combining character (built once, on first need)."""
    points = [c for c in range(0x300, 0x110000) if unicodedata.combining(chr(c))]
    ranges, start = [], points[0]
    for prev, cur in zip(points, points[1:] + [-1]):
        if cur != prev + 1:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(prev))}" if prev > start else re.escape(chr(start)))
            start = cur
    return re.compile(f"[{''.join(ranges)}]")


def fold(text: str) -> str:
    """Lower-case and strip accents, keeping ñ."""
    text = text.lower().translate(_LATIN)
    if text.isascii() or (unicodedata.is_normalized("NFKD", text.replace("ñ", "n")) and not _marks().search(text)):
        return text  # nothing left to decompose: the table did the accents
    text = text.replace("ñ", "\x00")
    return _strip_marks(text).replace("\x00", "ñ")


def tokens(text: str) -> list[str]:
    """Folded word tokens."""
    return _WORD.findall(fold(text))


def stem(token: str) -> str:
    """A light Spanish stemmer: strips common plural and derivational endings."""
    for suffix in ("amientos", "imientos", "amiento", "imiento", "aciones", "uciones", "acion", "ucion", "mente", "ciones", "cion", "idades", "idad", "es", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def content_terms(text: str) -> list[str]:
    """Stemmed tokens without stop words: what lexical matching compares."""
    return [stem(t) for t in tokens(text) if t not in STOPWORDS_ES and len(t) > 1]


_SENTENCE = re.compile(r"(?<=[.!?;:])\s+(?=[A-ZÁÉÍÓÚÑ¿¡0-9\-•*])|\n+")


def sentences(text: str) -> list[str]:
    """Split text into sentences and list items."""
    out = []
    for part in _SENTENCE.split(text):
        part = part.strip(" \t-*•#")
        if len(part) >= 3:
            out.append(part)
    return out


_SNOWBALL = None


@functools.lru_cache(maxsize=200_000)
def _snowball_word(word: str) -> str:
    global _SNOWBALL
    if _SNOWBALL is None:
        import snowballstemmer

        _SNOWBALL = snowballstemmer.stemmer("spanish")
    return _SNOWBALL.stemWord(word)


def snowball_stem(words: list[str]) -> list[str]:
    """Snowball (Porter-family) Spanish stems of folded words (each distinct word stemmed once: the same stems, about
    5x less CPU for an ingest's sparse vectors, where most words repeat)."""
    return [_snowball_word(w) for w in words]


def lexical_terms(text: str) -> list[str]:
    """Terms for the sparse index: folded, stop words dropped, Snowball-stemmed (numbers kept whole)."""
    words = [t for t in tokens(text) if t not in STOPWORDS_ES and (len(t) > 1 or t.isdigit())]
    return snowball_stem(words)
