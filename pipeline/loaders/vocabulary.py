"""Spanish vocabulary for repairing extracted text: a word-frequency dictionary plus the document's own words."""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import Counter

from pipeline.text import fold

WORD = re.compile(r"[A-Za-zÁÉÍÓÚÜÑáéíóúüñ]+")
# the short words a run-together split may produce: function words, which OCR and PDF text glue onto the next word
SHORT_WORDS = frozenset("a e o u y al de el en la lo le las los les del con por sin que se su sus un una mi tu es no".split())
_PREFIXES = frozenset("ante anti auto bien contra entre extra infra inter macro mal micro mini multi post pre semi sobre sub super tele ultra".split())
_COMMON = 3.0  # a split part must be at least this common (Zipf scale: 3 = once per million words)
_OCR_I = re.compile(r"l(?=[bcdfghjkmnpqrstvwxz])")  # an upper-case I read as l ('lnscripción'): l before a consonant but l


@functools.cache
def _dictionary() -> dict[str, float]:
    """Folded Spanish word -> Zipf frequency, from wordfreq's bundled Spanish list (offline, no download)."""
    from wordfreq import get_frequency_dict

    out: dict[str, float] = {}
    for word, share in get_frequency_dict("es", wordlist="large").items():
        key = fold(word)
        out[key] = out.get(key, 0.0) + share
    return {k: math.log10(v) + 9 for k, v in out.items()}


@functools.cache
def _sorted_keys() -> list[str]:
    return sorted(_dictionary())


class Vocabulary:
    """Which words are real: the Spanish dictionary, or a word the document itself uses more than once."""

    def __init__(self, text: str = "") -> None:
        self.base = _dictionary()
        self.local = Counter(fold(w) for w in WORD.findall(text))

    def known(self, word: str) -> bool:
        w = fold(word)
        return w in self.base or self.local[w] >= 2

    def common(self, word: str) -> bool:
        w = fold(word)
        return w in SHORT_WORDS or (len(w) >= 4 and self.base.get(w, 0.0) >= _COMMON)

    def split(self, word: str) -> list[str] | None:
        """The run-together words inside `word` ('deinscripción' -> ['de', 'inscripción']), or None when it is a word.

        Only a word the dictionary does not know (even one the document repeats: OCR repeats its misreadings) and that is
        no inflection of a known word is split, into two or three common words; an upper-case I read as l
        ('Constancialnscripcion') is read back as I.
        """
        if len(word) < 6 or fold(word) in self.base or word.isupper() or self.inflected(word):
            return None
        best = self._segment(word)
        if best is None:
            swapped = _OCR_I.sub("I", word)
            if swapped != word:
                best = self._segment(swapped) if not self.known(swapped) else [swapped]
        return best

    def inflected(self, word: str) -> bool:
        """A form of a dictionary word the list lacks ('ajustaren', 'contravenirlo'): some word shares all but its ending."""
        w = fold(word)
        stem = w[: max(5, len(w) - 4)]
        keys = _sorted_keys()
        i = bisect.bisect_left(keys, stem)
        return i < len(keys) and keys[i].startswith(stem)

    def _segment(self, word: str) -> list[str] | None:
        n = len(word)
        # best[i] = (score, parts) for word[:i], at most three parts
        best: list[tuple[float, list[str]] | None] = [None] * (n + 1)
        best[0] = (0.0, [])
        for i in range(1, n + 1):
            for j in range(max(0, i - 24), i):
                prev = best[j]
                part = word[j:i]
                if prev is None or len(prev[1]) >= 3 or not self.common(part):
                    continue
                score = prev[0] + self.base.get(fold(part), 0.0) - 8.0  # each extra part costs
                if best[i] is None or score > best[i][0]:  # type: ignore[index]
                    best[i] = (score, prev[1] + [part])
        found = best[n]
        if found is None or len(found[1]) < 2:
            return None
        parts = found[1]
        if len(parts[-1]) < 4 or fold(parts[0]) in _PREFIXES:  # an ending ('ajustar+en') or a prefix ('extra+universitarios')
            return None
        return parts
