"""Course-plan lookups: which attribute of a course record the question asks, said first and alone.

A course record holds a code, a name, credits, an area, prerequisites and whether it is compulsory; its heading gives the
semester. '¿A qué área pertenece X?' asks the area, '¿Es obligatorio X?' whether it is compulsory (answered 'Sí'/'No'
first), '¿Qué cursos requieren X?' the records whose prerequisites name X's code. The answer gives that attribute of the
asked course in one sentence; when the plan does not hold it ('area: No especificada'), it says so instead of giving
another field. A code the plan gives to several courses is never read as one of them silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from pipeline.text import fold, tokens
from pipeline.texts import t
from pipeline.units import Unit, _EMPTY, record_code, record_name

# Most specific first: 'es prerrequisito de' asks the courses that need it, not the ones it needs.
ATTRIBUTES: tuple[tuple[str, re.Pattern], ...] = (
    ("postrequisites", re.compile(
        r"\b(?:es|son|sirve como|cuenta como) (?:pre-?)?r?requisito de\b|\b(?:de|para) (?:que|cuales) (?:otros )?(?:cursos?|materias?) (?:es|sirve|son)\b"
        r"|\bque (?:otros )?(?:cursos?|materias?) (?:requieren|piden|necesitan|exigen|tienen (?:como|de) (?:pre-?)?r?requisito|se (?:me )?(?:abren|habilitan|desbloquean))\b"
        r"|\bque (?:cursos? |materias? )?(?:se me )?(?:abre|abren|habilita|habilitan|desbloquea|desbloquean)\b"
        r"|\bque (?:puedo|podre|me puedo) (?:llevar|asignar|asignarme|cursar|tomar) (?:despues|luego)\b")),
    ("prerequisites", re.compile(
        r"\bpre-?r?requisit|\bque (?:necesito|tengo que|debo|hay que|se necesita|se debe) (?:haber )?(?:aprobar|aprobado|ganar|ganado|llevar antes|cursar antes)\b"
        r"|\bque necesito para\b|\bque (?:me )?pide\b|\bque (?:cursos? |materias? )?(?:me )?piden (?:para|antes)\b|\bque necesito (?:para|antes de) (?:llevar|asignarme|asignar|cursar|tomar|meterme)\b"
        r"|\brequisitos? (?:de|para|tiene|previos?|academicos?)\b|\bque (?:se )?(?:necesita|requiere)n? para\b|\bnecesito (?:algo|algun curso|algun|haber)\b"
        r"|\b(?:cursos?|materias?) previ|\bprevio requerido\b|\bdebo (?:haber )?(?:aprobar|aprobado|cursado|ganado|llevar) (?:antes|para)\b|\bque (?:cursos? )?(?:debo|tengo que) (?:haber )?(?:aprobar|aprobado|cursado|ganado|pasar|pasado)\b|\b(?:debo|tengo que) haber (?:pasado|aprobado|cursado|ganado)\b")),
    ("mandatory", re.compile(r"\bobligatori[oa]s?\b|\boptativ[oa]s?\b|\belectiv[oa]s?\b|\bopcional(?:es)?\b|\b(?:puedo|se puede) (?:saltar(?:me)?|omitir|no llevar|dejar de llevar)\b")),
    ("area", re.compile(r"\b(?:a|de|en) que area\b|\bque area (?:es|pertenece|corresponde|tiene|lleva)\b|\bpertenece\b|\bcual es (?:el|su) area\b")),
    ("semester", re.compile(r"\b(?:en )?(?:que|cual|cuál) semestre\b|\bsemestre (?:se lleva|va|toca|esta|corresponde|se cursa)\b|\bque semestre\b")),
    ("code", re.compile(r"\b(?:que|cual es el|cual es su|cual) codigo\b|\bcodigo (?:de|del|tiene)\b(?!\s*\d)")),
    ("credits", re.compile(r"\bcreditos?\b|\bcuanto vale\b|\bcuantos vale\b")),
)
_CAREER_TOTAL = re.compile(r"\b(?:en total|total(?:es)?|cerrar|cierre|la carrera|graduarme|recibirme|pensum completo)\b")
_WHICH_COURSES = re.compile(r"\b(?:cuales|que) (?:cursos|materias)\b|\btodos los cursos\b")
_SEMESTER = re.compile(r"\bsemestre\s+(\d{1,2})\b", re.IGNORECASE)
_CODES = re.compile(r"\b\d{3,4}\b")
_AREAS = re.compile(r"\bareas?\b")
_PREREQ_FIELD = ("prerequisit", "prerrequisit")
_LIST_SEP = re.compile(r",\s+|\s+[ye]\s+")
_NONE = {"ninguno", "ninguna", "no", "-", "no tiene"}


def asked_attributes(question: str) -> list[str]:
    """The attributes of a course a question asks, in the order of ATTRIBUTES ([] for the whole record). Credits of the
    whole career ('¿cuántos créditos tiene la carrera en total?') are not an attribute of a course."""
    q = fold(question)
    out = [name for name, pattern in ATTRIBUTES if pattern.search(q)]
    drop = set()
    if "postrequisites" in out:
        drop.add("prerequisites")
    if "credits" in out and _CAREER_TOTAL.search(q):
        drop.add("credits")
    if "mandatory" in out and _WHICH_COURSES.search(q):
        drop.add("mandatory")  # '¿Qué cursos son obligatorios?' asks a list, not whether one course is
    return [a for a in out if a not in drop]


def field(unit: Unit, *prefixes: str) -> str:
    return next((v.strip() for k, v in unit.fields.items() if k.startswith(prefixes)), "")


def semester_of(unit: Unit) -> str:
    m = _SEMESTER.search(unit.context or "")
    return m.group(1) if m else ""


def head(unit: Unit) -> str:
    name, code = record_name(unit), record_code(unit)
    return f"{name} ({code})" if name and code else name or code


def _name_words(name: str) -> set[str]:
    return {w for w in tokens(name) if len(w) > 3 and not w.isdigit()}


def code_names(options: Sequence[str], course: str, semesters: dict[str, int] | None = None) -> list[str]:
    """The names a prerequisite code of `course` stands for, of the several the plan gives one code: those of an earlier
    semester than the course (a prerequisite comes before it), then the one whose name shares a word with the course (a
    chain such as Termodinámica 1 -> 2); else all of them ('Topografía 1 o Topografía 2'), never one chosen silently."""
    if len(options) < 2:
        return list(options)
    semesters = semesters or {}
    if (mine_at := semesters.get(course)) and (before := [o for o in options if semesters.get(o, mine_at) < mine_at]):
        options = before
    mine = _name_words(course)
    sharing = [o for o in options if _name_words(o) & mine]
    return sharing if len(sharing) == 1 else list(options)


def code_label(options: Sequence[str], lang: str = "es") -> str:
    """How a code the plan gives to several courses is named: one name as it is, several as the plan's own ambiguity
    ('el curso que el pénsum lista como Topografía 1 y como Topografía 2'), never 'Topografía 1 o Topografía 2', which
    reads as if either course would do."""
    if len(options) < 2:
        return options[0] if options else ""
    return t("course_code_names", lang).format(names=t("course_code_names_join", lang).join(options))


def semesters_by_name(records: Iterable[Unit]) -> dict[str, int]:
    """Course name -> the semester its record is listed under (plans without semester headings give none)."""
    return {record_name(u): int(n) for u in records if (n := semester_of(u))}


def named_codes(value: str, names: dict[str, list[str]], course: str = "", semesters: dict[str, int] | None = None, lang: str = "es") -> str:
    """'0082, 0118' -> 'el curso que el pénsum lista como Topografía 1 y como Topografía 2 (0082) y Matemática Aplicada 1
    (0118)': a code the plan gives to several courses says each of them (see code_names, code_label); a code without a
    record stays a code."""
    parts = []
    for code in _CODES.findall(value):
        options = code_names(names.get(code.lstrip("0") or "0", []), course, semesters)
        parts.append(f"{code_label(options, lang)} ({code})" if options else code)
    if not parts:
        return value.strip().rstrip(".")
    return ", ".join(parts[:-1]) + " y " + parts[-1] if len(parts) > 1 else parts[0]


def names_by_code(records: Iterable[Unit]) -> dict[str, list[str]]:
    """Code (without leading zeros) -> every distinct name the plan gives it, in the plan's order."""
    out: dict[str, list[str]] = {}
    for u in records:
        code, name = record_code(u), record_name(u)
        if code and name:
            names = out.setdefault(code.lstrip("0") or "0", [])
            if name not in names:
                names.append(name)
    return out


