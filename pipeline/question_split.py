"""Several questions in one message: split into parts that each ask about their own topic, in order."""

from __future__ import annotations

import re

from pipeline.generation.lexical import query_keys
from pipeline.redaction import strip_placeholders

MIN_OWN_KEYS = 2  # a question with fewer new key terms continues the previous one ("¿Y hasta qué día?")
MAX_PARTS = 5
_PIECE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n+|$)")
_INTERROGATIVE = re.compile(
    r"^\s*(?:[¿¡]|(?:qu[eé]|c[oó]mo|cu[aá]ndo|d[oó]nde|cu[aá]l(?:es)?|cu[aá]nt[oa]s?|qui[eé]n(?:es)?|se\s+puede|puedo|hay)\b)",
    re.IGNORECASE,
)
# Words of a plea for help, not of a topic: "¿Me pueden ayudar con el trámite?" continues the question before it.
GENERIC_KEYS = frozenset(
    query_keys(
        "ayuda ayudar ayudarme ayudan ayuden trámite trámites gestión gestiones información info caso cosa cosas tema temas "
        "favor respuesta responder responderme orientar orientarme orientación explicar explicarme confirmar confirmarme decir decirme"
    )
)
_CONTINUES = re.compile(r"^\s*[¿¡]?\s*(?:y|e|o|pero|entonces|tambi[eé]n|eso|esto|en ese caso)\b", re.IGNORECASE)


def _pieces(text: str) -> list[str]:
    return [p.strip() for p in (m.group(0) for m in _PIECE.finditer(text)) if p.strip()]


def _asks(piece: str) -> bool:
    return "?" in piece or bool(_INTERROGATIVE.match(piece))


def split_questions(text: str) -> list[str]:
    """The message's questions, each with the context sentences that follow it; one part when it asks one thing.

    A question that brings fewer than MIN_OWN_KEYS new key terms, or starts like a continuation ("¿Y…?")
    and brings few, stays with the question before it."""
    pieces = _pieces(text)
    parts: list[list[str]] = []
    seen: set[str] = set()
    lead: list[str] = []
    for piece in pieces:
        if not _asks(piece):
            (parts[-1] if parts else lead).append(piece)
            continue
        own = set(query_keys(strip_placeholders(piece))) - seen - GENERIC_KEYS
        if parts and (len(own) < MIN_OWN_KEYS or (_CONTINUES.match(piece) and len(own) <= MIN_OWN_KEYS)):
            parts[-1].append(piece)
        else:
            parts.append(lead + [piece])
            lead = []
        seen |= own
    if not parts:
        return [text.strip()] if text.strip() else []
    if lead:
        parts[-1].extend(lead)
    if len(parts) > MAX_PARTS:  # a long list of questions: the tail is kept together with the last part
        parts = parts[: MAX_PARTS - 1] + [[piece for part in parts[MAX_PARTS - 1 :] for piece in part]]
    return [" ".join(p) for p in parts]


def asking_sentences(text: str) -> list[str]:
    """The sentences of `text` that ask something, in order."""
    return [p for p in _pieces(text) if _asks(p)]


def asked_sentence(part: str) -> str:
    """The question of a part, for the heading that introduces its answer in the reply."""
    asking = asking_sentences(part)
    return (asking[0] if asking else part).strip()
