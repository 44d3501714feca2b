"""Automatic mail that carries no RFC 3834 header: out-of-office replies and delivery-failure notices, told by their words.

Mail servers and clients in Spanish often send "Respuesta automática", "Estoy fuera de la oficina hasta…" or "No se pudo
entregar el mensaje" without Auto-Submitted, Precedence or a multipart/report body. They are recognised by their
subject and body, but a student who mentions holidays or a failed delivery while asking something is never taken for
one: a message that asks ("?") or requests in the first person ("necesito", "quisiera", "solicito") is only skipped
when it says outright that it was generated automatically.
"""

from __future__ import annotations

import re

# The subject says so outright: an automatic reply or a receipt, whatever the body asks.
_EXPLICIT_SUBJECT = re.compile(
    r"^\s*(?:\[?auto\]?\s*:|respuesta\s+autom[aá]tica|contestaci[oó]n\s+autom[aá]tica|mensaje\s+autom[aá]tico|acuse\s+de\s+recibo|"
    r"confirmaci[oó]n\s+de\s+(?:recepci[oó]n|lectura)|le[ií]do\s*:|automatic\s+reply|auto[- ]?reply|autoresponder|read\s*:|delivered\s*:|receipt\s+confirmation)",
    re.IGNORECASE,
)
# The subject suggests an absence: a student's "Ausencia al parcial" or "Vacaciones: ¿abren?" may start the same way.
_ABSENCE_SUBJECT = re.compile(
    r"^\s*(?:fuera\s+de\s+(?:la\s+)?oficina|(?:ausencia|ausente)\s*(?::|-|\(|$)|out\s+of\s+(?:the\s+)?office|away\s+from|vacation|vacaciones\s*:|de\s+vacaciones\b|de\s+licencia\b)",
    re.IGNORECASE,
)
# Delivery-failure notices by subject (Gmail, Exchange, Postfix, Exim, in Spanish and English).
_BOUNCE_SUBJECT = re.compile(
    r"^\s*(?:delivery\s+status\s+notification|undeliver(?:able|ed)\b|mail\s+delivery\s+(?:failed|failure|subsystem)|returned\s+mail|delivery\s+failure|"
    r"failure\s+notice|no\s+se\s+(?:puede|pudo|ha\s+podido)\s+entregar|(?:mensaje|correo)\s+no\s+entregado|no\s+entregado\s*:|"
    r"error\s+(?:de|en\s+la)\s+entrega|entrega\s+fallida|fallo\s+(?:de|en\s+la)\s+entrega|notificaci[oó]n\s+de\s+(?:estado\s+de\s+(?:la\s+)?)?entrega)",
    re.IGNORECASE,
)
# The body says outright that it was generated automatically.
_EXPLICIT_BODY = re.compile(
    r"este\s+(?:es\s+un\s+)?(?:mensaje|correo|email|e-mail)\s+(?:es\s+)?(?:autom[aá]tico|generado\s+autom[aá]ticamente)|esta\s+es\s+una\s+respuesta\s+autom[aá]tica|"
    r"(?:respuesta|mensaje)\s+(?:generad[oa]\s+)?autom[aá]tic[oa]\s*[,:.]|(?:hemos|he)\s+recibido\s+su\s+(?:mensaje|correo|consulta|solicitud)\b[^.]{0,20}[.,]?\s*(?:y\s+)?[^.]{0,80}?\b(?:responderemos|le\s+responder[eé]|ser[aá]\s+atendid[oa]|se\s+comunicar[aá]|nos\s+comunicaremos|a\s+la\s+brevedad)|"
    r"acusamos\s+recibo|this\s+is\s+an\s+automat(?:ic|ed)\s+(?:reply|response|message)|thank\s+you\s+for\s+your\s+(?:e-?mail|message)\.?\s+(?:we|i)\s+will\s+(?:get\s+back|respond|reply)",
    re.IGNORECASE,
)
# What an out-of-office reply says; one is telling on its own, the others count in pairs.
_ABSENT = re.compile(
    r"(?:estar[eé]|me\s+encuentro|estoy|permanecer[eé])\s+(?:fuera\s+de\s+(?:la\s+)?oficina|ausente|de\s+vacaciones|de\s+licencia|de\s+permiso|sin\s+acceso\s+(?:a\s+mi|al)\s+correo|"
    r"(?:en|de)\s+(?:un\s+|una\s+)?(?:congreso|viaje|comisi[oó]n|capacitaci[oó]n|incapacidad|descanso)\b)|"
    r"i\s+am\s+(?:currently\s+)?out\s+of\s+(?:the\s+)?office|i\s+will\s+be\s+out\s+of\s+(?:the\s+)?office|i\s+am\s+(?:currently\s+)?away",
    re.IGNORECASE,
)
_ABSENCE_SIGNS = re.compile(
    r"(?:fuera\s+de\s+(?:la\s+)?oficina|de\s+vacaciones|de\s+licencia|ausente|durante\s+mi\s+ausencia|a\s+mi\s+regreso|a\s+mi\s+vuelta|me\s+reincorpor\w+|"
    r"acceso\s+limitado\s+(?:al|a\s+mi)\s+correo|sin\s+acceso\s+(?:al|a\s+mi)\s+correo|responder[eé]\s+(?:su|tu|a\s+su|a\s+tu)\s+(?:mensaje|correo|consulta)|"
    r"(?:para|en\s+caso\s+de)\s+(?:asuntos|temas|consultas)\s+urgentes|(?:comun[ií]quese|contacte|escriba|diríjase|dirigirse)\s+(?:con|a)\b|"
    r"gracias\s+por\s+(?:su|tu)\s+(?:mensaje|correo)|hasta\s+el\s+(?:d[ií]a\s+)?(?:\d{1,2}\b|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)|"
    r"(?:estar[eé]|estoy)\s+de\s+(?:vuelta|regreso)|(?:vuelvo|regreso)\s+el\b|no\s+(?:estoy|estar[eé])\s+disponible|"
    r"\bback\s+(?:next|on|in|by)\b|\buntil\s+\w+|limited\s+access\s+to\s+(?:my\s+)?e-?mail)",
    re.IGNORECASE,
)
# What a delivery-failure notice says.
_BOUNCE_SIGNS = re.compile(
    r"(?:no\s+se\s+(?:pudo|ha\s+podido|puede)\s+entregar|no\s+(?:pudo|ha\s+podido)\s+ser\s+entregado|mensaje\s+no\s+(?:fue\s+)?entregado|error\s+permanente|"
    r"la\s+direcci[oó]n\s+(?:\S+\s+)?no\s+(?:existe|se\s+encontr[oó]|fue\s+encontrada)|no\s+se\s+encontr[oó]\s+la\s+direcci[oó]n|buz[oó]n\s+(?:lleno|no\s+disponible|inexistente)|"
    r"could\s+not\s+be\s+delivered|delivery\s+(?:has\s+)?failed|address\s+not\s+found|user\s+unknown|mailbox\s+(?:unavailable|full|not\s+found)|"
    r"the\s+following\s+(?:message|address(?:es)?)\s+(?:to|had|failed)|permanent\s+(?:fatal\s+)?error|remote\s+server\s+returned|diagnostic-code|"
    r"\b[45]\d\d[\s-]+[45]\.\d{1,3}\.\d{1,3}\b)",
    re.IGNORECASE,
)
_SMTP_STATUS = re.compile(r"\b[45]\d\d[\s-]+[45]\.\d{1,3}\.\d{1,3}\b|\bdiagnostic-code\s*:|\bstatus\s*:\s*[45]\.\d", re.IGNORECASE)
# A student asking or requesting something in the first person.
_ASKS = re.compile(r"[?¿]|\b(?:necesito|necesitar[ií]a|quisiera|quiero|solicito|ocupo|me\s+urge|me\s+gustar[ií]a|quer[ií]a\s+(?:saber|consultar|preguntar|pedir))\b", re.IGNORECASE)


