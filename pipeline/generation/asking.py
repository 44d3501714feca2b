"""What a question asks: its kind of answer (deadline, cost, yes/no, procedure, ...), the object it is about and the period it names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from pipeline.generation.lexical import query_keys
from pipeline.text import fold

# '¿Cómo + a verb in the first person?' asks for the steps whatever the verb ('¿cómo reválido…?', '¿cómo pido…?', '¿cómo la
# renuevo?'): a word in -o after 'cómo', optionally after an object pronoun, that is not a participle ('como egresado') nor
# one of the words 'como' (unaccented once folded) introduces as a comparison or a role ('como mínimo', 'como requisito').
_NOT_A_VERB = r"(?:minimo|maximo|requisito|ejemplo|nuevo|primero|segundo|tercero|ultimo|medio|mucho|poco|tanto|mismo|caso|resultado|titulo|grupo|plazo|modo|cuando|cuanto|dato|credito|curso|ciclo|punto|trabajo|tiempo|alumno|oyente|becario|auxiliar)"
_FIRST_PERSON_HOW = rf"\bcomo (?:(?:lo|la|los|las|le|les|me|te|nos) )?(?!{_NOT_A_VERB}\b)[a-z]{{2,}}(?<!ad)o\b"

# Kinds, most specific first: '¿qué pasa si repruebo?' is a consequence, '¿puedo asignarme...?' a yes/no question.
KINDS = ("consequence", "yes_no", "procedure", "date", "time", "amount", "place", "role", "count", "requirement", "other")

_KIND_PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("consequence", re.compile(r"\bque (?:pasa|sucede|ocurre|hago) (?:si|cuando)\b|\bconsecuencia|\bsancion|\bme (?:descubren|sorprenden|pillan)\b|\bque (?:pasa|sucede) con\b")),
    ("yes_no", re.compile(r"(?:^|[¿,.;]\s*)(?:y )?(?:yo )?(?:puedo|me puedo|podria|se pueden?|se podra|es posible|tengo derecho|me corresponde|es cierto|es obligatori[oa]|tengo que|debo|hay que|existe|hay|se permite|me pueden|pueden|es valid[oa]|es compatible|son compatibles|cuenta|aplica|es necesario|necesito)\b"
                         r"|(?:^|[¿,.;]\s*)(?:y )?(?:el|la|los|las|este|esta) [^?]{0,60}?\b(?:es|son|sera|seran) (?:obligatori|compatible|necesari|valid|gratuit|opcional|optativ|acumulable)")),  # '¿La pasantía es obligatoria?' 
    ("procedure", re.compile(r"\bcomo (?:me |se |puedo |hago |debo |hay que |realizo |solicito |obtengo |genero |tramito |pago |reali|solicit|obten|inscrib|asign|recuper|acced|pued|hag|deb)|\bpasos?\b|\bprocedimiento|\bproceso (?:para|de)\b|\btramite (?:para|de)\b|\bque debo hacer\b|\bque tengo que hacer\b"
                             rf"|{_FIRST_PERSON_HOW}")),
    ("date", re.compile(r"\bcuando\b|\bfecha|\bplazo|\bhasta que dia|\bque dia|\bvence|\bcon cuanto tiempo|\bantes de que\b|\bdentro de cuanto")),
    ("time", re.compile(r"\bhorarios?\b|\ba que hora|\bhora\b|\batiende")),
    ("amount", re.compile(r"\bcuanto (?:sale|cuesta|vale|cobran|se paga|hay que pagar|pago|es el costo)|\bcosto|\bprecio|\barancel|\bcuota|\bgratis|\bgratuit|\bmonto")),
    ("place", re.compile(r"\bdonde\b|\bsitio web|\bpagina\b|\benlace|\blink\b|\bportal\b|\bcorreo\b|\ben que (?:lugar|oficina|sitio)")),
    ("role", re.compile(r"\bquien(?:es)?\b|\bresponsable|\bencargad|\bque (?:oficina|unidad|dependencia|autoridad)")),
    ("count", re.compile(r"\bcuant[oa]s\b|\bcuanto tiempo|\bminim[oa]s?\b|\bmaxim[oa]s?\b|\bcon cuanto (?:se gana|se aprueba|se pasa|gano|apruebo|paso)\b|\b(?:que|cual es la|cuanta|una|la) nota (?:necesit|minima|maxima|de aprobacion|para|hay que|se necesita|debo|tengo que)|\bque nota\b|\bque (?:punteo|puntaje)\b|\bcuantos puntos\b|\bporcentaje|\bcreditos\b")),
    ("requirement", re.compile(r"requisit|prerrequisit|prerequisit|\bque necesito\b|\bque se necesita|\bque (?:mas )?(?:documentos|papeles|documentacion|recaudos)\b"
                               r"|\b(?:documentos|papeles|documentacion) (?:necesito|piden|se piden|hay que|tengo que|debo|se necesitan)\b"
                               r"|\bque (?:mas )?(?:debo|tengo que|hay que|necesito|se debe) (?:presentar|entregar|tener|aprobar|adjuntar|llevar|traer|mandar|enviar)|\bcondicion")),
)

# Words that say which kind of answer is wanted, not what it is about ('fecha', 'costo', 'requisitos', 'pasos').
TYPE_WORDS = tuple(
    "fecha fechas plazo plazos costo costos precio cuota cuotas monto requisito requisitos prerrequisito prerrequisitos pasos paso "
    "procedimiento proceso tramite lugar sitio oficina horario horarios hora pasa sucede ocurre consecuencia consecuencias "
    "necesito necesita debo tengo puedo podria posible obligatorio permite saber quisiera gustaria informacion favor despues luego ahora "
    "dia dias cuantos cuantas minimo maximo existe".split()
)
_TYPE_WORDS = frozenset(query_keys(" ".join(TYPE_WORDS)))

_INTERROGATIVE = re.compile(r"\b(?:cuándo|cómo|qué|dónde|cuánt[oa]s?|quién(?:es)?|cuál(?:es)?)\b", re.IGNORECASE)  # accented: "qué" asks, "que" does not
_YEAR = re.compile(r"\b(20\d{2})\b")
_NEGATIVE_Q = re.compile(r"\b(?:no (?:puedo|alcanzo|llego|tengo|apruebo|me)|reprob|perd[ií]|pierdo)")


@dataclass(frozen=True, slots=True)
class Asked:
    """The question's kind of answer, the keys of the object it is about, the years it names and the message's date."""

    kind: str
    object_keys: tuple[str, ...] = ()
    years: frozenset[int] = field(default_factory=frozenset)
    today: date | None = None
    negative: bool = False  # the student describes a failure ('no aprobé', 'reprobé'): the rule for that case applies

    @property
    def yes_no(self) -> bool:
        return self.kind == "yes_no"


def kind_of(question: str) -> str:
    """The question's kind of answer (one of KINDS), read on the interrogative part when there is one; of a message that
    asks several questions, the first one's that says its kind ('¿Dónde la saco? ¿Tengo que ir en persona?' asks a place)."""
    for part in asked_parts(question):
        kind = _kind(fold(part))
        if kind != "other":
            return kind
    return "other"


