"""Cleaning student text: drop quoted earlier messages, signatures and greeting/closing boilerplate."""

from __future__ import annotations

import re

_REPLY_HEADERS = [
    re.compile(r"^\s*El\s.{0,200}?escribi[óo]\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*On\s.{0,200}?wrote\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*-{2,}\s*(Mensaje original|Original Message|Forwarded message|Mensaje reenviado)\s*-{2,}", re.IGNORECASE),
    re.compile(r"^\s*(De|From)\s*:\s*.+$", re.IGNORECASE),  # Outlook block; only a cut when followed by Enviado/Sent
]
_OUTLOOK_NEXT = re.compile(r"^\s*(Enviado|Sent|Fecha|Date|Para|To)\s*:", re.IGNORECASE)
_SIGNATURE_START = re.compile(
    r"^\s*(--\s*|__+|Enviado desde mi \w+.*|Sent from my \w+.*|Obtener Outlook para .*|Get Outlook for .*)$", re.IGNORECASE
)
_CLOSINGS = re.compile(
    r"^\s*(saludos|un saludo|muchas gracias|gracias|desde ya,? muchas gracias|desde ya gracias|atentamente|cordialmente|"
    r"quedo a la espera|quedo atent[oa]|abrazo|slds|best regards|regards|thanks|thank you|cheers)\b[^\n]{0,40}$",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^\s*(hola|buenas|buen d[ií]a|buenos d[ií]as|buenas tardes|buenas noches|estimad[oa]s?|se[ñn]or(es|a)?|hello|hi|dear)\b[^\n?]{0,60}?[,.!:]?\s*$",
    re.IGNORECASE,
)


def strip_quoted(text: str) -> str:
    """Cut the text at the first reply header or quoted block."""
    lines = text.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith(">"):
            break
        if any(p.match(line) for p in _REPLY_HEADERS[:3]):
            break
        if _REPLY_HEADERS[3].match(line) and i + 1 < len(lines) and any(_OUTLOOK_NEXT.match(n) for n in lines[i + 1 : i + 4]):
            break
        out.append(line)
    return "\n".join(out)


def strip_signature(text: str) -> str:
    """Cut at a signature delimiter or a closing formula followed only by a short name block."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _SIGNATURE_START.match(line):
            return "\n".join(lines[:i])
    for i, line in enumerate(lines):
        rest = [ln for ln in lines[i + 1 :] if ln.strip()]
        if _CLOSINGS.match(line) and len(rest) <= 4 and all(len(ln) < 60 and "?" not in ln for ln in rest):
            return "\n".join(lines[:i])
    return text


def strip_greeting(text: str) -> str:
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or _GREETING.match(lines[0])):
        lines.pop(0)
    return "\n".join(lines)


def clean_text(text: str) -> str:
    """The student's own words: no quoted thread, no signature, no greeting line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = strip_quoted(text)
    text = strip_signature(text)
    text = strip_greeting(text)
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