def needed_by(unit: Unit, records: Sequence[Unit]) -> list[Unit]:
    """The records whose prerequisites name this record's code."""
    code = (record_code(unit).lstrip("0") or "0") if record_code(unit) else ""
    if not code:
        return []
    return [u for u in records if u is not unit and code in {c.lstrip("0") or "0" for c in _CODES.findall(field(u, *_PREREQ_FIELD))}]


def career_areas(sentences: Iterable[str]) -> str:
    """The list of the career's areas that the plan gives after a colon ('…administrados por 3 áreas académicas, siendo
    estas: Metodología de Sistemas, Ciencias de la Computación y Desarrollo de Software.'), cut where a clause of
    another kind follows (', en donde se realiza…'); '' when the plan gives none."""
    for s in sentences:
        head, colon, tail = s.partition(":")
        if not colon or not _AREAS.search(fold(head)) or not tail.strip()[:1].isupper():
            continue
        tail = tail.strip().rstrip(".")
        cut = next((m.start() for m in _LIST_SEP.finditer(tail) if not tail[m.end() : m.end() + 1].isupper()), len(tail))
        listed = tail[:cut].strip(" ,")
        if _LIST_SEP.search(listed):
            return listed
    return ""


def polarity_of(question: str) -> str:
    """What a question about being compulsory asks: 'mandatory' ('¿Es obligatorio X?'), 'optional' ('¿Puedo saltarme
    X?', '¿Es optativo X?') or 'either' ('¿X es obligatoria o optativa?'), which the answer's 'Sí'/'No' follows."""
    q = fold(question)
    asks_mandatory = bool(re.search(r"\bobligatori", q))
    asks_optional = bool(_OPTIONAL.search(q))
    return "either" if asks_mandatory and asks_optional else "optional" if asks_optional else "mandatory"


