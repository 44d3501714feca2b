"""Whether an offline draft answers the question it was asked: the readiness label, what is missing, and the closest passages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.generation.asking import Asked, asked_parts, counted, kinds_asked, period_score
from pipeline.generation.ranking import CONSEQUENCE, NEEDS, unit_gives
from pipeline.generation.selection import defines
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
        if any(n in concrete or (n not in VALUES and n in have) for n in needs):
            return True
    return False


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


# Text a reviewer would have to rewrite: another script's letters (OCR), headings glued in capitals, file-name debris, list
# numbers left inside a sentence ('... carné 2 Solvencia ...').
_GARBLED = (
    re.compile(r"[^\x00-\u024F\u0300-\u036F\u2010-\u206F\u2070-\u20CF\u2190-\u21FF]"),
    re.compile(r"\b[A-ZÁÉÍÓÚÑ]{4,}(?:\s+(?:[A-ZÁÉÍÓÚÑ]{1,}|DE|DEL|Y|LA|EL)){2,}\b"),
    re.compile(r"_#|#carn|\.PDF\b|formato\.|\ben\.PDF"),
    re.compile(r"[a-záéíóúñ,] \d{1,2} [$]?\s?[A-ZÁÉÍÓÚÑ][a-záéíóúñ]"),
    re.compile(r"(?<![\w.+-])@[a-z0-9-]+\.[a-z]"),  # an e-mail address whose user part was lost ('la cuenta es @ingenieria.usac.edu.gt')
    re.compile(r"^[A-ZÁÉÍÓÚÑ]{5,}:|\b[A-Za-zÁÉÍÓÚÑáéíóúñ][a-záéíóúñ]{2,} [A-ZÁÉÍÓÚÑ]{5,} [a-záéíóúñ]{3,}"),  # a watermark's letters in a sentence ('NSPICO: ...', '... Sodran AROLIN asignaturas')
)
MAX_READY_WORDS = 70
MAX_READY_STEPS_WORDS = 110  # a procedure said whole as its numbered steps: cutting a step would not make it sendable


def garbled(text: str) -> bool:
    """Whether a draft shows PDF debris a reviewer would have to clean (see _GARBLED)."""
    return any(p.search(text) for p in _GARBLED)


def assess(question: str, asked: Asked, chosen: Sequence, cands: Sequence, *, learned: bool, lang: str = "es", n_passages: int = 3, body: str = "", record: bool = False, quoted: str = "", steps: bool = False) -> Readiness:
    """`listo` only when the chosen units give the asked kind of answer, about the asked object, in a current period, read clean and short, and (with a learned ranker) confidently.

    `record`: the answer is a course record the question names (its object is the record itself).
    `quoted`: the part of `body` that is an article the answer defers to, said whole; it does not count towards the
    length check (the answer itself may be short while the article it follows is long).
    `steps`: the body is a procedure's whole numbered list under the lead-in that names what it does: as long as its steps
    (up to MAX_READY_STEPS_WORDS), and the object is looked for in the steps together, not in the first one alone."""
    obj = object_phrase(question)
    missing = None
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
    elif asked.kind == "other" and not (_DEFINITION.search(question) or chosen[0].unit.kind == "faq"):
        missing = t("missing_open", lang).format(object=obj)
    elif asked.kind == "other" and chosen[0].unit.kind != "faq" and not defines(chosen[0].text, asked.object_keys):
        missing = t("missing_definition", lang).format(object=obj)  # '¿qué es X?' answered by a passage that does not say what X is
    elif asked.kind == "consequence" and not any(consequence_beyond(question, c.text) for c in chosen):
        missing = t("missing_type", lang).format(what=t("what_consequence", lang), object=obj)
    elif asked.kind != "other" and not gives_type(asked, chosen) or (asked.kind == "count" and not record and not _counts(question, chosen)):
        missing = t("missing_type", lang).format(what=t(f"what_{asked.kind}", lang), object=obj)
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
