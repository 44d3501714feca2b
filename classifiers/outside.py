"""Another body's own service: a bank's business, a public registry's document.

A student asks the office about a bank branch's hours, opening an account or a card, or about getting a national ID, a
passport or a criminal record. The words are close to the office's (a payment, a document, a procedure, "¿dónde lo
saco?"), so the classifier, which weighs vocabulary, rates such a message as it rates the office's own; what decides
is whose service it is. A bank or a registry that only carries the office's business ("pagué la inscripción en el
Banrural", "me piden el DPI para inscribirme", "una constancia para el banco") is no such request: a message that
names the office's own business does not fire it.
"""

from __future__ import annotations

import re

# A bank by name or by kind, and its own things: a branch, an account, a card, a loan, a transfer between banks.
_BANK = r"(?:banco\w*|banrural|bi|bam|g&t|g\s*y\s*t|bac|promerica|ficohsa|agromercantil|inmobiliario|cooperativa\w*|financiera\w*)"
_BANK_BUSINESS = re.compile(
    rf"\b(?:(?:agencia|sucursal|cajero|ventanilla)s?\s+(?:automatico\s+)?(?:del?|en\s+el)\s+(?:\w+\s+)?{_BANK}|{_BANK}\s+(?:\w+\s+){{0,5}}?(?:abre|cierra|atiende|horario)|"
    r"(?:abr\w*|cancel\w*|cerrar|cierro|bloque\w*|desbloque\w*|renov\w*|activ\w*|sac(?:o|ar))\s+(?:\w+\s+){0,2}?(?:cuenta|tarjeta)s?(?:\s+(?:de|del)\s+\w+)?|"
    r"tarjetas?\s+de\s+(?:credito|debito)|cuentas?\s+(?:de\s+ahorros?|monetaria\w*|bancaria\w*)|"
    rf"{_BANK}\s+(?:\w+\s+){{0,3}}?prestamo\w*|prestamo\w*\s+(?:\w+\s+){{0,3}}?{_BANK}|fiador\w*|"  # a loan of money, not the campus's loan of a laptop
    r"prestamo\w*\s+(?:personal|hipotecario|bancario|(?:para|de|del)\s+(?:(?:un|una|el|la|mi)\s+)?(?:carro|casa|moto|vivienda|negocio))|"
    r"credito\s+(?:personal|hipotecario|fiscal|prendario)|transferencia\w*\s+(?:a|de)\s+otro\s+banco|estado\s+de\s+cuenta|banca\s+(?:en\s+linea|movil))\b"
)
# A document or a service of a public registry, asked for itself: get, renew, replace it, its price or delay, where to.
# Not the document asked of the student ("allí le solicitarán el DPI", "me piden la cédula"): that is a requirement.
_NATIONAL_DOC = (
    r"(?:dpi|cedula(?:\s+de\s+vecindad)?|pasaporte|licencia\s+(?:de\s+(?:conducir|manejo)|tipo\s+\w)|antecedentes\s+(?:penales|policiacos|policiales)|"
    r"partida\s+de\s+nacimiento|certificado\s+de\s+nacimiento|acta\s+de\s+nacimiento|nit|boleto\s+de\s+ornato|visa|rtu|tarjeta\s+de\s+circulacion|placas?)"
)
_DOC_SERVICE = re.compile(
    r"\b(?:sac(?:o|a|an|ar|arme|arlo|arla)|tramit\w*|renuev\w*|renov\w*|obten\w*|repon\w*|reemplaz\w*|reimpri\w*|emit\w*|entreg\w*|hac(?:er|en)|"
    r"cuest\w*|cobr\w*|tard\w*|vence\w*|venci\w*|requisitos?\s+(?:para|de)|cita\s+para)\s+"
    rf"(?:\w+\s+){{0,3}}?(?:el|la|los|las|mi|mis|un|una)?\s*{_NATIONAL_DOC}\b"
    rf"|\b{_NATIONAL_DOC}\s+(?:\w+\s+){{0,2}}?(?:por\s+primera\s+vez|nuevo|nueva|vencid[oa]|en\s+linea|por\s+internet|se\s+(?:saca|tramita|renueva|tarda))\b"
    r"|\b(?:renap|migracion|sat|muni(?:cipalidad)?|registro\s+de\s+la\s+propiedad|pnc|policia)\b\s+(?:\w+\s+){0,3}?(?:abre|cierra|atiende|horario|entrega\w*|tarda\w*)"
    r"|\b(?:horario|a\s+que\s+hora\s+(?:abre|cierra|atiende)\w*)\s+(?:\w+\s+){0,3}?(?:del?|en|el|la)\s+(?:la\s+)?(?:renap|migracion|sat|muni(?:cipalidad)?|registro\s+de\s+la\s+propiedad)\b"
)
# The office's own business named in the same message: then the bank or the registry only carries it.
_OFFICE_BUSINESS = re.compile(
    r"\b(?:inscri\w*|matricula\w*|boleta\w*|orden\s+de\s+pago|retrasada\w*|examen\w*|curso\w*|laboratorio\w*|asign\w*|cuota\w*|solvencia\w*|"
    r"carne|carnet|titulo|graduacion|eps|practica\w*|constancia\w*|certificacion\w*|facultad|facu|usac|ingenieria|semestre\w*|equivalencia\w*|"
    r"traslado|expediente|pensum|control\s+academico|beca\w*|tesis|cierre)\b"
)


def outside_service(folded: str) -> bool:
    """Another body's own service asked for (a bank's branch, account, card or loan; a national document or a public
    registry's office) in a folded text that names none of the office's own business."""
    if _OFFICE_BUSINESS.search(folded):
        return False
    return bool(_BANK_BUSINESS.search(folded) or _DOC_SERVICE.search(folded))