_OPTIONAL = re.compile(r"\boptativ|\belectiv|\bopcional|\b(?:saltar(?:me)?|omitir|no llevar|dejar de llevar)\b")


def attribute_sentence(attr: str, unit: Unit, records: Sequence[Unit], *, programme: str, lang: str = "es", areas: str = "", polarity: str = "mandatory") -> tuple[str, bool]:
    """(the sentence that gives `attr` of the course, whether the plan holds it); `polarity`: see polarity_of."""
    who = head(unit)
    code = record_code(unit)
    names = names_by_code(records)
    shared = [n for n in names.get(code.lstrip("0") or "0", []) if n != record_name(unit)] if code else []
    if attr == "credits":
        v = field(unit, "credit", "crédit")
        if not re.fullmatch(r"\d+", v):
            return t("course_no_credits", lang).format(course=who, programme=programme), False
        return t("course_credits", lang).format(course=who, n=v, unit=t("credit_one" if v == "1" else "credit_many", lang)), True
    if attr == "prerequisites":
        v = field(unit, *_PREREQ_FIELD)
        if not v or fold(v) in _NONE:
            return t("course_no_prerequisites", lang).format(course=who), True
        n = len(_CODES.findall(v))
        return t("course_prerequisite" if n == 1 else "course_prerequisites", lang).format(course=who, value=named_codes(v, names, record_name(unit), semesters_by_name(records), lang)), True
    if attr == "postrequisites":
        after = needed_by(unit, records)
        note = t("course_code_shared", lang).format(code=code, others=" y ".join(shared)) if shared and after else ""
        if not after:
            return t("course_needed_by_none", lang).format(course=who, programme=programme), True
        listed = ", ".join(head(u) for u in after[:-1]) + (t("and", lang) + head(after[-1]) if len(after) > 1 else head(after[-1]))
        return t("course_needed_by", lang).format(course=who, courses=listed) + note, True
    if attr == "mandatory":
        v = fold(field(unit, "obligatori"))
        if v in ("si", "sí", "yes", "no"):
            compulsory = v != "no"
            key = "course_is_mandatory" if compulsory else "course_is_optional"  # '¿… o es optativa?': the fact, no 'Sí'/'No'
            if polarity == "mandatory":
                key = "course_mandatory" if compulsory else "course_optional"
            elif polarity == "optional":  # '¿Puedo saltarme X?', '¿Es optativo X?': 'No, X es un curso obligatorio.'
                key = "course_not_optional" if compulsory else "course_yes_optional"
            return t(key, lang).format(course=who, programme=programme), True
        return t("course_no_mandatory", lang).format(course=who, programme=programme), False
    if attr == "area":
        v = field(unit, "area", "área")
        if v and v.lower() not in _EMPTY and not _CODES.fullmatch(v):
            return t("course_area", lang).format(course=who, area=v), True
        tail = " " + t("career_areas", lang).format(areas=areas) if areas else ""
        return t("course_no_area", lang).format(course=who, programme=programme) + tail, False
    if attr == "semester":
        n = semester_of(unit)
        if n:
            return t("course_semester", lang).format(course=who, n=n, programme=programme), True
        return t("course_no_semester", lang).format(course=who, programme=programme), False
    if attr == "code":
        note = t("course_code_shared", lang).format(code=code, others=" y ".join(shared)) if shared else ""
        return t("course_code", lang).format(name=record_name(unit), code=code) + note, bool(code)
    raise ValueError(attr)


