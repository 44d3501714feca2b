"""Closings ("gracias", "ok, perfecto", "listo, ya lo hice"): messages whose every clause closes the exchange.

A message is a closing only when each of its clauses (sentences, and the comma-separated pieces of a sentence) is
recognised as one: thanks, agreement, "done", "understood", a farewell. A clause that requests, asks, reports a
problem or states a need, with or without "?", makes the whole message one that staff must read and answer. Strong
signs of such a clause are rules (a question mark, "necesito", "solicito", "ocupo", "me urge", "perdí", "no abre",
an imperative such as "mándenme"); everything else is judged by a small classifier over character and word n-grams,
trained on pipeline/data/closing_clauses.txt. A clause it does not recognise as closing with enough confidence
counts as saying something: when in doubt, the message is drafted.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from pipeline.redaction import strip_placeholders
from pipeline.text import fold

MAX_WORDS = 45  # a longer message says more than thanks: it is drafted normally
MAX_CLAUSE_WORDS = 14  # a longer clause says something of its own
THRESHOLD = 0.6  # probability a clause must reach to count as closing (a missed request costs more than a drafted thank-you)
TRAINING_FILE = "closing_clauses.txt"

# Clauses that request, ask, report a problem or state a need (folded text).
_CONTENT = re.compile(
    r"[?¿]"
    r"|\b(?:necesit\w*|solicit\w*|requier\w*|requiero|ocup(?:o|a|an|amos|aria)|urg\w*|quisiera|quiero|queria (?:saber|consultar|preguntar|pedir)|"
    r"me gustaria|favor de|por favor|porfa\w*|porfis|pls|please|reclam\w*|denunci\w*|adjunt\w*|pido|pedir|me interesa\w*)\b"
    r"|\b(?:perdi\w*|se me perdio|extravi\w*|robaron|me olvide|bloque\w*|error\w*|fall[oa]\w*|"
    r"no (?:me |se |lo |la )?(?:abre|funciona\w*|anda|carga|cargo|llega|llego|aparece|figura|deja|dejo|puedo|pude|sirve|encuentro|entiendo|queda claro|tengo|se como|recibi)|"
    r"sigo|sigue|siguen|todavia no|aun no|me falta\w*|(?<!no hace )falta\w*|nadie)\b"
    r"|\b(?:puede[ns]?|podes|podria[ns]?|podrias|se podra|se puede)\s+(?:me\s+|nos\s+)?[a-zñ]+(?:ar|er|ir)(?:me|lo|la|los|las|le|les|nos)?\b"  # "pueden enviarlo", "¿me podrían decir"
    r"|\b(?:cuando|cuanto\w*|donde|cual\w*|quien\w*|como (?:hago|sigo|me|se|lo|la|puedo|es|debo)|que (?:tengo|hago|pasa|debo|sigue|necesito|documentos|papeles|dia|hora))\b"
    r"|\b(?:una|otra) (?:cosa|consulta|pregunta|duda)\b|\b(?:consulta|duda|ademas|por otro lado|aparte)\b|\btambien\s+\w|^\s*p\s?d\b"
    # imperatives: "mandame", "envíenme", "avisen", "revisen", "me pasan"
    r"|\b(?:mand|envi|pas|reenvi|avis|confirm|indiqu|dig|ayud|expliqu|actualic|habilit|agend|cancel|firm|devuelv|corrij|cheque|revis|fij|llam|contest|respond)"
    r"(?:(?:a|e|ad)?(?:me|nos|melo|mela)|(?:en|an)(?:me|nos|le|les|lo|la)?)\b"
)
_SPLIT = re.compile(r"[.!;:\n…]+|,|\s+-\s+")
_WORD = re.compile(r"[a-zñ]+")


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """Whether a message only acknowledges or closes the exchange, and why."""

    closing: bool
    reason: str


def clauses(text: str) -> list[str]:
    """The folded clauses of a message: its sentences, and the comma-separated pieces of each (placeholders removed)."""
    folded = fold(strip_placeholders(text or ""))
    return [c.strip() for c in _SPLIT.split(folded) if c.strip() and (_WORD.search(c) or not c.strip().isascii())]


@functools.cache
def _model():
    """The clause classifier: TF-IDF over character and word n-grams, logistic regression (trained at first use, < 1 s)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    rows = [line.split("\t", 1) for line in resources.files("pipeline.data").joinpath(TRAINING_FILE).read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    texts, labels = [fold(text) for _, text in rows], [label == "c" for label, _ in rows]
    features = make_union(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True), TfidfVectorizer(analyzer="word", ngram_range=(1, 2), token_pattern=r"[a-zñ]+|[^\sa-zñ\d.,;:]"))
    return make_pipeline(features, LogisticRegression(C=8.0, class_weight="balanced", max_iter=2000)).fit(texts, labels)


def closing_probability(clause: str) -> float:
    """How likely the classifier finds that this (folded) clause only closes the exchange."""
    return float(_model().predict_proba([clause])[0][1])


def _says_something(clause: str) -> str | None:
    """Why the rules alone find that a (folded) clause requests, asks, reports or states a need, or None."""
    content = _CONTENT.search(clause)
    if content:
        return f"says something: {content.group(0).strip()!r} in {clause!r}"
    if len(_WORD.findall(clause)) > MAX_CLAUSE_WORDS:
        return f"long clause {clause[:60]!r}"
    return None


def judge_clause(clause: str) -> tuple[bool, str]:
    """(closes, why) for one folded clause."""
    why = _says_something(clause)
    if why:
        return False, why
    p = closing_probability(clause)
    if p < THRESHOLD:
        return False, f"not a closing ({p:.2f}): {clause[:60]!r}"
    return True, f"{clause[:40]!r} ({p:.2f})"


def classify(text: str) -> Acknowledgement:
    """A closing (every clause closes: no draft, no reply) versus anything staff must read and answer."""
    parts = clauses(text)
    if not parts:
        return Acknowledgement(False, "empty")
    words = len(_WORD.findall(" ".join(parts)))
    if words > MAX_WORDS:
        return Acknowledgement(False, f"long ({words} words)")
    if "?" in text or "¿" in text:
        return Acknowledgement(False, "asks: '?'")
    for clause in parts:  # the rules first: most requests never reach the classifier
        why = _says_something(clause)
        if why:
            return Acknowledgement(False, why)
    probabilities = _model().predict_proba(parts)[:, 1]
    for clause, p in zip(parts, probabilities):
        if p < THRESHOLD:
            return Acknowledgement(False, f"not a closing ({p:.2f}): {clause[:60]!r}")
    return Acknowledgement(True, "closing: " + "; ".join(f"{c[:40]!r} ({p:.2f})" for c, p in zip(parts, probabilities))[:300])


def is_closing(text: str) -> bool:
    """True for "gracias", "ok, perfecto", "listo, ya lo hice" and the like when no clause says anything new."""
    return classify(text).closing
