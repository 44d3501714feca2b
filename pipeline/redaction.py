"""Redaction of personal data with typed placeholders, applied before any LLM call."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Order matters: e-mails first (they contain digits and dots), then IDs, then phones.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("EMAIL", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("CEDULA", re.compile(r"(?<![\d.])\d{1}\.?\d{3}\.?\d{3}\s?[-‐]\s?\d(?![\d])")),
    ("DNI", re.compile(r"(?<![\w])(?:\d{8}[-\s]?[A-HJ-NP-TV-Z]|[XYZ][-\s]?\d{7}[-\s]?[A-HJ-NP-TV-Z])(?![\w])", re.IGNORECASE)),
    ("NUM_ESTUDIANTE", re.compile(r"(?i)(?:n[uú]mero de estudiante|nro\.? de estudiante|carn[eé]|legajo|matr[ií]cula)\s*(?:n[º°o]\.?\s*)?:?\s*\d{4,10}")),
    ("TELEFONO", re.compile(r"(?<![\w])(?:\+\d{1,3}[\s.-]?)?(?:\(?\d{1,4}\)?[\s.-]?)?\d{2,4}[\s.-]?\d{3}[\s.-]?\d{3,4}(?![\w])")),
]


@dataclass(slots=True)
class Redaction:
    text: str
    counts: dict[str, int]


def cedula_check_digit(number: str) -> int:
    """Uruguayan cédula check digit for the 6–7 leading digits."""
    digits = number.zfill(7)
    weights = (2, 9, 8, 7, 6, 3, 4)
    total = sum(int(d) * w for d, w in zip(digits, weights))
    return (10 - total % 10) % 10


def redact(text: str) -> Redaction:
    """Replace e-mails, cédulas, DNI/NIE, student numbers and phone numbers with [TYPE] placeholders."""
    counts: dict[str, int] = {}
    for kind, pattern in _PATTERNS:
        text, n = pattern.subn(f"[{kind}]", text)
        if n:
            counts[kind] = counts.get(kind, 0) + n
    return Redaction(text=text, counts=counts)