def kinds_asked(question: str) -> list[str]:
    """The kind of each interrogative sentence of the message, in order (one per '¿…?')."""
    return [_kind(fold(p)) for p in asked_parts(question)]


# '¿Cuánto vale(n) … dentro de la zona / sobre la nota?' asks a weight in the grade, not a price (folded).
_GRADE_WEIGHT = re.compile(r"\b(?:cuanto (?:vale|valen)|valor)\b(?=.*\b(?:nota|notas|zona|punteo|calificacion|promedio|porcentaje|puntos)\b)")


def grade_weight(text: str) -> bool:
    """Whether a (folded) question asks how much something weighs in a grade ('¿Cuánto valen los parciales dentro de la
    zona?'): a number of points or a share, not an amount of money."""
    return bool(_GRADE_WEIGHT.search(text))


def _kind(text: str) -> str:
    for name, pattern in _KIND_PATTERNS:
        if name == "amount" and grade_weight(text):
            continue  # a weight in the grade: the count pattern reads it
        if pattern.search(text):
            return name
    return "count" if grade_weight(text) else "other"


def asked_parts(question: str) -> list[str]:
    """The interrogative sentences of a message (all of it when none is)."""
    parts = [p for p in re.split(r"(?<=[?.!])\s+|\n+", question) if p.strip()]
    return [p for p in parts if "?" in p] or [p for p in parts if _INTERROGATIVE.search(p)] or parts or [question]


def object_keys(question: str) -> tuple[str, ...]:
    """Content keys of the asked sentences that name what they are about (the words that only say the kind of answer removed)."""
    return tuple(dict.fromkeys(k for k in query_keys(" ".join(object_parts(question))) if k not in _TYPE_WORDS))


_PRONOUN = re.compile(r"\b(?:la|lo|las|los)\s+(?:pido|pid[oa]|saco|sac[oa]|consigo|tramito|solicito|obtengo|hago|renuevo|presento|pago|gestiono|descargo|imprimo|retiro|entrego|necesito|uso)\b|\b\w{3,}(?:ar|er|ir)(?:la|lo|las|los)\b", re.IGNORECASE)


def object_parts(question: str) -> list[str]:
    """The asked sentences, each with what it refers back to by a pronoun in the sentence before it ('Necesito una
    escolaridad para el trabajo. ¿Cómo *la* pido?': the object is the escolaridad): the noun phrase the pronoun stands
    for when it is found (`pronoun_object`), else that whole sentence."""
    parts = [p for p in re.split(r"(?<=[?.!])\s+|\n+", question) if p.strip()]
    asked = asked_parts(question)
    out: list[str] = []
    for i, p in enumerate(parts):
        if p not in asked:
            continue
        if i > 0 and parts[i - 1] not in asked and _PRONOUN.search(p.split("¿")[-1]):
            ref = pronoun_object(p, parts[i - 1])
            out.append(ref[0] if ref else parts[i - 1])
        out.append(p)
    return out or asked


