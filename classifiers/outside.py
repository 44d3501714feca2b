"""Another body's own service (a bank's business, a public registry's document), another field's people, a profession's pay,
someone else's school business, and the office's own hours: cues read at decision time.

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
    r"credito\s+(?:personal|hipotecario|fiscal|prendario)|transferencia\w*\s+(?:a|de)\s+otro\s+banco|transferencias?\s+internacional\w*|estado\s+de\s+cuenta|banca\s+(?:en\s+linea|movil)|"
    rf"{_BANK}\s+(?:\w+\s+){{0,3}}?(?:cobra|cobran|comision\w*))\b"
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


# Whose business, read at decision time only (IntentModel.row with rules=True; the classifier is fitted without them).
# Another faculty named by the people of its profession ("el trámite de colegiado para los abogados", "a los contadores
# públicos qué les piden"): whose procedure is asked. Plural, so "un certificado médico" or "el médico me dio" does not
# fire; not said of the faculty's own staff ("los contadores de la facultad"), nor in a message about the student's own
# case (first person: "los médicos del IGSS me dieron una suspensión").
_FIELD_PEOPLE = re.compile(
    r"\b(?:abogad[oa]s|medic[oa]s(?!\s+(?:de|del)\s+(?:la\s+)?(?:facultad|u|usac|clinica|unidad))|odontolog[oa]s|dentistas|psicolog[oa]s|arquitect[oa]s|agronom[oa]s|veterinari[oa]s|zootecnistas|"
    r"contador(?:es|as)(?:\s+publicos)?|auditores|economistas|periodistas|comunicadores|farmaceutic[oa]s|quimicos\s+biologos|enfermer[oa]s|nutricionistas|"
    r"biolog[oa]s|pedagog[oa]s|notarios|trabajador(?:es|as)\s+sociales|historiadores|antropolog[oa]s|sociolog[oa]s|politolog[oa]s|licenciad[oa]s\s+en\s+(?!ingenieria)\w+)\b"
    r"(?!\s+(?:de|del)\s+(?:la\s+)?(?:facultad|facu|escuela|u|usac|universidad)\b)"
)
# The campus's own professionals ("¿hay psicólogos en la facultad?", "los médicos de la clínica"): a campus service.
_CAMPUS_STAFF = re.compile(r"\bhay\s+(?:\w+\s+)?$|\b(?:la|esta|nuestra)\s+(?:facultad|facu|u|usac|universidad|clinica)\b(?!\s+de\s+(?!ingenieria\b))|\bunidad\s+de\s+salud\b|\bbienestar\b")
_FIRST_PERSON = re.compile(r"\b(?:me|mi|mis|yo|tengo|necesito|quiero|soy|estoy|estudio|curso|llevo)\b")
# A profession's pay (how well a field pays, what a graduate earns): a job question. Not the office's own programmes'
# pay (an EPS, a practice, a teaching assistantship, a grant), which the documents may describe.
_PAY_OF_WORK = re.compile(
    r"\b(?:(?:paga|pagan|gana|ganan|cobra|cobran)\s+(?:(?:muy|tan|mas|menos)\s+)?(?:bien|mal|mejor|peor)\b|que\s+tan\s+(?:bien|mal)\s+(?:les?\s+)?(?:paga|pagan|gana|ganan)\b|"
    r"(?:cuanto|cuanta\s+plata|cuanto\s+dinero)\s+(?:les?\s+)?(?:pagan|paga|gana|ganan|cobra|cobran)\s+a\s+(?:un|una|los|las)\s|"
    r"que\s+tal\s+(?:les?\s+)?(?:paga|pagan|gana|ganan)\b|(?:cuanto|que\s+tal)\s+(?:gana|ganan)\s+(?:en\s+(?:un|una|el|la|las|los)\b|al\s+mes|al\s+ano|por\s+mes|mensual))"
)
_PROGRAMME = re.compile(r"\b(?:eps|e\.p\.s|ehps|practica\w*|practicante\w*|auxiliar\w*|auxiliatura\w*|beca\w*|becad[oa]s?)\b")
_PAY_WORD = re.compile(r"\b(?:salario\w*|salarial|sueldo\w*|(?:les?\s+)?(?:paga|pagan)\s+(?:mas|menos|bien|mal))\b")


def people_of_other_fields(folded: str) -> int:
    """How many times a folded text names another field by the people of its profession ("para los abogados"), outside
    the student's own case (first person) and the campus's own staff ("¿hay psicólogos en la facultad?")."""
    if _FIRST_PERSON.search(folded) or _CAMPUS_STAFF.search(folded):
        return 0
    return sum(1 for m in _FIELD_PEOPLE.finditer(folded) if not _CAMPUS_STAFF.search(folded[max(0, m.start() - 16) : m.start()]))


def profession_pay(folded: str) -> bool:
    """A profession's pay asked ("qué tan bien pagan a un ingeniero", "¿qué carrera paga mejor?"), not the pay of one of
    the office's own programmes (an EPS, a practice, an assistantship, a grant)."""
    return not _PROGRAMME.search(folded) and bool(_PAY_OF_WORK.search(folded))


