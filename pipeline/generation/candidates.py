"""What a question asks for and what a unit gives (answer types), and the scored candidate units of one question.

The lowest layer of the offline drafter's choice of units: `selection` scores and selects candidates, `additions` decides
whether a further one answers a part the chosen ones leave open; both read these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from pipeline.chunking import Chunk
from pipeline.generation.asking import asked_parts, grade_weight
from pipeline.text import fold
from pipeline.units import Unit, extract_units

# Papers a student hands in: a unit naming them answers '¿qué documentos necesito?' (folded text).
_DOCUMENT = r"\b(?:fotocopias?|constancias?|certificad[oa]s?|formularios?|cedula|pasaporte|partida de nacimiento|fotografias?|fotos? carne|carta de|original y copia|copias? (?:de|del|simple|legalizada|autenticada)s?)\b"
# The lead-in or heading of a list of papers or requirements ('Documentación necesaria:', 'Hay que presentar:').
DOCS_LIST = re.compile(r"\bdocumentacion\b|\bdocumentos\b|\brecaudos\b|\bpresentar\b|\badjuntar\b|\bpapeles\b")
# A question that asks which papers or what else to hand in ('¿qué documentos necesito?', '¿qué más tengo que presentar?').
_DOCS_ASKED = (r"\bque (?:mas )?(?:documentos|papeles|documentacion|recaudos|constancias)\b|\b(?:documentos|papeles|documentacion) (?:necesito|piden|se piden|hay que|tengo que|debo|se necesitan)\b"
               r"|\bque (?:mas )?(?:necesito|debo|tengo que|hay que|se debe|se tiene que) (?:presentar|entregar|adjuntar|llevar|traer|mandar|enviar)\b")

# A length of time (folded), its figure also bracketed after a number word ('tres (3) días', '15 (quince) días').
AMOUNT_OF_TIME = r"(?:\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|quince|veinte|treinta|sesenta|noventa)\s+(?:\(\w+\)\s+)?(?:horas|dias|semanas|meses|anos)\b"
# A length of time that is a time limit: after a word that bounds or places it ('en un plazo de 15 días', 'dentro de los
# 3 días', 'máximo 30 días'), or before one ('5 días antes', '30 días calendario', '3 días hábiles'). 'Un Informe Final del
# EPS de 3 meses' says how long something lasts, not when it is due.
BOUNDED = (
    r"\b(?:plazo|dentro|antes|despues|posterior(?:es)?|siguientes?|maximo|minimo|hasta|partir|menos|mayor|menor|termino|transcurrid\w*|lapso|anticipacion|previo|previa|tarda\w*|dura\w*|durante|cada)\b(?:\W+\w+){0,3}?\W+" + AMOUNT_OF_TIME
    + r"|\b" + AMOUNT_OF_TIME + r"\s+(?:\w+\s+)?(?:antes|despues|posterior\w*|siguientes?|previos?|de anticipacion|a partir|habiles|calendario|contados?)\b"
)

# What a question asks for (on the folded question) and what a unit must contain to give it (on the folded unit).
ANSWER_TYPES: dict[str, tuple[re.Pattern, re.Pattern]] = {
    "date": (
        re.compile(r"\bcuando\b|\bfecha|\bplazo|\bhasta que dia|\bque dia|\b(?:que|cual es el|cuales son los|en que) periodos?\b|\bvence|\babren\b|\bcierran?\b|\bempiezan?\b|\bterminan?\b|\bcomienzan?\b"),
        re.compile(r"\b(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b(?:lunes|martes|miercoles|jueves|viernes|sabado|domingo)\b|\bdias? habiles\b|\b\d+ (?:dias|semanas|meses|anos)\b|" + BOUNDED + r"|\bantes de\b|\ba partir de\b|\bsemestre\b"
                   r"|\b(?:de|con) (?:anticipacion|antelacion)\b|\bplazo (?:de|no mayor|maximo|minimo)\b|\b(?:un|dos|tres|cuatro|cinco|\d+) periodos? de clases?\b"),
    ),
    "time": (
        re.compile(r"\bhorarios?\b|\ba que hora|\bhora\b|\batiende|\babre\b|\bcierra\b"),
        re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:h|hs|horas)\b|\ba\.?m\.?\b|\bp\.?m\.?\b"),
    ),
    "amount": (
        re.compile(r"\bcuanto (?:sale|cuesta|vale|cobran|se paga|hay que pagar|pago|es el costo)|\bcosto|\bprecio|\bpagar|\barancel|\bcuota|\bgratis|\bgratuit|\bvalor\b|\bmonto|\btasa\b"),
        re.compile(r"\$|\bq ?\d|\bquetzal|\bpesos\b|\bcuotas?\b|\bgratuit|\barancel|\bexonerad|\btasa\b|\bus\$|\bdolares\b|\bpago\b"),
    ),
    "count": (
        re.compile(r"\bcuant[oa]s\b|\bcuanto tiempo|\bminim[oa]s?\b|\bmaxim[oa]s?\b|\bcon cuanto (?:se gana|se aprueba|se pasa|gano|apruebo|paso)\b|\b(?:que|cual es la|cuanta|una|la) nota (?:necesit|minima|maxima|de aprobacion|para|hay que|se necesita|debo|tengo que)|\bque nota\b|\bque (?:punteo|puntaje)\b|\bcuantos puntos\b|\bporcentaje"),
        re.compile(r"\d|\b(?:uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta|cuarenta|cincuenta|cien)\b"),
    ),
    "requirement": (
        re.compile(r"requisit|prerrequisit|prerequisit|\bque necesito\b|\bnecesito (?:para|tener|haber)|\bdebo (?:aprobar|tener|haber)|\bantes de (?:llevar|cursar|tomar)|\bcondicion|\bpuedo (?:llevar|cursar|hacer|inscribir)|\bse requiere"),
        re.compile(r"requisit|prerrequisit|prerequisit|\bdebe(?:ra|n|s)?\b|\bes necesario\b|\bse requiere|\baprobad|\bhaber\b|\bcondicion|\bminimo\b|\bcontar con\b|\ba partir de\b|\bal menos\b"),
    ),
    "documents": (  # the papers to hand in: a unit that names them ('Fotocopia de la cédula', 'presentar la escolaridad')
        re.compile(_DOCS_ASKED),
        re.compile(rf"\b(?:presentar|presentando|adjuntar|adjuntando|acompanad[oa]s? de)\b|\bdocumentos?\b|\bdocumentacion\b|{_DOCUMENT}"),
    ),
    "place": (
        re.compile(r"\bdonde\b|\bsitio web|\bpagina\b|\benlace|\blink\b|\bdireccion\b|\bportal\b|\bcorreo\b|\bmail\b"),
        re.compile(r"https?://|www\.|\.edu|@|\bse descarga|\bdescargar|\ben linea\b|\bedificio\b|\bsalon\b|\boficina\b|\bplanta\b|\bpiso\b|\bsala\b|\bportal\b|\bpagina\b|\bsitio\b|\bventanilla\b|\bcorreo\b"),
    ),
    "role": (
        re.compile(r"\bquien(?:es)?\b|\bresponsable|\bencargad|\bque (?:oficina|unidad|dependencia|autoridad)"),
        re.compile(r"\bdirector|\bcoordinador|\bdecan|\bsecretari|\bjunta\b|\bcomision\b|\bunidad\b|\bdireccion\b|\bcontrol academico\b|\bdepartamento\b|\bescuela\b|\bsupervisor|\basesor|\bdocente|\bcatedratic|\bconsejo\b|\bbedelia\b|\boficina\b|\bresponsable|\bterna\b|\btribunal\b"),
    ),
}


_MONTH = r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"

# A concrete value of the kind (a figure, a calendar date, a clock time, a threshold) answers more than a word about it
# ('$ 1.200' more than 'gratuito', 'a partir de los 250 créditos' more than 'se requiere un convenio').
STRONG: dict[str, re.Pattern] = {
    "date": re.compile(rf"\b\d{{1,2}}(?: de)? {_MONTH}\b|\b\d{{1,2}}/\d{{1,2}}\b|\b{_MONTH} (?:de )?\d{{4}}\b|{BOUNDED}"),  # a calendar date or a time limit ('dentro de 15 días')
    "time": re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:h|hs)\b"),
    "amount": re.compile(r"\$ ?\d|\bq ?\d|\b\d[\d.,]* ?(?:pesos|quetzales|dolares|usd)\b"),
    "requirement": re.compile(r"(?:\ba partir de|\bal menos|\bminim[oa]s? de|\bmas de|\b(?:haber|tener) aprobad\w*|\bse requiere\w*|\bes necesario)\W+(?:\w+\W+){0,3}\d"),
    "documents": re.compile(_DOCUMENT),  # a paper named, not only 'presentar'/'documentos'
}


def asked_types(question: str) -> set[str]:
    """The kinds of answer the question asks for (cuándo → date, horario → time, cuánto cuesta → amount, ...)."""
    q = fold(" ".join(asked_parts(question)))  # what the question sentences ask, not the words around them ('no tengo dónde quedarme')
    out = {name for name, (ask, _) in ANSWER_TYPES.items() if ask.search(q)}
    if "amount" in out and grade_weight(q):
        out = (out - {"amount"}) | {"count"}  # '¿cuánto valen los parciales dentro de la zona?': points, not money
    if "amount" in out or "time" in out:
        out.discard("count")  # 'cuánto cuesta' asks for an amount, not any number
    return out


def unit_types(text: str) -> tuple[set[str], set[str]]:
    """The kinds of answer a unit gives, and those it gives as a concrete value (types without a STRONG pattern count as concrete)."""
    t = fold(text)
    has = {name for name, (_, pattern) in ANSWER_TYPES.items() if pattern.search(t)}
    return has, {name for name in has if name not in STRONG or STRONG[name].search(t)}


@dataclass(slots=True)
class Candidate:
    """A unit of a retrieved chunk, scored for one question."""

    unit: Unit
    hit_no: int  # 1-based position of its chunk among the hits (the derivation's premise)
    chunk: Chunk
    doc_rank: int
    text: str
    keys: set[str]
    score: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    miss: bool = False  # the question asks for a kind of answer (a date, an amount...) this unit does not give
    value_miss: bool = False  # ... and that kind is one of SelectionConfig.miss_types
    types: set[str] = field(default_factory=set)
    strong: set[str] = field(default_factory=set)
    vec: np.ndarray | None = None
    cover: float = 0.0  # weighted share of the question's keys the unit and its headings contain
    own: set[str] = field(default_factory=set)  # the unit's own keys (without its headings)
    hand: float = 0.0  # the hand-weighted score, kept when a learned ranker replaces `score`
    learned: bool = False  # `score` is the learned ranker's probability (else the hand score)
    sim: float | None = None  # cosine of the question's and the unit's embeddings (None: no vectors)
    before: Candidate | None = None  # the sentence this one refers back to ('Este plazo…'), said with it


def units_of(chunk: Chunk) -> list[Unit]:
    """The chunk's stored units; chunks indexed before units existed are split here (no vectors)."""
    if chunk.units is None:
        chunk.units = extract_units(chunk.text, skip=set())
    return chunk.units
