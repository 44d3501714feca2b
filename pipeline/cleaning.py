"""Cleaning student text: drop quoted earlier messages, signatures and greeting/closing boilerplate."""

from __future__ import annotations

import re

from pipeline.acknowledgement import is_closing

# ---------------------------------------------------------------- quoted earlier messages
_ATTRIBUTION = re.compile(
    r"^\s*(El|On|Le|Am|Em|Il|Op)\s.{0,300}?(escribi[óo]|wrote|a\s+[ée]crit|schrieb|escreveu|ha\s+scritto|schreef)\s*:?\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"^\s*(El|On|Le|Am|Em)\s.*\d", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(r"(escribi[óo]|wrote|a\s+[ée]crit|schrieb|escreveu)\s*:\s*$", re.IGNORECASE)
_SEPARATOR = re.compile(
    r"^\s*-{2,}\s*(Mensaje original|Original Message|Mensaje reenviado|Forwarded message|Message transféré|Mensagem original)\s*-{2,}\s*$"
    r"|^\s*-{5,}\s*(Original Message|Mensaje original)\s*-{5,}\s*$"
    r"|^\s*Begin forwarded message\s*:\s*$|^\s*Inicio del mensaje reenviado\s*:\s*$",
    re.IGNORECASE,
)
_FORWARD = re.compile(r"(reenviado|forwarded|begin forwarded|inicio del mensaje)", re.IGNORECASE)
_UNDERSCORES = re.compile(r"^\s*_{8,}\s*$")
_HEADER_FROM = re.compile(r"^\s*\**\s*(De|From|Von)\s*\**\s*:\s*\S.*$", re.IGNORECASE)
_HEADER_NEXT = re.compile(r"^\s*\**\s*(Enviado(\s+el)?|Sent|Fecha|Date|Para|To|Asunto|Subject|Cc|Gesendet|An|Betreff)\s*\**\s*:", re.IGNORECASE)

# ---------------------------------------------------------------- signatures and closings
_SIGNATURE_START = re.compile(
    r"^\s*(--\s*|—\s*|__+|Enviado desde mi \S.*|Enviado desde \S+ para \S.*|Sent from my \S.*|Sent from \S+ for \S.*|"
    r"Obtener Outlook para \S.*|Get Outlook for \S.*|Enviado con \S.*|Sent with \S.*|Descarga Outlook para \S.*)$",
    re.IGNORECASE,
)
_CLOSINGS = re.compile(
    r"^\s*(saludos(\s+cordiales)?|un saludo|saludos desde .*|muchas gracias|muchísimas gracias|gracias|mil gracias|desde ya,? muchas gracias|"
    r"desde ya,? gracias|gracias de antemano|de antemano,? gracias|atentamente|cordialmente|quedo a la espera.*|quedo atent[oa].*|"
    r"espero (su|tu|vuestra) respuesta.*|aguardo (su|tu) respuesta.*|abrazo|un abrazo|abrazos|besos|beso|cariños|slds|sds|bss|"
    r"best regards|kind regards|regards|best|thanks( a lot)?|thank you|many thanks|cheers)\b[^\n?]{0,40}$",
    re.IGNORECASE,
)
_NAME_LINE = re.compile(r"^[\w.'’\-()@+ ]{1,60}$")
_CONTACT = re.compile(r"@|\+?\d[\d\s\-]{5,}|\b(?:tel|cel|legajo|carn[eé]|matr[ií]cula|dni|c[eé]dula|exp)\b\.?\s*:?\s*[\d\[]", re.IGNORECASE)
_PLACEHOLDER_LINE = re.compile(r"^(?:\[[A-ZÁÉÍÓÚÑ_]+\][\s,.]*)+$")
_SENTENCE_END = re.compile(r"[.:!]\s*$")

# ---------------------------------------------------------------- greetings
_GREET_WORD = (
    r"(?:hola+|holis|buenas+(?:\s+(?:tardes|noches))?|buen\s+d[ií]a|buenos\s+d[ií]as|buenas\s+tardes|buenas\s+noches|che|"
    r"estimad[oa]s?|querid[oa]s?|se[ñn]or(?:es|as?)?|hello|hi|hey|dear|good\s+(?:morning|afternoon|evening))"
)
_COURTESY = r"(?:¿\s*(?:qu[ée] tal|c[óo]mo (?:est[aá]n|est[aá]s|andan|and[aá]s|va|les va|te va|le va)|todo bien)\s*\??)"
_GREETING_LINE = re.compile(
    rf"^\s*{_GREET_WORD}(?:\s+(?:a\s+)?(?:tod[oa]s|de nuevo|nuevamente|otra vez|gente|chicos|chicas|equipo|bedel[ií]a))?"
    rf"(?:[\s,.!¡:;]+(?:{_GREET_WORD}|{_COURTESY}))*"
    rf"(?:\s+[A-ZÁÉÍÓÚÑ][\w.]*(?:\s+[A-ZÁÉÍÓÚÑ][\w.]*){{0,3}})?[\s,.!:;]*(?:{_COURTESY}[\s!.]*)?(?:[^\w\s¿?]{{0,3}})?\s*$",
    re.IGNORECASE,
)
_GREETING_PREFIX = re.compile(rf"^\s*{_GREET_WORD}[\s,!.:;]*(?:{_COURTESY}[\s,!.]*)?(?=\S)", re.IGNORECASE)
_COURTESY_LINE = re.compile(rf"^\s*{_COURTESY}[\s!.]*$", re.IGNORECASE)


def _is_attribution(lines: list[str], i: int) -> int:
    """How many lines the reply attribution starting at line i spans (0 when it is not one)."""
    if _ATTRIBUTION.match(lines[i]):
        return 1
    if _ATTRIBUTION_START.match(lines[i]) and i + 1 < len(lines) and _ATTRIBUTION_END.search(lines[i + 1]) and len(lines[i]) + len(lines[i + 1]) < 400:
        return 2
    return 0


def _outlook_block(lines: list[str], i: int) -> bool:
    return bool(_HEADER_FROM.match(lines[i])) and sum(1 for n in lines[i + 1 : i + 6] if _HEADER_NEXT.match(n)) >= 1


def _forwarded_body(lines: list[str], start: int) -> str:
    """The text of a forwarded message: what follows its header block."""
    j = start + 1
    while j < len(lines) and (not lines[j].strip() or _HEADER_FROM.match(lines[j]) or _HEADER_NEXT.match(lines[j])):
        j += 1
    return "\n".join(ln for ln in lines[j:] if not ln.lstrip().startswith(">"))


def strip_quoted(text: str) -> str:
    """Remove quoted earlier messages: `>` lines with their attribution, and everything below a reply or Outlook header."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">"):
            i += 1
            continue
        span = _is_attribution(lines, i)
        if span:
            nxt = next((ln for ln in lines[i + span :] if ln.strip()), "")
            if nxt.lstrip().startswith(">"):  # quoted below: drop the attribution, keep any bottom-posted text
                i += span
                continue
            break
        if _SEPARATOR.match(line):
            if _FORWARD.search(line) and not "\n".join(out).strip():
                return _forwarded_body(lines, i)
            break
        if _UNDERSCORES.match(line) and any(_HEADER_FROM.match(n) for n in lines[i + 1 : i + 3]):
            break
        if _outlook_block(lines, i):
            break
        out.append(line)
        i += 1
    return "\n".join(out)


def strip_signature(text: str) -> str:
    """Cut at a signature delimiter, a closing formula followed by a short name block, or a trailing name line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if i > 0 and _SIGNATURE_START.match(line):
            lines = lines[:i]
            break
    for i, line in enumerate(lines):
        rest = [ln for ln in lines[i + 1 :] if ln.strip()]
        if _CLOSINGS.match(line) and is_closing(line) and len(rest) <= 4 and all(_signature_line(ln) for ln in rest):
            lines = lines[:i] if any(ln.strip() for ln in lines[:i]) else lines[: i + 1]  # a message that is only thanks keeps them
            break
    return _strip_trailing_name("\n".join(lines))


def _signature_line(line: str) -> bool:
    """A line of a signature block (a name, a title, a career, an ID or contact), not a sentence that says something."""
    line = line.strip()
    if len(line) >= 60 or "?" in line or "¿" in line:
        return False
    if _CONTACT.search(line) or _PLACEHOLDER_LINE.match(line) or _NAME_LINE.match(line) and len(line.split()) <= 3 and not _SENTENCE_END.search(line):
        return True
    words = [w for w in re.findall(r"[^\W\d_]+", line) if len(w) > 3]
    return bool(words) and sum(w[0].isupper() for w in words) >= max(1, len(words) - 1)  # "Licenciatura en Ciencias de la Educación", "Analista — Empresa S.A."


def _strip_trailing_name(text: str) -> str:
    """Drop a last paragraph of one or two short name-like lines (the sender's name) after the question."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    if len(paragraphs) < 2:
        return text
    last = [ln.strip() for ln in paragraphs[-1].splitlines() if ln.strip()]
    if 1 <= len(last) <= 2 and all(_NAME_LINE.match(ln) and len(ln.split()) <= 4 and ln[:1].isupper() and not ln.endswith((".", "?", ":")) for ln in last):
        return "\n\n".join(paragraphs[:-1])
    return text


def strip_greeting(text: str) -> str:
    """Drop greeting lines at the top, then a greeting at the start of the first line ("hola, ¿...", "buenas! ...")."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or _GREETING_LINE.match(lines[0]) or _COURTESY_LINE.match(lines[0])):
        lines.pop(0)
    if lines:
        rest = _GREETING_PREFIX.sub("", lines[0], count=1)
        if rest.strip() and rest != lines[0]:
            lines[0] = rest
    return "\n".join(lines)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t\u00a0]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def clean_text(text: str) -> str:
    """The student's own words: no quoted thread, no signature, no greeting or closing; never empties a greeting-only text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u200b", "")
    quoted_out = strip_quoted(text)
    unquoted = _tidy(strip_signature(quoted_out))
    cleaned = _tidy(strip_greeting(unquoted))
    return cleaned or unquoted or _tidy(quoted_out) or _tidy(text)  # cleaning never empties a message that had words
