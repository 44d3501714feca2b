"""Several questions in one message: split into parts that each ask about their own topic, in order."""

from __future__ import annotations

import re

from pipeline.generation.asking import kind_of
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


# '¿Cuánto cuesta y hasta cuándo me puedo postular?': two questions in one sentence (accented interrogatives only: 'y que' joins)
_TWO_IN_ONE = re.compile(r",?\s+y\s+(?=(?:hasta\s+(?:cu[aá]ndo|qu[eé])|desde\s+cu[aá]ndo|cu[aá]ndo|cu[aá]nt[oa]s?|d[oó]nde|c[oó]mo|qu[eé]|qui[eé]n(?:es)?|cu[aá]l(?:es)?)\b)", re.IGNORECASE)
_ACCENTED = re.compile(r"[áéíóú]", re.IGNORECASE)


def _pieces(text: str) -> list[str]:
    out = []
    for p in (m.group(0).strip() for m in _PIECE.finditer(text)):
        if p:
            out.extend(_two_in_one(p))
    return out


def _two_in_one(piece: str) -> list[str]:
    """'¿Cuánto cuesta y hasta cuándo me puedo postular?' -> '¿Cuánto cuesta?', '¿Y hasta cuándo me puedo postular?'."""
    at = piece.find("¿")
    if at < 0 or not piece.rstrip().endswith("?"):
        return [piece]
    m = _TWO_IN_ONE.search(piece, at)
    if m is None or not _ACCENTED.search(piece[m.end() : m.end() + 12]):
        return [piece]
    return [piece[: m.start()].rstrip() + "?", "¿Y " + piece[m.end() :].lstrip()]


def _asks(piece: str) -> bool:
    return "?" in piece or bool(_INTERROGATIVE.match(piece))


_WH = re.compile(r"^\W*(?:y\s+)?(?:hasta\s+|desde\s+|por\s+|para\s+|en\s+|de\s+|a\s+)?(?:c[oó]mo|cu[aá]ndo|cu[aá]nt[oa]s?|d[oó]nde|qu[eé]|qui[eé]n(?:es)?|cu[aá]l(?:es)?)\b", re.IGNORECASE)


def _asked_kind(piece: str) -> str:
    """The kind of answer a question asks; '¿Cómo…?' asks a procedure and a question without an interrogative word
    ('¿La pasantía es obligatoria?') a yes or no, when the kinds' own patterns do not tell."""
    kind = kind_of(piece)
    if kind != "other":
        return kind
    question = piece[piece.find("¿") :] if "¿" in piece else piece
    if re.match(r"^\W*(?:y\s+)?c[oó]mo\b", question, re.IGNORECASE):
        return "procedure"
    return "other" if _WH.match(question) or "¿" not in piece else "yes_no"


def split_questions(text: str) -> list[str]:
    """The message's questions, each with the context sentences that follow it; one part when it asks one thing.

    A question that brings fewer than MIN_OWN_KEYS new key terms, or starts like a continuation ("¿Y…?")
    and brings few, stays with the question before it, unless it asks another kind of answer ('¿Cómo reválido una
    materia? ¿Cuánto sale el trámite?': a procedure, then a cost), which is answered on its own."""
    pieces = _pieces(text)
    parts: list[list[str]] = []
    seen: set[str] = set()
    lead: list[str] = []
    kind = "other"
    for piece in pieces:
        if not _asks(piece):
            (parts[-1] if parts else lead).append(piece)
            continue
        own = set(query_keys(strip_placeholders(piece))) - seen - GENERIC_KEYS
        asks = _asked_kind(piece)
        other_kind = "other" not in (asks, kind) and asks != kind
        kind = asks
        if parts and not other_kind and (len(own) < MIN_OWN_KEYS or (_CONTINUES.match(piece) and len(own) <= MIN_OWN_KEYS)):
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


def standalone(part: str) -> bool:
    """Whether a question part names its own topic (MIN_OWN_KEYS key terms) rather than leaning on the question before it."""
    return len(set(query_keys(strip_placeholders(" ".join(asking_sentences(part))))) - GENERIC_KEYS) >= MIN_OWN_KEYS + 1


def with_context(part: str, before: str) -> list[str]:
    """Ways to ask a question part that leans on the part before it, the first to try first: the earlier part said as
    statements before it ('Cómo reválido una materia. ¿Cuánto sale el trámite?': what it is about, weighed as context),
    then its own question first and the earlier one after it, asked as well (when the context alone says too little)."""
    said = re.sub(r"\s*\?+", ".", before.replace("¿", "")).strip()
    return [f"{said} {part}", f"{part} {before}"]


def asking_sentences(text: str) -> list[str]:
    """The sentences of `text` that ask something, in order."""
    return [p for p in _pieces(text) if _asks(p)]


_LABEL = re.compile(r"^(?:[^\W\d_]+[\s,]+){0,4}[^\W\d_]+\s*:\s*(?=¿)")  # "Y otra cosa: ¿…?", "Consulta: ¿…?"


def asked_sentence(part: str) -> str:
    """The question of a part, for the heading that introduces its answer in the reply (without a short label that
    only announces it, such as "Y otra cosa:")."""
    asking = asking_sentences(part)
    heading = (asking[0] if asking else part).strip()
    if label := _LABEL.match(heading):
        rest = heading[label.end() :]
        heading = rest[:1] + rest[1:2].upper() + rest[2:]
    return heading
