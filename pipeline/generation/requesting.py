"""How and when to ask for what the student wants to do: the units a rules answer completes itself with.

'¿Puedo salvar el curso con 22 puntos?' is answered by the condition ('sumaron entre 20 y 24 puntos…'), but the student
asks it to do so: the answer an office sends goes on with how it is requested (the form) and by when (the deadline),
when the same section, or a section of the same document headed as the how or the when ('Cómo se solicita', 'Plazos de
presentación'), says them. A procedure ('¿Cómo revalido una materia?') is completed with its application window; a
question about what is on offer ('¿Qué becas hay para…?') with how and when one applies.

Only units of the best unit's own document are taken, from its own section or from a short heading that names a request
or a deadline: another article of a regulation is a neighbour, not the rest of this answer. Nothing is added when the
chosen units already say the how or the when, or when the rule's answer is a 'no'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.generation.asking import asked_parts
from pipeline.generation.candidates import Candidate, units_of
from pipeline.headings import request_heading
from pipeline.text import fold
from pipeline.units import Unit

# The student asks whether they may do something (folded interrogative sentences).
_CAN = re.compile(r"\b(?:puedo|me puedo|podria|se puede|me dejan|me pueden|tengo derecho|hay (?:alguna |otra )?(?:forma|manera|opcion|posibilidad|chance)|es posible)\b")
# ... or what there is for them: '¿Qué becas hay para…?', '¿hay becas para…?'.
_OFFER = re.compile(r"\bque [a-z]+ hay\b|^\W*hay [a-z]+ (?:para|de)\b")

# ... or what it takes to ask for something: '¿qué más tengo que presentar para pedir la reválida?'.
_REQUEST = re.compile(r"\b(?:pedir|solicitar|tramitar|postular|presentar la solicitud)\b")

# How a thing is requested: a form filled in (not a form named in a list of papers), a note or letter handed in, the body
# it goes to, the channel (folded unit text).
HOW = re.compile(
    r"\b(?:completa\w*|llena\w*|envia\w*|enviar|presenta\w*|descarga\w*)\b[^.;]{0,20}\bformulario\b|\bse solicita\b|\bla solicitud (?:se|de)\b|\bpostulacion se\b|\bpor correo (?:electronico )?a\b"
    r"|\b(?:presentar|presenta|presentando|entregar|enviar|enviando)\b[^.;]{0,40}\b(?:nota|carta|solicitud|formulario)\b"
    r"|\bsolicit\w* (?:a|ante) (?:la |el )?(?:junta|comision|control|secretaria|direccion|coordinacion|bedelia|oficina)"
    r"|\b(?:a traves|por medio) de los medios virtuales\b"
)
# By when: a time limit or an application window (folded unit text); not the date an exam is taken.
WHEN = re.compile(
    r"(?<!fuera de )\bplazo\b|\btiempo maximo\b|\b\d+ horas antes\b|\bdias? habiles\b|\b(?:\d+|[a-z]+) (?:\(\d+\) )?dias (?:calendario|corridos|habiles)\b|\bdentro de (?:los )?(?:\d+|[a-z]+) (?:\(\d+\) )?dias\b|\bantes del? (?:cierre|ultimo dia|inicio|vencimiento)\b"
    r"|\bdel \d{1,2}(?: de [a-z]+)? al \d{1,2} de [a-z]+\b|\bhasta el \d{1,2} de [a-z]+\b"
)
# ... said of a request (not of a resolution the office gives): preferred among the units that say a deadline.
_OF_REQUEST = re.compile(r"\bsolicitud|\bsolicitar|\bpresentacion\b|\bpresenta|\bpostula|\binscripci|\bse reciben\b|\bnuevas\b")
MAX_ITEMS = 4  # a window list said whole ('del 1 al 31 de marzo; del 1 al 30 de septiembre') up to this many items


def wants(question: str, kind: str) -> tuple[str, ...]:
    """What the question implies the answer should also say: ('how', 'when') for '¿puedo…?' and for what is on offer,
    ('when',) for a procedure; () otherwise."""
    asked = fold(" ".join(asked_parts(question)))
    if kind == "procedure":
        return ("when",)
    if kind in ("yes_no", "count", "other") and (_CAN.search(asked) or _OFFER.search(asked)) or kind == "requirement" and _REQUEST.search(asked):
        return ("how", "when")
    return ()


def _heading_ok(section: str | None) -> bool:
    return request_heading(section)


def _doc_units(top: Candidate, cands: Sequence[Candidate]) -> list[Candidate]:
    """The candidates of the best unit's document, in the document's order."""
    same = [c for c in cands if c.chunk.doc_id == top.chunk.doc_id]
    seen, out = set(), []
    for c in sorted(same, key=lambda c: (c.chunk.position, c.unit.offset)):
        if id(c.unit) in seen or (c.unit.offset, c.unit.text) in seen:
            continue
        seen.update({id(c.unit), (c.unit.offset, c.unit.text)})
        out.append(c)
    return out


def completion(question: str, kind: str, chosen: Sequence[Candidate], cands: Sequence[Candidate], *, denied: bool = False) -> list[Candidate]:
    """The units that say how and/or by when to ask for what the question is about, from the best unit's document: from
    its own section, or from a section whose short heading names the request or the deadline; the how first. A deadline
    item under a lead-in ('Las solicitudes se reciben en dos ventanas por año:') comes with its lead-in and its list."""
    need = wants(question, kind)
    if not need or not chosen or denied:
        return []
    top = chosen[0]
    if any(c.unit.kind == "record" for c in chosen):  # a course record: its plan says no request
        return []
    said = fold(" ".join(c.text for c in chosen))
    need = tuple(n for n in need if not (HOW if n == "how" else WHEN).search(said))
    if not need:
        return []
    sections = {c.chunk.section for c in chosen if c.chunk.doc_id == top.chunk.doc_id}
    taken = {id(c.unit) for c in chosen} | {(c.unit.offset, c.unit.text) for c in chosen}
    pool = [
        c for c in _doc_units(top, cands)
        if id(c.unit) not in taken and (c.unit.offset, c.unit.text) not in taken and c.unit.kind in ("sentence", "item")
        and (c.chunk.section in sections or _heading_ok(c.chunk.section))
    ]
    out: list[Candidate] = []
    if "how" in need:
        how = next((c for c in pool if HOW.search(fold(c.unit.text))), None)
        if how is not None:
            out.append(how)
            if "when" in need and WHEN.search(fold(how.unit.text)):
                need = ("how",)
    if "when" in need:
        whens = [c for c in pool if c not in out and WHEN.search(fold(c.unit.text))]
        whens.sort(key=lambda c: (not _OF_REQUEST.search(fold(f"{c.chunk.section or ''} {c.unit.context} {c.unit.text}")), abs(c.chunk.position - top.chunk.position)))
        if whens:
            out.extend(_with_list(whens[0], cands, out))
    return out


def _with_list(c: Candidate, cands: Sequence[Candidate], have: Sequence[Candidate]) -> list[Candidate]:
    """A list item with the lead-in that announces its list and the list's other items (when the list is short)."""
    if c.unit.kind != "item":
        return [c]
    units: list[Unit] = units_of(c.chunk)
    at = next((i for i, u in enumerate(units) if u is c.unit), None)
    if at is None:
        return [c]
    lo = at
    while lo > 0 and units[lo - 1].kind == "item" and units[lo - 1].context == c.unit.context:
        lo -= 1
    lead = units[lo - 1] if lo > 0 and units[lo - 1].kind == "sentence" and units[lo - 1].text.rstrip().endswith(":") else None
    if lead is None:
        return [c]
    hi = at
    while hi + 1 < len(units) and units[hi + 1].kind == "item" and units[hi + 1].context == c.unit.context:
        hi += 1
    if hi - lo + 1 > MAX_ITEMS:
        return [c]
    by_unit = {id(x.unit): x for x in cands if x.chunk is c.chunk}
    run = [lead, *units[lo : hi + 1]]
    if any(id(u) not in by_unit for u in run):
        return [c]
    done = {id(x.unit) for x in have}
    return [by_unit[id(u)] for u in run if id(u) not in done]
