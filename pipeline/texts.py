"""User-facing text (Spanish by default), kept in one place."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "greeting": "Hola:",
        "closing": "Saludos cordiales,\nOrientación Estudiantil — Facultad de Ingeniería",
        "according_to": "Según la documentación de la Facultad:",
        "no_info": (
            "Gracias por tu consulta. No encontramos información sobre este tema en la documentación "
            "de la Facultad. Un integrante del equipo la revisará y te responderá a la brevedad."
        ),
        "out_of_domain": (
            "Gracias por escribirnos. Este canal atiende consultas sobre trámites y reglamentos de la "
            "Facultad de Ingeniería (inscripciones, exámenes, créditos, becas, títulos, posgrados). "
            "Tu consulta parece estar fuera de ese ámbito, por lo que no podemos ayudarte con ella."
        ),
        "references": "Referencias:",
        "extractive_label": "Borrador extractivo (sin LLM): frases copiadas de los documentos; revisar antes de enviar.",
        "reply_subject_prefix": "Re: ",
    },
    "en": {
        "greeting": "Hello,",
        "closing": "Kind regards,\nStudent Services — Faculty of Engineering",
        "according_to": "According to the Faculty's documents:",
        "no_info": "Thank you for your question. We found no information about it in the Faculty's documents. A member of staff will get back to you.",
        "out_of_domain": "Thank you for writing. This channel answers questions about the Faculty of Engineering's procedures and regulations; your question seems to be outside that scope.",
        "references": "References:",
        "extractive_label": "Extractive draft (no LLM): sentences copied from the documents; review before sending.",
        "reply_subject_prefix": "Re: ",
    },
}


def t(key: str, lang: str = "es") -> str:
    """The user-facing text for `key` in `lang` (falls back to Spanish)."""
    return TEXTS.get(lang, TEXTS["es"]).get(key) or TEXTS["es"][key]