def programme_without_pay(folded: str) -> str | None:
    """When the text names one of the office's own programmes, the text without its pay words ("¿el EPS es con sueldo?"
    asks about the programme, not a job); None when it names none."""
    return _PAY_WORD.sub(" ", folded) if _PROGRAMME.search(folded) else None


# Someone else's school business ("la inscripción de mi hermano en el colegio", "la constancia de estudios de mi hijo del
# colegio", "mi prima quiere entrar a magisterio"): a relative or a friend and a school below the university, with
# nothing of the university in the message. A relative who comes to this faculty ("mi hermano sale del instituto y
# quiere entrar a ingeniería") names it, and is its business.
_RELATIVE = re.compile(
    r"\b(?:mi|mis|su|sus)\s+(?:herman[oa]s?|hij[oa]s?|prim[oa]s?|sobrin[oa]s?|niet[oa]s?|mama|papa|madre|padre|novi[oa]|espos[oa]|"
    r"ti[oa]s?|abuel[oa]s?|cunad[oa]s?|vecin[oa]s?|amig[oa]s?|patojos?|patojas?|nene|nena)\b"
)
_SCHOOL = re.compile(
    r"\b(?:colegio(?!\s+de\s+(?:ingenieros|profesionales))|escuelita|escuela\s+(?:primaria|publica|oficial|normal|de\s+parvulos)|instituto|liceo|"
    r"kinder|preprimaria|parvulos|primaria|(?:primero|segundo|tercero)\s+basico|basicos|diversificado|bachillerato|magisterio)\b"
)
_UNIVERSITY = re.compile(
    r"\b(?:usac|san\s+carlos|universidad\w*|u|uni|facultad|facu|fiusac|ingenieria|ingeniero|carrera|pensum|semestre|eps|admision|primer\s+ingreso|"
    r"pruebas?\s+(?:basicas|especificas|de\s+conocimientos)|orientacion\s+vocacional)\b"
)


def someone_elses_school(folded: str) -> bool:
    """A relative's or a friend's business with a school below the university, and nothing of the university named."""
    return bool(_RELATIVE.search(folded) and _SCHOOL.search(folded) and not _UNIVERSITY.search(folded))


# The office's own hours and attention ("¿la oficina atiende los sábados?", "el sábado hay alguien en control académico?",
# "¿a qué hora abren control académico?"): the student's business with the office even when its documents do not say.
# Not another body's hours (a bank's window, a registry's office), which `outside_service` reads.
_OFFICE_HERE = re.compile(
    r"\b(?:control\s+academico|(?:la|las|esta|su|sus)\s+oficinas?(?!\s+(?:del?|de\s+la)\s+(?!facultad|escuela|control))|ventanilla|"
    r"(?:la\s+)?secretaria\s+(?:de\s+la\s+facultad|academica|de\s+(?:la\s+)?escuela)|registro\s+y\s+estadistica|(?:la\s+)?coordinacion\s+academica)\b"
)
_OPEN = re.compile(
    r"\b(?:atiend\w*|atencion|abre|abren|abierto|abierta|cierra\w*|cerrad[oa]|horario\w*|a\s+que\s+hora|hay\s+alguien|trabajan|sabados?|domingos?|asueto|feriados?)\b"
)
_OTHER_BODY = re.compile(rf"\b(?:{_BANK}|renap|migracion|sat|muni|municipalidad|igss|registro\s+de\s+la\s+propiedad|pnc|policia|hospital|embajada|consulado)\b")


def office_hours(folded: str) -> bool:
    """The office's own hours or attention asked (its place named with an opening word), no other body named."""
    return bool(_OFFICE_HERE.search(folded) and _OPEN.search(folded) and not _OTHER_BODY.search(folded))