OUTPUT_ORDER = ("mandatory", "area", "semester", "code", "credits", "prerequisites", "postrequisites")  # a 'Sí'/'No' opens the answer
_PLACE = "\x00programme\x00"  # the programme's name, filled in once the documents that say the same are grouped


def _evidence(attrs: Sequence[str], unit: Unit, records: Sequence[Unit]) -> list[Unit]:
    """The other records the sentence names: the prerequisites' records, or the records that need this one."""
    if "postrequisites" in attrs:
        return needed_by(unit, records)
    if "prerequisites" in attrs:
        codes = {c.lstrip("0") or "0" for c in _CODES.findall(field(unit, *_PREREQ_FIELD))}
        return [u for u in records if u is not unit and (record_code(u).lstrip("0") or "0") in codes]
    return []


def _value_key(attr: str, unit: Unit, records: Sequence[Unit], sentence: str) -> tuple:
    """What tells two programmes' answers apart: the codes themselves, not how each plan names them (a plan that lacks
    the record of a prerequisite says its bare code)."""
    if attr == "prerequisites":
        return tuple(c.lstrip("0") for c in _CODES.findall(field(unit, *_PREREQ_FIELD)))
    if attr == "postrequisites":
        return tuple(sorted(record_code(u).lstrip("0") for u in needed_by(unit, records)))
    return (sentence.replace(head(unit), "\x01"),)  # the same value under another code is the same answer


