"""How a message is split into the segments the gate judges, and which segment decides.

A message is judged as a whole (without the greeting and the address it opens with), by its question sentences when a
story surrounds them, and by its request clauses: a clause that asks to produce something (a text, code, a solution, a
translation) decides the message on its own, and a request to write the student's text scores 0 (`judge_segments`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from pipeline.redaction import strip_placeholders
from pipeline.text import fold

# The kinds of segment: the whole message, one of its question sentences, a clause asking to produce something, and such
# a clause asking to write a text (never the office's business).
WHOLE, QUESTION, REQUEST, MAKES_TEXT = "whole", "question", "request", "request_text"
REQUESTS = (REQUEST, MAKES_TEXT)

_QUESTION = re.compile(r"[^.!?¿\n]*¿?[^.!?¿\n]*\?")
_CLAUSE = re.compile(r"[^.!?¿¡;:,\n]+")
_SENTENCE = re.compile(r"[^.!?\n]+")
# A request to produce something (a text, a solution, code, a translation): what such a message asks is the office's
# business only if that clause alone is; the office words padded around it do not make it so.
_PRODUCE = re.compile(
    r"^(?:(?:y|pero|entonces|bueno|ok|oye|mira|porfa|por favor|plis|please|me|nos)\s+)*(?:(?:podrias|podria|podrian|podes|puedes|pueden|me puedes|me podes|me podrias|me pueden|necesito que|quiero que|ocupo que)\s+)?"
    r"(?!(?:escribo|redacto|redacte|resuelvo|traduje|traduzco|programo)\b|(?:escribi|redacti|resolvi|corregi|resumi)\s+(?:a|al|para|por|ayer|hace|el\s+(?:correo|formulario))\b)"  # the student telling what they did is no request
    r"(?:escrib\w*|redact\w*|resuelv\w*|resolv\w*|traduc\w*|resum\w*|corrig\w*|correg\w*|program\w*|codifica\w*|compon\w*|"
    r"hazme|haceme|hacenme|inventa\w*|genera(?:me|nos)|crea(?:me|nos)|dise[nñ]a(?:me|nos)|elabora(?:me|nos)|calcula(?:me|nos))\b"
)
# Anywhere in a clause: a production verb with the student as its beneficiary ("traduceme", "que me hagas el ensayo").
_PRODUCE_FOR_ME = re.compile(
    r"\b(?:(?:escrib|redact|resolv|resuelv|traduc|resum|corrig|correg|program|codific|compon|invent|gener|dise[nñ]|elabor|calcul|balance|explic)\w*(?:me|nos)|hazme|haceme|hacenos|"
    r"que (?:me|nos) (?:escrib|redact|resuelv|resolv|traduzc|resum|corrij|program|hag|hic|gener|dise[nñ]|elabor|calcul|expliqu)\w*)\b"
)
# A request for a made-up text named by what it is, with or without a clitic ("me ayudas a escribir un cuento", "necesito
# un poema de amor", "una carta de renuncia para mi trabajo"): the kinds of text an office never writes for a student.
_CREATIVE = (
    r"(?:poema|poesia|cuento|ensayo|cancion|discurso|novela|chiste|rima|versos?|slogan|eslogan|guion|monografia|fabula|leyenda|"
    r"historia (?:corta|de amor|de terror)|texto publicitario|publicacion para|post para|carta (?:de amor|de renuncia|para mi (?:novi[oa]|mama|papa|jefe))|"
    r"carta (?:de (?:recomendacion|presentacion|motivacion) )?para (?:mi|un|una) (?:amig[oa]|herman[oa]|prim[oa]|novi[oa]|vecin[oa]|conocid[oa]|compa\w*)|"
    r"receta (?:de|del|para)(?! (?:la|el|mi) (?:clinica|medic\w*|doctor\w*)))"  # a cooking recipe, not a doctor's prescription
)
_TEXT_PART = r"(?:introduccion|conclusion(?:es)?|justificacion|objetivos|resumen|parrafo|titulo|final|inicio|desarrollo)"  # a part of a text asked for
_MADE_TEXT = r"(?:resumen|codigo|programa|script|traduccion|texto|parrafo|introduccion|conclusion(?:es)?|lista de ideas)"  # only with a verb that makes it
_DET = r"(?:un|una|el|la|los|las|unos|unas|mi|mis|este|esta|estos|estas|otro|otra)"
# A translation into a language named by what it is, without a verb ("la traducción al inglés de mi carta de motivación,
# ¿se puede?"): a text made for the student. Not the translation of one of the office's papers, which a foreign student's
# equivalence may need ("la traducción al español de mi título").
_TRANSLATION = (
    r"traduccion(?:es)?\s+(?:al|del|en)\s+(?:ingles|espanol|frances|aleman|portugues|italiano|chino|japones|coreano|ruso|mandarin|kaqchikel|kiche|qeqchi|mam)\b"
    r"(?![^,.;?!]*\b(?:titulo|certificad\w*|certificacion\w*|constancia\w*|diploma\w*|notas|pensum|expediente|record|partida)\b)"
)
# The words of another language asked for ("¿cómo se dice cierre de pensum en inglés?", "en inglés cómo se escribe ...",
# "¿qué significa transcript en español?"): a translation asked as a question is still a text made for the student.
_LANGUAGE = r"(?:ingles|espa[nñ]ol|castellano|frances|aleman|portugues|italiano|chino|japones|coreano|ruso|arabe|latin|mandarin|kaqchikel|kiche|qeqchi|mam)"
_SAY_IN = (
    r"(?:como\s+(?:se\s+(?:dice|dicen|traduce|traducen|escribe|escriben|pronuncia|llama|pone|ponen)|(?:(?:lo|la|los|las)\s+)?(?:digo|pongo|escribo|traduzco|decimos))|"
    r"que\s+(?:significa|significan|quiere\s+decir|quieren\s+decir)|cual\s+es\s+la\s+traduccion|(?:la\s+)?traduccion\s+(?:correcta|exacta|literal))"
)
_TRANSLATION_ASK = re.compile(
    rf"\b{_SAY_IN}\b[^.?!;]{{0,80}}?\b(?:en|al|a)\s+(?:el\s+)?{_LANGUAGE}\b|\b(?:en|al)\s+{_LANGUAGE}\s+{_SAY_IN}\b"
)
_ASKS_FOR_TEXT = re.compile(
    rf"(?:^|\b(?:ayud\w*\s+a|podes|puedes|podrias|pueden|podrian|porfa|por\s+favor|me\s+gustaria)\s+)(?:(?:escribir|redactar|hacer|crear|generar|componer|inventar|elaborar|armar|traducir|resumir)\s+(?:\w+\s+){{0,2}}?{_DET}\s+(?:\w+\s+)?(?:{_CREATIVE}|{_MADE_TEXT})"
    rf"|(?:necesito|quiero|ocupo|quisiera|ayuda con|ayudame con|ayudas? con|me pasas|pasame|dame)\s+(?:\w+\s+){{0,1}}?{_DET}\s+(?:\w+\s+)?{_CREATIVE}"
    rf"|(?:necesito|ocupo|ayuda con|ayudame con|ayudas? con|ayuden con|ayudan con|me pasas|pasame|dame)\s+{_DET}\s+{_TEXT_PART}\s+(?:de|del|para)\s+(?:{_DET}\s+)?(?:\w+\s+)?{_CREATIVE})\b"
    rf"|^{_DET}\s+(?:\w+\s+)?{_CREATIVE}\b"
    rf"|^{_DET}\s+{_TRANSLATION}"
)
# How to write a text of the student's own, asked as a question ("¿cómo escribo una introducción para mi informe de
# laboratorio?", "¿cómo redacto la conclusión del ensayo?"): writing help, a text made with the student whatever it is
# for. Not how to fill in one of the office's papers ("¿cómo redacto la solicitud de cambio de carrera?").
_HOW_TO_WRITE = re.compile(
    r"\bcomo\s+(?:(?:se|le)\s+)?(?:escrib\w*|redact\w*|hago|hace|hacer|armo|arma|estructur\w*|empiezo|inicio|comienzo|termino)\s+"
    rf"{_DET}\s+(?:(?:buen|buena|mejor)\s+)?(?:introduccion|conclusion(?:es)?|justificacion|marco teorico|parrafo|{_CREATIVE})\b"
)
# What such a request asks to make is itself a text (an introduction, the conclusions, an essay): an office never writes
# a student's text, whatever the text is about, so that request is out of the office's business.
_TEXT_OBJECT = re.compile(rf"\b{_DET}\s+(?:\w+\s+)?(?:{_CREATIVE}|{_MADE_TEXT})\b")
# The student's own coursework or project (a report, a thesis, homework, slides, a business plan): asked to be made FOR the
# student ("que me redacten el informe final", "hacéme la tesis", "quisiera que me hicieran el plan de negocios"), it is
# not the office's business however much of the office's vocabulary it carries. Without the student as beneficiary
# ("¿el informe final se redacta en grupo?", "¿pueden revisar mi protocolo?") the classifier judges it.
_WORK = (
    r"(?:informes?(?: final(?:es)?)?|tesis|tareas?|proyectos?|plan de negocios|presentacion(?:es)?|diapositivas|marco teorico|protocolo|reportes?|"
    r"mapa conceptual|cuadro sinoptico|investigacion|diagnostico|hoja de trabajo|ejercicios|trabajo de graduacion|trabajos?|calculos|planos|maqueta|"
    r"solucion(?:es)?|respuestas|resumen(?:es)?|apuntes|resueltos?|"
    r"diagramas? de (?:flujo|gantt|bloques|clases|casos de uso|actividades|secuencia|pareto|ishikawa|procesos?|cuerpo libre)|receta(?! medica)|recetas(?! medicas))"
)
# A request whose object pronoun points back to the student's work named before it, with no request verb on the work
# itself ("necesito los cálculos de la armadura, ¿me los hacen?", "la maqueta del proyecto, ¿quién me la arma?").
_WORK_BACK = re.compile(
    r"\b(?:me|nos)\s+(lo|la|los|las)\s+(?:(?:pueden|puede|podes|podrian|podria)\s+)?(?:(?:hac|resuelv|resolv|arm|elabor|prepar|calcul|dise[nñ]|escrib|redact)\w*|"
    r"pas(?:a|an|as|e|en|aria|arian)|mand(?:a|an|as|e|en)|envi(?:a|an|as|e|en)|compart\w*|regal\w*|prest(?:a|an|as|e|en))\b"
)
# The same pronoun with a verb of giving ("la solución del problema 5, ¿me la pasa?", "¿me las mandan?"): a request only
# when what it points back to is a piece of work (see `_points_back_to_work`); the office's own paper given ("la
# constancia, ¿me la mandan por correo?") is no request to produce anything.
_GIVE_BACK = re.compile(r"\b(?:me|nos)\s+(?:lo|la|los|las)\s+(?:(?:pueden|puede|podes|podrian|podria)\s+)?(?:pas|mand|envi|compart|regal|prest)\w*\b")
_WORK_FOR_ME = re.compile(
    r"\b(?:(?:escrib|redact|resolv|resuelv|elabor|hac|prepar|arm|dise[nñ]|program)\w*(?:me|nos)|hazme|haceme|hacenme|hacenos|"
    r"(?:que )?(?:me|nos) (?:(?:pueden|puede|podes|podrian) )?(?:escrib|redact|resuelv|resolv|hag|hic|hac|elabor|prepar|arm|dise[nñ]|program|ayud\w* con)\w*)"
    rf"\s+(?:(?!lo\b|de\b)\w+\s+)?{_DET}\s+(?:\w+\s+)?{_WORK}\b"
)
# The same request with the clitic before the verb, the office addressed ("me hacen un resumen", "me resuelven la hoja 3",
# "me pueden resolver esta integral", "me ayudan con la tarea"); with an object pronoun ("me lo escriben?") what is asked
# is named in the clause before. The student telling what was done or is missing ("me hicieron", "me hace falta") is no
# request.
_PROCLITIC_PRODUCE = re.compile(
    r"\b(?:me|nos)\s+(?:(lo|la|los|las)\s+)?(?:(?:pueden|puede|podes|podrian|podria)\s+)?"
    r"(?!(?:\w+)(?:ieron|aron|io)\b|hac\w*\s+falta\b)"
    r"(?:hac(?:en|e|es|er)|escrib(?:en|e|es|ir)|redact(?:an|a|as|ar)|resuelv(?:en|e|es)|resolver|traduc(?:en|e|es|ir)|resum(?:en|e|es|ir)|"
    r"corrig(?:en|e|es)|corregir|program(?:an|a|as|ar)|calcul(?:an|a|as|ar)|dise[nñ](?:an|a|as|ar)|elabor(?:an|a|as|ar)|arm(?:an|a|as|ar)|"
    r"ayud(?:an|a|as|ar)\s+(?:a\s+(?:hacer|resolver|escribir|redactar|estudiar|entender|traducir|programar|calcular)|con\s+(?:la|las|el|los|mi|mis|un|una)\s+(?:\w+\s+)?(?:tarea|tareas|ejercicios?|proyecto|ensayo|informe|codigo|programa|integral\w*|problemas?)))\b"
)


# One of the office's own papers (a certificate, a receipt, a form, the student's record): given back, it is no work.
_OFFICE_PAPER = re.compile(r"\b(?:constancia|certificacion|certificado|carta|boleta|recibo|comprobante|formulario|solicitud|orden|carne|carnet|titulo|solvencia|cierre|expediente|historial|notas?)s?\b")
_MASCULINE_DET = frozenset({"el", "un", "los", "unos", "este", "estos", "otro"})
_FEMININE_DET = frozenset({"la", "una", "las", "unas", "esta", "estas", "otra"})


def _points_back_to_work(folded: str) -> bool:
    """The request's pronoun points back to the student's work named before it ("los cálculos ... ¿me los hacen?"): the
    nearest thing before the pronoun that agrees with it in gender and number is a piece of work, so the work is what is
    asked to be made. "la orden de impresión, ¿me la hacen?" points to an office thing, whatever work was named before."""
    back = _WORK_BACK.search(folded)
    if back is None:
        return False
    pronoun = back.group(1)
    plural, feminine = pronoun.endswith("s"), pronoun.startswith("la")
    agreeing = []
    for m in re.finditer(rf"\b({_DET})\s+\w+", folded[: back.start()]):
        det = m.group(1)
        if det.endswith("s") != plural or (det in _MASCULINE_DET and feminine) or (det in _FEMININE_DET and not feminine):
            continue
        agreeing.append(m)
    work = [bool(re.match(rf"{_DET}\s+(?:\w+\s+)?{_WORK}\b", folded[m.start() :])) for m in agreeing]
    if not agreeing:
        return False
    # the nearest is the work; or a piece of work is named first and what follows only says what it is of ("la solución
    # del problema 5 de la hoja de hidráulica"), not one of the office's things
    return work[-1] or (any(work) and not _OFFICE_PAPER.search(folded[agreeing[-1].start() : back.start()]))


def request_clauses(text: str) -> list[str]:
    """The clauses of a message that ask to produce something ("escribime un poema sobre la facultad")."""
    out = []
    out_prev: str | None = None  # the clause before, for a request that points back to it
    for m in _CLAUSE.finditer(text):
        clause = m.group(0).strip()
        folded = fold(clause)  # same length as the clause: accents and case only
        inner = _PRODUCE_FOR_ME.search(folded) or _ASKS_FOR_TEXT.search(folded)
        proclitic = _PROCLITIC_PRODUCE.search(folded)
        give = _GIVE_BACK.search(folded)
        if _PRODUCE.search(folded):
            request = clause
        elif inner and len(folded) == len(clause):
            request = clause[inner.start() :]
        elif proclitic and len(folded) == len(clause):
            request = clause[proclitic.start() :]
            if proclitic.group(1) and re.search(rf"\b{_DET}\s+\w+", folded[: proclitic.start()]):
                request = clause  # "la orden de impresión me la hacen?": the thing asked is named in the clause itself
            elif proclitic.group(1) and out_prev is not None:  # "me lo escriben?": the thing asked is in the clause before
                request = out_prev + ", " + request
        elif (how := _HOW_TO_WRITE.search(folded)) and len(folded) == len(clause):
            request = clause[how.start() :]
        elif give and len(folded) == len(clause) and _points_back_to_work(fold((out_prev + ", " if out_prev else "") + clause)):
            named_here = re.search(rf"\b{_DET}\s+\w+", folded[: give.start()])
            request = clause if named_here or out_prev is None else out_prev + ", " + clause[give.start() :]
        else:
            out_prev = clause
            continue
        out_prev = clause
        if text[m.end() : m.end() + 2].lstrip().startswith(":"):
            request += text[m.end() :]  # "resuélvanme este ejercicio: ...": what follows the colon is what is asked
        if len(request.split()) >= 3:
            out.append(request)
    return out


# The greeting and the address that open a message ("hola control académico,", "buenas tardes secretaria:", "disculpe la
# molestia, ingeniero,"): they name the office only because the student writes to it, so they say nothing of what is asked.
_ADDRESS_WORD = (
    r"(?:hola\w*|buenas|buenos|buen[oa]?|dias?|tardes|noches|saludos|disculp\w*|perdon\w*|estimad[oa]s?|querid[oa]s?|que|tal|como|estan?|oigan|hey|q|onda|"
    r"la|el|los|las|a|de|del|mi|molestia|todos|todas|por|favor|"
    r"secretari[oa]s?|ingenier[oa]s?|inge|licenciad[oa]s?|licda?|lic|se[nñ][oi]\w*|profe\w*|doctor\w*|control|academic[oa]|facultad|facu|oficina|equipo|"
    r"coordinador\w*|coordinacion|director\w*|direccion|departamento|personal|amig[oa]s?|compas?|jovenes|usac|fiusac)"
)
_OPENING = re.compile(rf"^(?:hola\w*|buenas|buenos|buen\s+dia|saludos|disculp\w*|perdon\w*|estimad[oa]s?|querid[oa]s?|que\s+tal|oigan|hey|secretari[oa]|ingenier[oa]|inge|profe\w*|se[nñ][oi]\w*|licenciad[oa]|licda?|lic|doctor\w*|control\s+academico)\b")
_ADDRESS = re.compile(rf"^{_ADDRESS_WORD}(?:\s+{_ADDRESS_WORD}){{0,5}}\s*[,.:;!]+\s*")


def without_address(text: str) -> str:
    """The message without the greeting and address it opens with, when at least three words remain."""
    rest = text
    while True:
        folded = fold(rest)
        m = _ADDRESS.match(folded) if _OPENING.match(folded) and len(folded) == len(rest) else None
        if m is None or len(rest[m.end() :].split()) < 3:
            return rest
        rest = rest[m.end() :]


def message_segments(texts: Sequence[str], *, kinds: list[str] | None = None) -> tuple[list[str], list[int]]:
    """Each message, plus its question sentences when it has several sentences (a long story around one question), plus
    its request clauses when it has more than one clause (`kinds`, if given, receives each segment's kind).

    Redaction placeholders ([CEDULA], [TELEFONO]...) are dropped: they carry no domain signal."""
    segments: list[str] = []
    owner: list[int] = []
    kind_of: list[str] = []
    for i, text in enumerate(texts):
        text = re.sub(r"\s+", " ", strip_placeholders(text)).strip()
        segments.append(without_address(text))  # judged without the greeting and the address: the office is only written to
        owner.append(i)
        kind_of.append(WHOLE)
        questions = [q.strip() for q in _QUESTION.findall(text) if len(q.strip()) >= 12]
        if questions and len(questions[0]) < len(text) - 20:
            for q in questions:
                segments.append(q)
                owner.append(i)
                kind_of.append(QUESTION)
        for sentence in _SENTENCE.findall(text):
            if _TRANSLATION_ASK.search(fold(sentence)):
                segments.append(sentence.strip())  # a translation asked as a question: the student's own text
                owner.append(i)
                kind_of.append(MAKES_TEXT)
        for clause in request_clauses(text):
            folded = fold(clause)
            makes_text = bool(_TEXT_OBJECT.search(folded) or _WORK_FOR_ME.search(folded) or _points_back_to_work(folded) or _HOW_TO_WRITE.search(folded))
            if len(clause) < len(text) - 15 or makes_text:
                segments.append(clause)
                owner.append(i)
                kind_of.append(MAKES_TEXT if makes_text else REQUEST)
    if kinds is not None:
        kinds[:] = kind_of
    return segments, owner


def judge_segments(p: np.ndarray, owner: Sequence[int], kinds: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per message, (score, index of the segment that decided): the best request clause when it asks to produce
    something, else the best of the whole text and its questions. A request to write a text (MAKES_TEXT) scores 0:
    writing a student's text is never the office's business, whatever it is about."""
    score = np.full(n, -1.0)
    best = np.zeros(n, dtype=np.int64)
    has_request = np.zeros(n, dtype=bool)
    for i, (o, k) in enumerate(zip(owner, kinds)):
        if k in REQUESTS and not has_request[o]:
            has_request[o], score[o] = True, -1.0
        if has_request[o] and k not in REQUESTS:
            continue
        pi = 0.0 if k == MAKES_TEXT else p[i]
        if pi > score[o]:
            score[o], best[o] = pi, i
    return score, best
