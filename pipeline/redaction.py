"""Redaction of personal data with typed placeholders, applied before any LLM call."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_CEDULA_LABEL = r"(?:c[ée]dula(?:\s+de\s+identidad)?|c\.\s?i\.?|ci|documento|doc\.?)"
_STUDENT_LABEL = (
    r"(?:n(?:[uú]mero|ro\.?|[º°o]\.?)\s*(?:de\s+)?(?:estudiante|alumno|legajo|matr[ií]cula)|legajo|matr[ií]cula|"
    r"carn[eé]t?(?:\s+de\s+estudiante)?|student\s+(?:number|id)|n[º°]\s*de\s+estudiante|(?:estudiante|alumno)\s+n(?:[º°o]|ro)\.?)"
)


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


def valid_cedula(text: str) -> bool:
    """Whether a cédula (with or without dots and dash) has a correct check digit."""
    digits = re.sub(r"\D", "", text)
    return 7 <= len(digits) <= 8 and cedula_check_digit(digits[:-1]) == int(digits[-1])


def valid_dni(text: str) -> bool:
    """Whether a Spanish DNI/NIE has the right control letter."""
    raw = re.sub(r"[\s.-]", "", text).upper()
    if raw[0] in "XYZ":
        raw = str("XYZ".index(raw[0])) + raw[1:]
    return raw[:-1].isdigit() and DNI_LETTERS[int(raw[:-1]) % 23] == raw[-1]


Rule = tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None, str | None]

# Order matters: e-mails first (they contain digits and dots), then IDs, then phones.
RULES: list[Rule] = [
    ("EMAIL", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"), None, None),
    # A cédula written with its dash (4.567.890-5, 4567890-5) or after a label is always redacted; a bare 7–8 digit number only with a valid check digit.
    ("CEDULA", re.compile(rf"(?i)(?<![\w])(?P<label>{_CEDULA_LABEL})(?P<sep>(?:\s*(?:es|n[º°o]\.?|nro\.?|n[uú]mero|:)\s*)*|\s*)(?P<v>\d{{1,2}}[.\s]?\d{{3}}[.\s]?\d{{3}}\s?[-‐/]?\s?\d)(?![\d])"), None, "v"),
    ("CEDULA", re.compile(r"(?<![\d.,/])\d{1,2}\.\d{3}\.\d{3}\s?[-‐]\s?\d(?![\d])|(?<![\d.,/-])\d{6,7}\s?[-‐]\s?\d(?![\d-])"), None, None),
    ("DNI", re.compile(r"(?<![\w])(?:\d{2}\.?\d{3}\.?\d{3}[- ]?[A-HJ-NP-TV-Z]|[XYZ][- ]?\d{7}[- ]?[A-HJ-NP-TV-Z])(?![\w])"), None, None),
    ("DNI", re.compile(r"(?i)(?<![\w])(?:\d{8}-?[a-z]|[xyz]-?\d{7}-?[a-z])(?![\w])"), lambda m: valid_dni(m.group(0)), None),
    ("NUM_ESTUDIANTE", re.compile(rf"(?i)(?<![\w])(?P<label>{_STUDENT_LABEL})(?P<sep>(?:\s*(?:es|n[º°o]\.?|nro\.?|n[uú]mero|:)\s*)*|\s*)(?P<v>\d{{4,10}})(?!\d)"), None, "v"),
    ("CEDULA", re.compile(r"(?<![\w.,/-])\d{7,8}(?![\w.,/-]?\d)"), lambda m: valid_cedula(m.group(0)), None),  # before phones: 8 bare digits may look like a landline
    ("TELEFONO", re.compile(
        r"(?<![\w+])(?:\+|00)\d{1,3}[\s.-]?(?:\(?\d{1,4}\)?[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}(?![\w])"  # international
        r"|(?<![\w.,/-])0?9\d[\s.-]?\d{3}[\s.-]?\d{3}(?![\w])"  # Uruguayan mobile 09X XXX XXX
        r"|(?<![\w.,/-])[24]\d{3}[\s.-]?\d{4}(?![\w])"  # Uruguayan landline 2XXX XXXX / 4XXX XXXX
        r"|(?<![\w.,/-])[6789]\d{2}(?:[\s.-]?\d{2}){3}(?![\w])"  # Spanish 6XX XX XX XX
        r"|(?<![\w.,/-])[6789]\d{2}[\s.-]?\d{3}[\s.-]?\d{3}(?![\w])"  # Spanish 6XX XXX XXX
        r"|(?<![\w.,/-])\(\d{2,4}\)\s?\d{3,4}[\s.-]?\d{4}(?![\w])"  # (011) 4567-8901
    ), None, None),
]


def _apply(text: str, kind: str, pattern: re.Pattern[str], check: Callable[[re.Match[str]], bool] | None, group: str | None) -> tuple[str, int]:
    count = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal count
        if check is not None and not check(m):
            return m.group(0)
        count += 1
        if group:
            return m.group("label") + m.group("sep") + f"[{kind}]"
        return f"[{kind}]"

    return pattern.sub(repl, text), count


PLACEHOLDER = re.compile(r"\[(?:CEDULA|DNI|NIE|TELEFONO|EMAIL|NUM_ESTUDIANTE|[A-Z_]{3,})\]")


def strip_placeholders(text: str) -> str:
    """Text without the [TYPE] placeholders redaction left (they carry no meaning for matching)."""
    return re.sub(r"[ \t]{2,}", " ", PLACEHOLDER.sub(" ", text))


def redact(text: str) -> Redaction:
    """Replace e-mails, cédulas, DNI/NIE, student numbers and phone numbers with [TYPE] placeholders."""
    counts: dict[str, int] = {}
    for kind, pattern, check, group in RULES:
        text, n = _apply(text, kind, pattern, check, group)
        if n:
            counts[kind] = counts.get(kind, 0) + n
    return Redaction(text=text, counts=counts)