def attributes_answer(attrs: Sequence[str], same: dict, order: Sequence[str], book, d, *, lang: str = "es", max_variants: int = 6, polarity: str = "mandatory") -> tuple[object, str | None, bool]:
    """The asked attributes of one course, per programme that holds it (`same`: doc -> (chunk, record), `order`: the
    documents, the one answered first). Returns (the derivation's final step, a lead that replaces the body when the
    programmes differ or too many do, whether every programme's plan holds what is asked)."""
    attrs = [a for a in OUTPUT_ORDER if a in attrs]
    said: dict[str, tuple[str, bool, list, tuple]] = {}
    for doc in order:
        chunk, unit = same[doc]
        entries = book.plans.get(doc) or [(chunk, unit)]
        records = [u for _, u in entries]
        areas = career_areas(u.text for _, u in book.prose.get(doc, [])) if "area" in attrs and len(order) == 1 else ""
        parts = [attribute_sentence(a, unit, records, programme=_PLACE, lang=lang, areas=areas, polarity=polarity) for a in attrs]
        named = {id(u) for u in _evidence(attrs, unit, records)}
        key = tuple(_value_key(a, unit, records, p) for a, (p, _) in zip(attrs, parts, strict=True))
        said[doc] = (" ".join(p for p, _ in parts), all(h for _, h in parts), [(c, u) for c, u in entries if id(u) in named], key)
    groups: dict[tuple, list[str]] = {}
    for doc in order:
        groups.setdefault(said[doc][3], []).append(doc)
    held = all(x[1] for x in said.values())

    unsure = t("course_code_names", lang).split("{")[0]

    def line(docs: list[str]):
        # the wording of the programme whose plan names the codes without doubt (one plan may give a code two courses
        # that another names once), else the first programme's
        wording = min(docs, key=lambda x: said[x][0].count(unsure))
        text = said[wording][0]
        ev = d.concat([d.extract(*same[x]) for x in docs] + [d.extract(c, u) for c, u in said[wording][2]])
        who = t("and", lang).join(book.labels.get(x, x) for x in docs) if len(docs) <= 3 else t("the_programmes", lang).format(n=len(docs))
        return d.add("Refine", [ev.id], text.replace(_PLACE, who))

    if len(groups) == 1:
        return line(next(iter(groups.values()))), None, held
    name = head(same[order[0]][1])
    if len(groups) > max_variants:
        evidence = d.concat([d.extract(*same[x]) for x in order])
        lead = t("which_programme", lang).format(name=name, n=len(order), programmes=", ".join(book.labels.get(x, x) for x in order))
        return evidence, lead, held
    ranked = sorted(groups.values(), key=len)  # the largest group last: 'the other programmes'
    steps = [line(docs) for docs in ranked]
    shown = []
    for i, (docs, step) in enumerate(zip(ranked, steps, strict=True)):
        who = t("other_programmes", lang) if i == len(ranked) - 1 and len(docs) >= 3 else ", ".join(book.labels.get(x, x) for x in docs)
        shown.append(f"- {who}: {_without(step.conclusion, head(same[docs[0]][1]))}")
    return d.concat(steps), t("per_programme", lang).format(name=name) + "\n" + "\n".join(shown), held


def _without(text: str, course: str) -> str:
    """A programme's line under 'X no es igual en todas las carreras:' without saying X again: 'el prerrequisito es …',
    'tiene 5 créditos', 'va en el semestre 4'."""
    for said, bare in ((f" de {course}", ""), (f" of {course}", ""), (f"{course} ", ""), (f" {course} ", " ")):
        if said in text:
            text = text.replace(said, bare, 1)
            break
    text = _SHORT_PREREQ.sub(r"\1 ", text)  # one line of several: 'prerrequisitos A y B', as a list says it
    return text[:1].lower() + text[1:] if re.match(r"(?:El|La|Los|Las|The) ", text) else text


_SHORT_PREREQ = re.compile(r"^(?:los|el|the) (prerrequisitos?|prerequisites?) (?:son|es|are|is) ", re.IGNORECASE)


