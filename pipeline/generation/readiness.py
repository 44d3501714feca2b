"""Whether an offline draft answers the question it was asked: the readiness label, what is missing, and the closest passages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.generation.asking import Asked, asked_parts, counted, kinds_asked, period_score
from pipeline.generation.candidates import AMOUNT_OF_TIME, BOUNDED
from pipeline.generation.faq_match import matched as faq_matched
from pipeline.generation.ranking import CONSEQUENCE, DEADLINE, NEEDS, unit_gives, word_forms
from pipeline.generation.selection import ANSWER_TYPES, defines
from pipeline.text import fold
from pipeline.texts import t

READINESS_FLAG = "readiness"
READY, NEEDS_REVIEW = "listo", "necesita revisión"
MIN_OBJECT = 0.6  # share of the question's object keys the chosen units (with their headings) must hold
VALUES = frozenset({"amount", "date", "time", "requirement", "documents"})  # kinds answered only by a concrete value (a figure, a calendar date, a clock time, a condition with its threshold)
_DEFINITION = re.compile(r"\bqu[eé] (?:es|son|significa|significan)\b|\ben qu[eé] consiste", re.IGNORECASE)
MIN_OWN_OBJECT = 0.5  # ... and the best unit itself, without its headings (a heading that names the object does not make a neighbour answer)
MIN_CONFIDENCE = 0.5  # the learned ranker's probability for the best unit
_LEAD = re.compile(r"^\s*(?:¿\s*)?(?:y\s+)?(?:(?:cu[aá]ndo|c[oó]mo|qu[eé]|d[oó]nde|cu[aá]nt[oa]s?|qui[eé]n(?:es)?|cu[aá]l(?:es)?|por\s+qu[eé])\s+)+", re.IGNORECASE)

_BARE_ANSWER = re.compile(r"^\s*(s[ií]|no)\s*[,.;:]", re.IGNORECASE)  # an FAQ answer's opening 'Sí,' / 'No.': the answer to its own yes/no question
_WH = re.compile(r"(?:\b(?:qué|cómo|cuándo|dónde|cuánt[oa]s?|quién(?:es)?|cuál(?:es)?)|¿\s*(?:y\s+)?(?:que|como|cuando|donde|cuant[oa]s?|quien(?:es)?|cual(?:es)?))\b[^?]*\?", re.IGNORECASE)  # a question word (unaccented only where it opens the question): not a yes/no question
_VERBS = frozenset("vale valen cuesta cuestan sale salen cobran pasa sucede ocurre si puedo podria tengo debo necesito es son hay se me y yo".split())


@dataclass(slots=True)
class Readiness:
    """The label of a draft; `missing` says why it is not ready; `passages` are the best units for the reviewer."""

    ready: bool
    missing: str | None = None
    passages: list[dict] = field(default_factory=list)
    evidence: dict[str, float] = field(default_factory=dict)  # the measures the label was decided on (see `evidence`), for calibrating it against staff decisions

    def flag(self, lang: str = "es") -> dict:
        return {"kind": READINESS_FLAG, "step": None, "rule": None, "flag": READY if self.ready else NEEDS_REVIEW, "label": t("ready" if self.ready else "needs_review", lang), "missing": self.missing, "passages": self.passages, "evidence": self.evidence}


def object_phrase(question: str, limit: int = 80) -> str:
    """The asked part of the question without its interrogative words, short ('el examen final' of '¿Cuánto vale el examen final?')."""
    words = " ".join(_LEAD.sub("", p.split("¿")[-1]).strip(" ¿?.!") for p in asked_parts(question)).split()
    while len(words) > 2 and fold(words[0]) in _VERBS:
        words.pop(0)
    text = " ".join(words)
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def gives_type(asked: Asked, chosen: Sequence) -> bool:
    """Whether a chosen unit gives the kind of answer asked (a date for a deadline, an amount for a cost, steps for a procedure)."""
    needs = NEEDS.get(asked.kind, ())
    if not needs:
        return False  # an open question: ready only as a definition or an FAQ answer (see assess)
    for c in chosen:
        have, concrete = unit_gives(c.unit.text, c.unit.kind, c.unit.context, c.strong, c.types)
        if "date" in concrete and not _dated(c.unit.text):
            concrete = concrete - {"date"}  # its only 'date' was a fraction ('un tercio (1/3) de la zona')
        if any(n in concrete or (n not in VALUES and n in have) for n in needs):
            return True
    return False


_FRACTION = re.compile(r"\b(?:mitad|medio|tercio|tercera|terceras|cuarto|cuarta|cuartas|quinta|quintas)\s*(?:partes?\s*)?\(?\s*\d{1,2}\s*/\s*\d{1,2}\s*\)?|\(\s*\d{1,2}\s*/\s*\d{1,2}\s*\)\s*(?:partes?\b)")


_DURATION = re.compile(r"\b" + AMOUNT_OF_TIME)
_BOUNDED = re.compile(BOUNDED)


def _dated(text: str) -> bool:
    """Whether a unit says a date or a time limit once the fractions it writes as 'N/M' ('un tercio (1/3)', 'dos terceras
    (2/3) partes') are read as fractions, not as days of a month, and a length of time is read as a limit only when a
    word bounds or places it (_BOUNDED): 'un Informe Final del EPS de 3 meses' says how long something lasts, not when."""
    t = _FRACTION.sub(" ", fold(text))
    if _BOUNDED.search(t):
        return True
    t = _DURATION.sub(" ", t)
    return bool(ANSWER_TYPES["date"][1].search(t) or DEADLINE.search(t))


def _counts(question: str, chosen: Sequence) -> bool:
    """Whether the best unit is about what a '¿cuántos X…?' question counts (a number of something else does not answer it)."""
    key = counted(question)
    return key is None or any(k[:4] == key[:4] for k in (chosen[0].keys if chosen else ()))


def object_share(asked: Asked, chosen: Sequence, *, own: bool = False) -> float:
    """Share of the question's object keys the chosen units hold (their headings and lead-ins included unless `own`)."""
    keys = asked.object_keys
    if not keys:
        return 1.0
    have = set().union(*((c.own or c.keys) if own else c.keys for c in chosen)) if chosen else set()
    return sum(1 for k in keys if k in have or k[:4] in have) / len(keys)


# Text a reviewer would have to rewrite: another script's letters (OCR), file-name debris, list numbers left inside a sentence
# ('... carné 2 Solvencia ...'), a list flattened into a line; headings glued in capitals are _glued_capitals below.
_GARBLED = (
    re.compile(r"[^\x00-\u024F\u0300-\u036F\u2010-\u206F\u2070-\u20CF\u2190-\u21FF]"),
    re.compile(r"_#|#carn|\.PDF\b|formato\.|\ben\.PDF"),
    re.compile(r"[a-záéíóúñ,] \d{1,2} [$]?\s?[A-ZÁÉÍÓÚÑ][a-záéíóúñ]"),
    re.compile(r"(?<![\w.+>-])@[a-z0-9-]+\.[a-z]"),  # an e-mail address whose user part was lost ('la cuenta es @ingenieria.usac.edu.gt'; '<número de dpi>@…' names it)
    re.compile(r"\s-[A-ZÁÉÍÓÚÑ][a-záéíóúñ]+[^\n]*?\s-[A-ZÁÉÍÓÚÑ][a-záéíóúñ]"),  # a list flattened into a line ('… -Objetivos -Resultados o Contenido -Conclusiones')
    re.compile(r"\b[A-ZÁÉÍÓÚÑ][a-záéíóúñ]{2,} [a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:gt|com|org|net|edu|gob|info)\b"),  # a web address glued to a capitalised word, a table's cells run together ('Planta Baja Archivo portalregistro.usac.edu.gt')
    re.compile(r"^[A-ZÁÉÍÓÚÑ]{5,}:|\b[A-Za-zÁÉÍÓÚÑáéíóúñ][a-záéíóúñ]{2,} [A-ZÁÉÍÓÚÑ]{5,} [a-záéíóúñ]{3,}"),  # a watermark's letters in a sentence ('NSPICO: ...', '... Sodran AROLIN asignaturas')
)
MAX_READY_WORDS = 70
MAX_READY_STEPS_WORDS = 110  # a procedure said whole as its numbered steps: cutting a step would not make it sendable


_NAME_ZIPF = 2.4  # each word of a name in capitals at least this common in Spanish ('LAUDE' 2.8); a watermark's letters are not ('ACADEM' 1.2)
_CAPS_RUN = re.compile(r"\b[A-ZÁÉÍÓÚÑ]{4,}(?:\s+(?:[A-ZÁÉÍÓÚÑ]{1,}|DE|DEL|Y|LA|EL)){2,}\b")
_INLINE_BEFORE = re.compile(r"[a-záéíóúñ]+,?\s+$")  # a lower-case word (or a comma after it) right before the capitals
_INLINE_AFTER = re.compile(r"^(?:[;,.)]|\s+[a-záéíóúñ])")  # the sentence goes on right after them


def _glued_capitals(text: str) -> bool:
    """Capitals a reviewer would clean: a heading glued into the text ('… lectivo. TÍTULO XIII. DE LA GRADUACIÓN Y DISTINCIONES
    Artículo 63°') or a watermark's letters. A name the sentence says in capitals, between its own words, whose every word
    Spanish knows ('… el MAGNA CUM LAUDE; y …'), is text."""
    from pipeline.loaders.vocabulary import Vocabulary

    base = None
    for m in _CAPS_RUN.finditer(text):
        if not (_INLINE_BEFORE.search(text[: m.start()]) and _INLINE_AFTER.match(text[m.end() :])):
            return True
        base = base if base is not None else Vocabulary().base
        if not all(len(w) <= 3 or base.get(fold(w), 0.0) >= _NAME_ZIPF for w in m.group(0).split()):
            return True
    return False


def garbled(text: str) -> bool:
    """Whether a draft shows PDF debris a reviewer would have to clean (see _GARBLED and _glued_capitals)."""
    return any(p.search(text) for p in _GARBLED) or _glued_capitals(text)


def assess(question: str, asked: Asked, chosen: Sequence, cands: Sequence, *, learned: bool, lang: str = "es", n_passages: int = 3, body: str = "", record: bool = False, quoted: str = "", steps: bool = False) -> Readiness:
    """`listo` only when the chosen units give the asked kind of answer, about the asked object, in a current period, read clean and short, and (with a learned ranker) confidently.

    `record`: the answer is a course record the question names (its object is the record itself).
    `quoted`: the part of `body` that is an article the answer defers to, said whole; it does not count towards the
    length check (the answer itself may be short while the article it follows is long).
    `steps`: the body is a procedure's whole numbered list under the lead-in that names what it does: as long as its steps
    (up to MAX_READY_STEPS_WORDS), and the object is looked for in the steps together, not in the first one alone."""
    obj = object_phrase(question)
    missing = None
    faq = bool(chosen) and faq_matched(chosen[0])  # the question means an FAQ entry's own question (faq_match): the entry answers its kind
    if body and garbled(body):
        missing = t("missing_garbled", lang)
    elif body and (len(body.split()) - len(quoted.split()) > (MAX_READY_STEPS_WORDS if steps else MAX_READY_WORDS) or body.rstrip().endswith(":")):  # long, or a lead-in without what it announces
        missing = t("missing_long", lang)
    elif record:
        pass
    elif body and not asked.yes_no and (opening := _BARE_ANSWER.match(body)) and _WH.search(" ".join(asked_parts(question))):
        missing = t("missing_other_question", lang).format(opening=opening.group(1))  # '¿Qué contraseña uso…?' answered by '¿Tengo correo…?' 's 'Si, …'
    elif len({c.chunk.doc_id for c in chosen}) > 1:
        missing = t("missing_sources", lang)  # a second document's passage beside the first: one of them is usually a neighbour
    elif not chosen:
        missing = t("missing_object", lang).format(object=obj)
    elif not faq and asked.kind == "other" and not (_DEFINITION.search(question) or figure_given(question, chosen[0])):  # an FAQ answer answers an open question only when the question means the entry's own (faq_match)
        missing = t("missing_open", lang).format(object=obj)
    elif not faq and asked.kind == "other" and chosen[0].unit.kind != "faq" and not defines(chosen[0].text, asked.object_keys) and not figure_given(question, chosen[0]):
        missing = t("missing_definition", lang).format(object=obj)  # '¿qué es X?' answered by a passage that does not say what X is
    elif not faq and asked.kind == "consequence" and not any(consequence_beyond(question, c.text) for c in chosen):
        missing = t("missing_type", lang).format(what=t("what_consequence", lang), object=obj)
    elif not faq and (asked.kind != "other" and not gives_type(asked, chosen) or asked.kind == "count" and not record and not (_counts(question, chosen) and counts_it(question, chosen[0]))):
        missing = t("missing_type", lang).format(what=t(f"what_{asked.kind}", lang), object=obj)
    elif body and asked.yes_no and (opening := _BARE_ANSWER.match(body)) and wh_asked(question):
        missing = t("missing_other_question", lang).format(opening=opening.group(1))  # '…, ¿qué hago?' answered 'Sí.'
    elif (said := denied_case(question, chosen)) is not None:
        missing = t("missing_denied", lang).format(case=said)  # 'mi pensum no es CLAR' answered from the CLAR table
    elif object_share(asked, chosen) < MIN_OBJECT or not steps and (object_share(asked, chosen[:1]) < MIN_OBJECT or object_share(asked, chosen[:1], own=True) < MIN_OWN_OBJECT):
        missing = t("missing_object", lang).format(object=obj)
    elif any(period_score(c.text, asked) < 0 for c in chosen) and asked.kind in ("date", "time", "amount"):
        missing = t("missing_type", lang).format(what=t(f"what_{asked.kind}", lang), object=obj)
    elif learned and chosen[0].score < MIN_CONFIDENCE:
        missing = t("missing_confidence", lang).format(object=obj)
    elif not record and (part := unanswered_part(question, asked, chosen)) is not None:
        missing = t("missing_type", lang).format(what=t(f"what_{part[1]}", lang), object=object_phrase(part[0]))
    ready = missing is None
    return Readiness(ready, missing, [] if ready else passages(cands, n_passages), evidence(asked, chosen, learned=learned, body=body, cands=cands))


_WH_OPEN = re.compile(r"^(?:y\s+)?(?:qu[eé]|c[oó]mo|cu[aá]ndo|d[oó]nde|cu[aá]nt[oa]s?|cu[aá]l(?:es)?|qui[eé]n(?:es)?|por\s*qu[eé])\b", re.IGNORECASE)


def wh_asked(question: str) -> bool:
    """Whether the message's question itself (after its last '¿') opens with a question word: '…, ¿qué hago?' asks what to do,
    not yes or no, whatever the words before it ('Necesito faltar…') suggest."""
    return bool(_WH_OPEN.match(asked_clause(question)))


def asked_clause(question: str) -> str:
    """The words after the question's last '¿' ('qué hago?' of 'Necesito faltar unos días, ¿qué hago?'); '' without one."""
    return question.rsplit("¿", 1)[1].strip() if "¿" in question else ""


# A case the student says is not theirs: 'mi pensum no es CLAR', 'no aprobé el examen técnico'. The words after 'no' (and
# its auxiliaries), up to a comma or a conjunction, name it.
_DENIED = re.compile(r"\bno\s+(?:(?:me|se|lo|la|le|les|es|son|soy|estoy|esta|estan|tengo|tiene|he|ha|han|fue|sea)\s+)*([^,.;:?¿!]+)")
_DENIED_END = re.compile(r"\s(?:y|e|o|u|pero|porque|aunque|entonces|ni|que|si)\s.*$")
_NEGATION = re.compile(r"\b(?:no|ni|sin|excepto|salvo|tampoco|nunca)\b")
MAX_DENIED_KEYS = 3


def denied_keys(question: str) -> list[tuple[str, list[str]]]:
    """Each case the message denies before its question, as (its words, its keys: at most MAX_DENIED_KEYS): 'Mi pensum no es
    CLAR, ¿…?' → ('clar', ['clar'])."""
    out: list[tuple[str, list[str]]] = []
    said = question.rsplit("¿", 1)[0]  # what the student says of their case, before the question itself ('¿por qué no puedo…?' denies nothing)
    for m in _DENIED.finditer(fold(said)):
        phrase = _DENIED_END.sub("", " " + m.group(1)).strip()
        keys = list(dict.fromkeys(f for _, f, _ in word_forms(phrase)))[:MAX_DENIED_KEYS]
        if keys:
            out.append((phrase, keys))
    return out


def denied_case(question: str, chosen: Sequence) -> str | None:
    """The case the question says is not the student's ('no es CLAR') when a chosen unit states that very case without any
    negation of its own (a row of the CLAR table, 'constancia de aprobación del Examen Técnico'): the draft answers for the
    wrong case. Returns the case's words as the question says them, None when no chosen unit contradicts it."""
    for phrase, keys in denied_keys(question):
        for c in chosen:
            u = c.unit
            text = f"{u.text} {u.context or ''} {' '.join(u.fields or {})} {c.text}"
            have = {f for _, f, _ in word_forms(text)}
            if all(k in have for k in keys) and not _NEGATION.search(fold(text)):
                return phrase
    return None


_NUMBER = re.compile(r"^(?:\d+(?:[.,]\d+)?%?|uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta|cuarenta|cincuenta|cien|ambos|ambas)$")
COUNT_BEFORE, COUNT_AFTER = 4, 3  # words around the counted noun where its number stands ('de dos a tres evaluaciones parciales', 'créditos: 37')


# A figure asked without '¿cuántos…?': '¿Qué promedio necesito…?', '¿Cuál es la nota…?', '¿Con cuánto se aprueba…?'.
_FIGURE_Q = re.compile(r"\b(?:que|cual(?:es)?(?: es| son)?(?: el| la| los| las)?)\s+(promedio|nota|punteo|puntaje|porcentaje|calificacion|creditos|puntos)\b|\bcon cuant[oa]s?\b")


def figure_given(question: str, top) -> bool:
    """Whether a question that asks a figure in other words than '¿cuántos…?' ('¿Qué promedio necesito para graduarme Cum
    Laude?', '¿Con cuánto se aprueba…?') gets one from the best unit: a number beside the noun it names ('promedio general de
    85 puntos'), or any number when it names none ('¿con cuánto…?')."""
    m = _FIGURE_Q.search(fold(" ".join(asked_parts(question))))
    if not m or top.unit.kind in ("record", "row"):
        return False
    words = [w.strip(".,") or w for w in re.findall(r"[a-z0-9%.,]+", fold(top.unit.text))]
    if not m.group(1):
        return any(_figures(words))
    return _number_beside(words, m.group(1))


_CITES = frozenset("articulo articulos art inciso literal numeral acta punto capitulo titulo".split())  # 'artículo 64': a number that names, not a figure


def _figures(words: list[str]) -> list[bool]:
    """Per word, whether it is a figure: a number or a number word, not the number of an article, clause or record it cites."""
    return [bool(_NUMBER.match(w)) and not (i and words[i - 1] in _CITES) for i, w in enumerate(words)]


def _number_beside(words: list[str], noun: str) -> bool:
    """A figure among the COUNT_BEFORE words before or COUNT_AFTER words after an occurrence of `noun` (its first 4 letters)."""
    fig = _figures(words)
    return any(fig[j] for i, w in enumerate(words) if w[:4] == noun[:4] for j in range(max(0, i - COUNT_BEFORE), min(len(words), i + COUNT_AFTER + 1)))


def counts_it(question: str, top) -> bool:
    """Whether the best unit gives a number of what a '¿cuántos X…?' question counts: a number beside X in its own text
    ('de dos a tres evaluaciones parciales'), or any number when only its heading or FAQ question names X. A passage that
    names X beside other figures ('… las evaluaciones parciales … La zona tendrá un valor de 75%') does not count it.
    Records and table rows are structured (their values sit under their column names): they are not read this way."""
    key = counted(question)
    if key is None or top.unit.kind in ("record", "row"):
        return True
    words = [w.strip(".,") or w for w in re.findall(r"[a-z0-9%.,]+", fold(top.unit.text))]
    if not any(w[:4] == key[:4] for w in words):
        return any(_figures(words))
    return _number_beside(words, key)


_CONDITION = re.compile(r"\b(?:si|cuando|en caso de que)\b([^?.;,]*)")


def consequence_beyond(question: str, text: str) -> bool:
    """Whether a unit states a consequence in words of its own, not only the situation the question describes: '¿qué pasa
    si repruebo 3 veces…?' is not answered by '…el estudiante que haya reprobado…podrá inscribirse en otra carrera…' for
    its 'reprobado' alone (the same stem, 4 letters, as a word of the question's 'si…' clause)."""
    said = {w[:4] for clause in _CONDITION.findall(fold(question)) for w in re.findall(r"[a-z]{4,}", clause)}
    return any(m.group(0).strip()[:4] not in said for m in CONSEQUENCE.finditer(fold(text)))


def unanswered_part(question: str, asked: Asked, chosen: Sequence) -> tuple[str, str] | None:
    """The first question of a message asking several whose kind of answer the chosen units do not give (the second
    question of '¿Hasta cuándo…? ¿Es compatible…?' left unanswered), as (question, kind); None when all are answered."""
    parts = asked_parts(question)
    if len(parts) < 2:
        return None
    for part, kind in zip(parts, kinds_asked(question), strict=True):
        if kind not in ("other", asked.kind) and not gives_type(Asked(kind, asked.object_keys, asked.years, asked.today), chosen):
            return part, kind
    return None


def dense_rank(top, cands: Sequence) -> int:
    """1 + how many candidates the embedding finds closer to the question than the chosen unit."""
    mine = top.parts.get("dense", 0.0)
    return 1 + sum(1 for c in cands if c.parts.get("dense", 0.0) > mine + 1e-9)


def evidence(asked: Asked, chosen: Sequence, *, learned: bool, body: str = "", cands: Sequence = ()) -> dict[str, float]:
    """The measures behind the label, recorded on the flag: object shares (all chosen units, the best one with and without
    its headings), the learned ranker's confidence in the best unit, and the draft's length in words."""
    out: dict[str, float] = {"words": float(len(body.split()))} if body else {}
    if chosen:
        out |= {"object_share": object_share(asked, chosen), "top_object_share": object_share(asked, chosen[:1]), "own_object_share": object_share(asked, chosen[:1], own=True)}
        dense = [c.parts.get("dense") for c in chosen[:1]]
        if dense[0] is not None:
            out["dense_rank"] = float(dense_rank(chosen[0], cands))
        if learned:
            out["confidence"] = float(chosen[0].score)
    return {k: round(v, 4) for k, v in out.items()}


def passages(cands: Sequence, n: int = 3, limit: int = 400) -> list[dict]:
    """The n best distinct units, each with its document, for a reviewer to write from."""
    out: list[dict] = []
    seen: set[str] = set()
    for c in cands:
        key = " ".join(c.text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        text = c.text if len(c.text) <= limit else c.text[:limit].rsplit(" ", 1)[0] + "…"
        out.append({"doc_id": c.chunk.doc_id, "title": c.chunk.doc_title, "text": text})
        if len(out) >= n:
            break
    return out


def apply_rule(flags: list[dict], rule: dict | None, lang: str = "es") -> bool:
    """Apply a calibrated rule ({"feature", "minimum"}, learnt from what staff sent unchanged and adopted only when better
    on held-out decisions) to a draft's readiness flags, in place: a «listo» whose recorded measure is below the minimum
    becomes «necesita revisión» and says why. A reply to several questions (its flag's "parts", `parts.merged_readiness`)
    is checked part by part: every «listo» part below the minimum becomes «necesita revisión», whether or not another part
    already was, and the flag names each part that lacks something. The label drafting gave is kept as `uncalibrated`
    (what calibration learns from). True when a label changed."""
    changed = False
    for flag in (f for f in flags if f.get("kind") == READINESS_FLAG) if rule else ():
        flag.setdefault("uncalibrated", flag.get("flag"))
        parts = flag.get("parts") or []
        if not parts:
            if _below(flag, rule):
                flag |= _calibrated(flag, rule, lang)
                changed = True
            continue
        hit = [p for p in parts if _below(p, rule)]
        for p in hit:
            p |= _calibrated(p, rule, lang)
        if hit:
            changed = True
            flag |= {"flag": NEEDS_REVIEW, "label": t("needs_review", lang), "calibration": dict(rule), "missing": parts_missing(parts, lang)}
    return changed


def _below(flag: dict, rule: dict) -> bool:
    """A «listo» label whose recorded measure is below the rule's minimum."""
    value = (flag.get("evidence") or {}).get(rule["feature"])
    return flag.get("flag") == READY and isinstance(value, (int, float)) and value < rule["minimum"]


def _calibrated(flag: dict, rule: dict, lang: str) -> dict:
    value = flag["evidence"][rule["feature"]]
    return {"flag": NEEDS_REVIEW, "label": t("needs_review", lang), "calibration": dict(rule),
            "missing": t("missing_calibrated", lang).format(feature=rule["feature"], value=f"{value:.2f}", minimum=f"{rule['minimum']:.2f}")}


def parts_missing(parts: Sequence[dict] | None, lang: str = "es") -> str | None:
    """What each part of a multi-part reply lacks: 'pregunta 1: …; pregunta 3: …' (None when no part lacks anything)."""
    why = "; ".join(f"{t('part', lang)} {p.get('part')}: {p.get('missing')}" for p in parts or [] if p.get("flag") != READY and p.get("missing"))
    return why or None


def readiness_of(flags: Sequence[dict] | None) -> dict | None:
    """The readiness flag among a draft's flags, if any."""
    return next((f for f in flags or [] if f.get("kind") == READINESS_FLAG), None)


def readiness_text(flag: dict, lang: str = "es") -> str:
    """'Estado del borrador: necesita revisión — no encontré la fecha de «…»' and the closest passages."""
    head = f"{t('readiness_title', lang)}: {flag.get('label') or flag.get('flag')}"
    if flag.get("missing"):
        head += f" — {flag['missing']}"
    lines = [head]
    if flag.get("passages"):
        lines.append(t("readiness_passages", lang))
        lines += [f"{i}. [{p.get('title') or p.get('doc_id')}] {p.get('text')}" for i, p in enumerate(flag["passages"], start=1)]
    return "\n".join(lines)