# The article (or determiner) a clitic pronoun's antecedent starts with, by the pronoun's gender and number: '¿Dónde *la*
# saco?' refers to 'una constancia…', '¿Cómo *lo* pido?' to 'un certificado…'. Folded.
_DETERMINERS = {
    "la": r"una|la|esta|esa|mi|nuestra",
    "lo": r"un|el|este|ese|mi|nuestro",
    "las": r"unas|las|estas|esas|mis|nuestras",
    "los": r"unos|los|estos|esos|mis|nuestros",
}
# A clitic pronoun stands before its verb right after the question opens, an interrogative, 'no', 'ya' or another
# clitic ('¿Dónde la saco?', '¿Me lo pueden enviar?'), or is glued to an infinitive ('¿Puedo renovarla?'); after a verb or a
# preposition 'la' is an article ('¿Dónde pago la matrícula?'). Folded.
_CLITIC = re.compile(
    r"(?:^|¿|\b(?:donde|como|cuando|cuanto|que|quien|no|ya|me|te|se|nos|le|les|tambien)\s+)(la|lo|las|los)\s+([a-z]{3,})\b"
    r"|\b[a-z]{3,}(?:ar|er|ir)(la|lo|las|los)\b"
)
# Where a noun phrase ends: a preposition other than 'de' (its complement: 'constancia de estudiante'), a conjunction, a relative.
_PHRASE_END = re.compile(r"\b(?:para|por|en|a|al|con|sin|desde|hasta|ante|sobre|entre|que|y|o|pero|porque|donde|cuando|como|si)\b|[,;:.!?()]")


def antecedent(sentence: str, pronoun: str) -> str | None:
    """The noun phrase of `sentence` that the clitic `pronoun` refers to: the first one opened by a determiner of the
    pronoun's gender and number, up to a preposition other than 'de' ('Necesito una constancia de estudiante para
    presentar en el BPS' → 'constancia de estudiante'); None when there is none."""
    text = fold(sentence)
    m = re.search(rf"\b(?:{_DETERMINERS[pronoun]})\s+(?=[a-z])", text)
    if not m:
        return None
    rest = text[m.end() :]
    end = _PHRASE_END.search(rest)
    phrase = " ".join((rest[: end.start()] if end else rest).split()[:5])
    return phrase if query_keys(phrase) else None


def pronoun_object(part: str, before: str) -> tuple[str, str] | None:
    """When the asked sentence `part` has a clitic pronoun for object ('¿Dónde la saco?'), the phrase of the sentence
    `before` it refers to and the verb it is the object of ('constancia de estudiante', 'saco'); None otherwise."""
    text = fold(part).strip()
    m = _CLITIC.search(text)
    if not m:
        return None
    pronoun, verb = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(0)[: -len(m.group(3))])
    if antecedent(text[: m.start()], pronoun):
        return None  # it refers to a phrase of its own sentence ('¿Hay forma de salvar el curso sin recursarlo?')
    phrase = antecedent(before, pronoun)
    return (phrase, verb) if phrase else None


_COUNTED = re.compile(r"\bcu[aá]nt[oa]s\s+([a-záéíóúñ]{3,})", re.IGNORECASE)


def counted(question: str) -> str | None:
    """The key of what a '¿cuántos X…?' question counts ('¿cuántos semestres dura…?' → semestres), None otherwise."""
    m = _COUNTED.search(" ".join(asked_parts(question)))
    keys = query_keys(m.group(1)) if m else []
    return keys[0] if keys else None


def ask(question: str, today: date | None = None) -> Asked:
    """What `question` asks, measured on the message's date (`today`)."""
    q = fold(question)
    return Asked(
        kind=kind_of(question),
        object_keys=object_keys(question),
        years=frozenset(int(y) for y in _YEAR.findall(q)),
        today=today,
        negative=bool(_NEGATIVE_Q.search(q)),
    )


def years_in(text: str) -> set[int]:
    """The years a text names (2020-2099)."""
    return {int(y) for y in _YEAR.findall(text)}


_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre")
_MONTH_YEAR = re.compile(r"\b(enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)(?: de(?:l)?)? (20\d{2})\b")


def period_score(text: str, asked: Asked) -> float:
    """+1 when the text's dates are current or to come, -1 when they are all past (and the question did not name their year), 0 without years."""
    ys = years_in(text)
    if not ys or asked.today is None:
        return 0.0
    if asked.years and ys & asked.years:
        return 1.0
    now = (asked.today.year, asked.today.month)
    months = [(int(y), _MONTHS.index(m.replace("setiembre", "septiembre")) + 1) for m, y in _MONTH_YEAR.findall(fold(text))]
    if months:
        return 1.0 if max(months) >= now else -1.0
    return 1.0 if max(ys) >= now[0] else -1.0