def missing_attributes(attrs: Sequence[str], course: str, lang: str = "es") -> str:
    """What the readiness label says the plan does not hold."""
    what = t("and", lang).join(t(f"attr_{a}", lang) for a in OUTPUT_ORDER if a in attrs)
    return t("missing_attribute", lang).format(what=what, object=course)


RECORD_ONLY = frozenset({"area", "semester", "code", "postrequisites", "mandatory", "credits"})  # what only a course's record says of it


def attribute_head(question: str, attrs: Sequence[str], chosen: Sequence, cands: Sequence, book):
    """The candidate record of the course the question names, to answer instead of the chosen units when the question asks
    what only a record holds (its area, semester, credits...) or the best unit is the record of another course; None to
    keep the selection."""
    if not chosen or not attrs:
        return None
    entries = book.named_in(question)
    keys = {(c.doc_id, u.text) for c, u in entries}
    named = [c for c in cands if c.unit.kind == "record" and (c.chunk.doc_id, c.unit.text) in keys]
    top = chosen[0]
    if not named or top in named and {"name", "code"} & set(top.parts):
        return None
    codes = {c.lstrip("0") for c in _CODES.findall(question)}
    if top.unit.kind == "record" and (record_code(top.unit).lstrip("0") in codes or not codes and _name_words(record_name(named[0].unit)) < _name_words(record_name(top.unit)) <= _name_words(question)):
        return None  # the record of the code the student gave, or of a longer name the question says ('Seminario de Investigación Electrónica')
    if top.unit.kind != "record" and set(attrs) <= {"mandatory", "credits"} and _name_words(record_name(named[0].unit)) <= _name_words(top.text):
        return None  # a passage that names the course may say it ('se debe asignar el Seminario… si opta por EPS'): a condition the record lacks
    other_record = top.unit.kind == "record" and record_name(top.unit) != record_name(named[0].unit)
    if not (set(attrs) & RECORD_ONLY or other_record):
        return None
    if attrs == ["credits"] and not re.fullmatch(r"\d+", field(named[0].unit, "credit", "crédit")):
        return None  # the record gives no credits: a passage may
    docs = set(book.programmes_named(question, list(dict.fromkeys(c.chunk.doc_id for c in named)), record_name(named[0].unit)))
    best = next((c for c in named if c.chunk.doc_id in docs), named[0])
    return replace(best, parts={**best.parts, "name": best.parts.get("name", 0.0)})  # the course the question names (selection may have dropped its name bonus)


_TOTAL = re.compile(r"\bconsta de (?:un total de )?\d+ (?:creditos )?clar\b|\bconsta de \d+ creditos\b")
_PER_TERM = re.compile(r"\bpor (?:semestre|ciclo)\b|\bcada semestre\b|\b(?:creditos|clar) (?:clar )?(?:de|del) (?!(?:la |mi )?carrera\b)")  # per term, or the credits of one area


def career_total(question: str, chosen: Sequence, book):
    """The plan's sentence that gives the career's total credits ('La carrera consta de 300 CLAR…') when the question asks
    them ('¿Cuántos créditos necesito para cerrar pénsum en Sistemas?') and the selection chose another unit (the 8 CLAR
    of the humanities area 'para cerrar pénsum'), from the programme the question names, else from the chosen unit's plan;
    None to keep the selection."""
    q = fold(question)
    if not chosen or not re.search(r"\bcreditos\b|\bclar\b", q) or not _CAREER_TOTAL.search(q) or _PER_TERM.search(q) or book.named_in(question):
        return None
    plans = [d for d in book.prose if any(_TOTAL.search(fold(u.text)) for _, u in book.prose[d])]
    if not plans:
        return None
    named = book.programmes_named(question, plans, "")
    doc = named[0] if len(named) == 1 else chosen[0].chunk.doc_id if chosen[0].chunk.doc_id in plans else None
    if doc is None:
        return None
    entry = next(e for e in book.prose[doc] if _TOTAL.search(fold(e[1].text)))
    return None if chosen[0].unit.text == entry[1].text else entry
