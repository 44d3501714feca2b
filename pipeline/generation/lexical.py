"""Lexical keys shared by the extractive generator and the step verifier."""

from __future__ import annotations

from pipeline.text import STOPWORDS_ES, tokens

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
