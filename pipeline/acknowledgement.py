"""Acknowledgements and closings ("gracias", "ok, perfecto", "listo, ya lo hice"): messages that need no reply."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.redaction import strip_placeholders
from pipeline.text import fold

MAX_WORDS = 45  # a longer message says more than thanks: it is drafted normally

# What a closing says (folded text): thanks, agreement, "done", "understood", thumbs up.
_CUES = re.compile(
    r"\b(?:gracia\w*|agrade\w*|ok(?:ey|a)?|okk+|dale|listo|perfect\w*|genial|barbaro|buenisim\w*|excelente|joya|"
    r"de acuerdo|entendid\w*|recibid\w*|todo claro|quedo clar\w*|clarisim\w*|resuelt\w*|me sirvio|"
    r"ya (?:lo |la |los |las |me |te |se )?(?:hice|pude|mande|envie|esta|quedo|tengo|entendi|inscribi\w*|anote|hago|pido)|"
    r"ahi (?:lo |la |me )?(?:pido|hago|fijo|veo|entendi)|nos vemos|saludos)\b"
    r"|[\U0001F44D\U0001F44C\U0001F64C\U0001F64F\U0001F60A\U0001F642\u263A\u2764]"
)
# A new question or a new problem: something staff must answer.
_ASKS = re.compile(
    r"[?¿]"
    r"|\b(?:cuando|cuanto|cuanta|cuantos|cuantas|donde|cual|cuales|quien|como (?:hago|puedo|se|pido|es)|que (?:pasa|hago|tengo|necesito|debo))\b"
    r"|\b(?:necesit\w*|quisiera|queria|quiero saber|me gustaria|me podr\w*|podri\w*|pueden|se puede|hay que|"
    r"me falta\w*|falta saber|no entiendo|no me queda claro|sigo sin|no (?:me )?(?:puedo|pude|aparece|deja|llega|llego|funciona|anda|figura|encuentro|carga|sale)|"
    r"error|(?<!sin )problema|consulta|duda|otra cosa|otra pregunta|por otro lado|ademas|tambien)\b"
    # a question typed without "?" after the thanks: "ok gracias, y la beca tiene cupos todavía"
    r"|\b(?:y|pero) (?:el|la|los|las|si|para|del|con|en) \w+"
    r"|\b(?:todavia|aun|sigue|siguen) (?:hay|tiene|tienen|quedan?|esta|estan|abiert\w*)\b|\b(?:hay|quedan?|tiene|tienen) (?:cupos?|lugar\w*|plazo|fecha|turnos?)\b"
)
_WORD = re.compile(r"[a-zñ]+")


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """Whether a message only acknowledges or closes the exchange, and why."""

    closing: bool
    reason: str


def classify(text: str) -> Acknowledgement:
    """A closing with no new question (no draft, no reply) versus anything staff must read and answer."""
    folded = fold(strip_placeholders(text or ""))
    if not folded.strip():
        return Acknowledgement(False, "empty")
    asks = _ASKS.search(folded)
    if asks:
        return Acknowledgement(False, f"asks: {asks.group(0).strip()!r}")
    cue = _CUES.search(folded)
    if not cue:
        return Acknowledgement(False, "no closing words")
    words = len(_WORD.findall(folded))
    if words > MAX_WORDS:
        return Acknowledgement(False, f"long ({words} words)")
    return Acknowledgement(True, f"closing: {cue.group(0).strip()!r}")


def is_closing(text: str) -> bool:
    """True for "gracias", "ok, perfecto", "listo, ya lo hice" and the like when they carry no new question."""
    return classify(text).closing