def automatic_reason(subject: str, body: str) -> str | None:
    """Why this mail is an automatic reply or a delivery-failure notice ("category: detail"), or None for a person's mail."""
    subject, body = subject or "", (body or "")[:4000]
    explicit = _EXPLICIT_SUBJECT.match(subject)
    if explicit and (":" in explicit.group(0) or subject[explicit.end():].lstrip().startswith(":") or not _ASKS.search(body)):
        return "auto_reply: the subject says it is an automatic reply"  # a client's prefix ("Respuesta automática: Re: …"), or a body that asks nothing
    if _EXPLICIT_BODY.search(body):
        return "auto_reply: the body says it is an automatic reply"
    asks = bool(_ASKS.search(body))
    bounce_signs = len({m.group(0).lower() for m in _BOUNCE_SIGNS.finditer(body)})
    if _SMTP_STATUS.search(body) and bounce_signs >= 2 or (not asks and (bounce_signs >= 2 or (_BOUNCE_SUBJECT.match(subject) and bounce_signs >= 1))):
        return "bounce: the notice says the message could not be delivered"
    if asks:
        return None
    if _BOUNCE_SUBJECT.match(subject) and not body.strip():
        return "bounce: the subject says the message could not be delivered"
    absence_signs = len({m.group(0).lower() for m in _ABSENCE_SIGNS.finditer(body)})
    if _ABSENT.search(body) and (absence_signs >= 1 or _ABSENCE_SUBJECT.match(subject)):
        return "auto_reply: an out-of-office reply"
    if _ABSENCE_SUBJECT.match(subject) and absence_signs >= 1:
        return "auto_reply: an out-of-office reply"
    return None
