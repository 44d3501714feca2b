"""Lexical keys shared by the extractive generator and the step verifier."""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline.text import STOPWORDS_ES, snowball_stem, tokens

# Question words and fillers that say how something is asked or answered, not what about.
FUNCTION_WORDS = frozenset(
    "cuanto cuanta cuantos cuantas cuando cual cuales hasta que como donde quien puedo podes podria hay hacer hago "
    "tengo tenes alguna algun forma igual ir existe puedes debes tenes necesitas podras deben debe sale salen cuesta cuestan "
    "vale valen cobran".split()
)
KEY_LEN = 4  # Spanish inflections share a short prefix: inscribir/inscripción, recuperar/recupero


def keys(text: str) -> list[str]:
    """Content-word prefixes used for lexical matching (robust to Spanish inflection)."""
    return [w[:KEY_LEN] for w in tokens(text) if w not in STOPWORDS_ES and w not in FUNCTION_WORDS and len(w) > 2 and not w.isdigit()]


LONG_WORD, LONG_KEY = 10, 6  # long words are matched on a longer prefix: estacionamiento ≠ está


# Regional words for the same act, read as the word documents use ('anotarse a un examen' is 'inscribirse' in the
# River Plate; documents write 'inscripción').
SAME_ACT = {w: "inscribir" for w in "anotarse anotarme anotarte anotarnos anotar anoto anote anoté anotado anotada anotados anotadas anotandome".split()}
# ... and the plain word for a distinction the documents name in Latin ('graduarme con honores': 'CUM LAUDE').
SAME_ACT |= {w: "laude" for w in ("honores", "honor", "honorifica", "honorificas")}


def _content_words(text: str) -> list[str]:
    """Content words; 'rr' is read as 'r' so that spelling variants meet (prerrequisito / prerequisito)."""
    return [SAME_ACT.get(w, w).replace("rr", "r") for w in tokens(text) if w not in STOPWORDS_ES and w not in FUNCTION_WORDS and len(w) > 2 and not w.isdigit()]


def query_keys(text: str) -> list[str]:
    """Keys of a question: 4-letter prefixes, 6 letters for long words."""
    return [w[:LONG_KEY] if len(w) >= LONG_WORD else w[:KEY_LEN] for w in _content_words(text)]


def doc_keys(text: str) -> set[str]:
    """Keys a passage offers: every word's 4-letter prefix and, for words of 6+ letters, its 6-letter one."""
    out: set[str] = set()
    for w in _content_words(text):
        out.add(w[:KEY_LEN])
        if len(w) >= LONG_KEY:
            out.add(w[:LONG_KEY])
    return out


# Derivations Snowball leaves apart, read on its stems: a noun in -ción/-sión and its verb (inscripción/inscribir,
# suspensión/suspender, repetición/repetir, graduación/graduarse), -men nouns (exámenes/examen), and the stressed
# diphthong of a stem-changing verb (renuevo/renovar, cierre/cerrar, pierde/perder).
_DERIVED = (
    (re.compile(r"ripcion$"), "rib"),
    (re.compile(r"(?<=\w{4})tencion$"), "ten"),
    (re.compile(r"(?<=\w{3})ension$"), "end"),
    (re.compile(r"(?<=\w{4})(?:acion|icion|ucion|cion|sion)$"), ""),
    (re.compile(r"(?<=\w{3})men$"), "m"),
    (re.compile(r"ific$"), "if"),
)
_DIPHTHONG = re.compile(r"(?<=[^aeiou])(?:ue|ie)(?=[^aeiou])")


@lru_cache(maxsize=100_000)
def family(word: str) -> str:
    """The derivation family of a folded word: its Snowball stem with the alternations _DERIVED and _DIPHTHONG undone,
    so that renovar, renovación, renovaciones and renuevo share one key while general and generar keep two."""
    return _family(word)[0]


_NOMINAL = re.compile(r"(?:cion|sion|ciones|siones|miento|mientos)$")


@lru_cache(maxsize=100_000)
def derived(word: str) -> bool:
    """Whether a folded word meets its family only through a derivation: a noun of an act (renovación, inscripción) or a
    stressed diphthong (renuevo, aprueba). Two plain forms of one family (cursan / cursos, realizan / realizará) are
    usually a common verb and its noun, not the same thing asked."""
    return bool(_NOMINAL.search(word)) or _family(word)[1]


def _family(word: str) -> tuple[str, bool]:
    out = snowball_stem([SAME_ACT.get(word, word).replace("rr", "r")])[0]
    for pattern, repl in _DERIVED:
        out, n = pattern.subn(repl, out)
        if n:
            break
    plain = _DIPHTHONG.sub(lambda m: "o" if m.group(0) == "ue" else "e", out, count=1)
    return plain, plain != out
