"""Choosing the answer units that answer a question: key terms, embedding similarity and what the question asks for."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pipeline.chunking import Chunk
from pipeline.generation.additions import adds_answer, as_good, completions
from pipeline.generation.candidates import ANSWER_TYPES, DOCS_LIST, Candidate, asked_types, unit_types, units_of  # noqa: F401 (unit_types re-exported)
from pipeline.generation.asking import asked_parts, counted, kind_of, object_keys
from pipeline.generation.lexical import doc_keys, query_keys
from pipeline.generation.ranking import NEEDS, unit_gives
from pipeline.text import STOPWORDS_ES, fold, tokens
from pipeline.units import Unit, record_code, record_name, render

# A lead-in that only announces what follows ('... debe realizar lo siguiente:'), unlike one that says something itself.
_DANGLING = re.compile(r"(?:\bsiguientes?|\ba continuaci[oó]n|\bcomo sigue|\blo que sigue|\b(?:estas|estos|estas opciones|estos pasos))\s*:$", re.IGNORECASE)


# The kinds of answer a list's lead-in or heading can announce ('Requisitos para la práctica inicial:', 'Documentos a presentar:'). Folded.
ASPECTS: dict[str, re.Pattern] = {
    "requirement": re.compile(r"\brequisit|\bprerrequisit"),
    "documents": re.compile(r"\bdocumentos\b|\bdocumentacion\b"),
}


def other_aspect(context: str | None, asked: set[str]) -> bool:
    """Whether a list's lead-in announces another kind of answer than the ones asked: an item of 'Requisitos para la práctica
    inicial:' is one requirement of it, not when it takes place ('¿Cuándo se realizan las Prácticas Iniciales?')."""
    said = {name for name, pattern in ASPECTS.items() if pattern.search(fold(context or ""))}
    return bool(said) and not said & asked


_INTERROGATIVE = re.compile(r"\b(?:cuándo|cómo|qué|dónde|cuánto|cuánta|cuántos|cuántas|quién|quiénes|cuál|cuáles)\b", re.IGNORECASE)


def focus_key(question: str) -> str | None:
    """The first content word after the first interrogative: what the question is about ('¿hasta cuándo me puedo *inscribir*?')."""
    m = _INTERROGATIVE.search(question)
    if not m:
        return None
    keys = query_keys(question[m.end() :])
    return keys[0] if keys else None


def label_of(u: Unit) -> str:
    """What a unit is about by its own label: a record's or row's name, a list item's 'Label:' prefix."""
    if u.kind in ("record", "row"):
        return record_name(u)
    m = re.match(r"^([^:]{2,60}):\s", u.text) if u.kind == "item" else None
    return m.group(1) if m and len(m.group(1).split()) <= 6 else ""


@dataclass(frozen=True, slots=True)
class SelectionConfig:
    """Weights of the unit score and the stopping rule.

    Embedding similarity leads and shared words follow; the answer-type evidence is kept where it is reliable. A unit
    without the value a question asks for (an amount for a cost, a date for a deadline, a clock time for hours, a number
    of the counted thing for '¿cuántos X?') scores type_miss times less: such a unit cannot answer, however close its
    wording. The vaguer kinds (requirement, place, who) are matched by wide patterns on both sides, so their absence is
    weak evidence and gets no factor. FIUSAC dev, 83 rules questions with a labelled answer unit: precision@1 0.458
    with shared words leading, 0.554 with similarity leading and no factor, 0.506 with this one (0.494 with the factor
    on every kind); the sample office keeps 13 of 22 first-round drafts (11 with no factor).
    """

    lexical_weight: float = 0.5  # idf-weighted share of the question's keys in the unit's own text
    context_weight: float = 0.4  # question keys found only in the unit's heading/section/title
    dense_weight: float = 1.0  # the unit's embedding similarity, scaled to [0, 1] over the question's candidates
    type_weight: float = 0.2
    type_miss: float = 0.5  # score factor of a unit without the kind of answer the question asks for
    miss_types: frozenset[str] = frozenset({"date", "time", "amount", "count"})  # the asked kinds whose absence type_miss applies to
    weak_type: float = 0.5  # share of type_weight for a unit that names the kind of answer without a concrete value
    name_weight: float = 0.5  # a record or row whose name the question says
    label_weight: float = 0.3  # a list item whose 'Label:' is the question's focus word
    code_weight: float = 0.8  # ... or whose code it says
    rank_weight: float = 0.2  # divided by the rank of the unit's document
    programme_weight: float = 0.3  # the unit's curriculum is the programme the question names
    lead_in: float = 0.7  # score factor of a sentence that only announces what follows ('... lo siguiente:'): said alone it dangles
    ask_ratio: float = 0.5  # share of the best unit's score that a unit answering another ask of the message must reach
    other_aspect: float = 0.9  # score factor of an item listed under a lead-in that names another kind of answer than the one asked
    other_list: float = 0.9  # ... or under a lead-in naming another variant of the asked object than a sibling list's (_other_list)
    long_words: int = 60
    long_penalty: float = 0.004  # per word beyond long_words
    max_units: int = 3
    keep_ratio: float = 0.85  # a further unit must score this share of the best one
    rescue_ratio: float = 0.85  # ... or this share, from the best-retrieved document, when the best unit comes from another one
    other_doc_ratio: float = 0.9  # ... also when it comes from another document (then shown with its source)
    near_duplicate: float = 0.75  # key Jaccard above which two units say the same
    definition_weight: float = 0.3  # '¿qué es X?': a unit that opens by defining X ('Asignación es el procedimiento…')
    sufficient_object: float = 0.6  # share of the question's object keys the best unit must hold (its text and headings) to answer alone
    near_tie: float = 0.92  # ... unless another document's unit scores this share of it: too close to call, both are shown


# The weights of the score before embedding similarity led it: for an embedder whose similarity is not semantic
# (character hashing), shared words lead. Measured on the 115 FIUSAC rules questions with the e5 embedder, similarity
# leading raised precision@1 from 0.45 to 0.56 (see SelectionConfig's defaults).
LEXICAL_FIRST = dict(lexical_weight=1.0, dense_weight=0.6, type_miss=0.5, miss_types=frozenset(ANSWER_TYPES), name_weight=0.3, code_weight=0.5)


@dataclass(frozen=True, slots=True)
class Features:
    """What scoring needs of a unit, independent of the question (computed once per unit text)."""

    text: str  # the rendering
    own: set[str]
    ctx: set[str]
    types: set[str]
    strong: set[str]  # the types it gives as a concrete value
    label_query: set[str]
    label_doc: set[str]
    label_words: frozenset[str]
    code: str
    words: int
    vec: np.ndarray | None


_CACHE: dict[tuple, object] = {}
_CACHE_MAX = 200_000


def _cached(key: tuple, make):
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        hit = _CACHE[key] = make()
    return hit


def features(u: Unit) -> Features:
    """The unit's scoring features, cached by its content (units are rebuilt from payloads on every search)."""

    def make() -> Features:
        text = render(u)
        spoken = u.kind in ("faq", "item", "row")  # their context is part of what they say (the rendering shows it)
        fields = " ".join(u.fields.values())
        label = label_of(u)
        types, strong = unit_types(f"{u.text} {' '.join(f'{k} {v}' for k, v in u.fields.items())}")
        if u.kind == "item" and DOCS_LIST.search(fold(u.context)):  # an item of a list of papers ('Documentación necesaria:') names one
            types, strong = types | {"documents"}, strong | {"documents"}
        return Features(
            text=text,
            own=doc_keys(f"{u.text} {fields}" + (f" {u.context}" if spoken else "")),
            ctx=doc_keys(u.context),
            types=types,
            strong=strong,
            label_query=set(query_keys(label)) if label else set(),
            label_doc=doc_keys(label) if label else set(),
            label_words=name_words(label),
            code=record_code(u),
            words=len(text.split()),
            vec=u.vec(),
        )

    return _cached(("unit", u.kind, u.text, u.context, u.vector), make)  # type: ignore[return-value]


def name_words(text: str) -> frozenset[str]:
    """Whole words of a name, numbers included ('Química 2' is not 'Química 4'; 'Mecanismos' is not 'Mecánica')."""
    return frozenset(w.replace("rr", "r").rstrip("s") for w in tokens(text) if w not in STOPWORDS_ES and (len(w) > 1 or w.isdigit()))


def row_label_words(u: Unit, chunk: Chunk) -> frozenset[str]:
    """The words that tell a table row from the other rows of its table: its label without a parenthesised aside and without
    the words other rows' labels share ('Materias optativas (electivas)' among 'Materias técnicas…' → optativas)."""

    def make() -> dict[str, frozenset[str]]:
        rows = [x for x in units_of(chunk) if x.kind == "row"]
        words = {id(x): name_words(re.sub(r"\([^)]*\)", " ", record_name(x))) for x in rows}
        seen: dict[str, int] = {}
        for ws in words.values():
            for w in ws:
                seen[w] = seen.get(w, 0) + 1
        return {record_name(x): frozenset(w for w in words[id(x)] if seen[w] == 1) for x in rows}

    table = _cached(("rows", chunk.doc_id, chunk.position, chunk.text), make)
    return table.get(record_name(u), frozenset())  # type: ignore[union-attr]


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _asked_names(question: str, parts: list[str], count_of: str | None) -> frozenset[str]:
    """The words a record or table row must be labelled with to be the one asked about: the asked clauses' own, so a row named
    only in the message's context ('... no me queda claro si la pasantía cuenta') is not taken for the asked total; the whole
    message's when the asked clauses name nothing but the counted thing ('Estoy en Física 1. ¿Cuántos créditos tiene?')."""
    asked = name_words(" ".join(parts)) if parts else frozenset()
    if not any(not (count_of and word.startswith(count_of)) for word in asked):
        return name_words(question)
    return asked


def score(question: str, weights: dict[str, float], qvec: np.ndarray | None, hits, cfg: SelectionConfig, named_docs: frozenset[str] = frozenset()) -> list[Candidate]:
    """Every unit of every hit, scored; best first."""
    total = sum(weights.values()) or 1.0
    asked = asked_types(question)
    qdigits = set(re.findall(r"\b\d{3,4}\b", question))
    focus = focus_key(question)
    open_q = kind_of(question) in ("other", "yes_no")  # a record answers what it holds (credits, prerequisites), not a rule about its course
    count_of = counted(question)
    parts = asked_parts(question)
    qwords = _asked_names(question, parts, count_of)
    defining = bool(_DEFINITION_Q.search(" ".join(parts)))
    untyped = len(parts) > 1 and any(not asked_types(p) for p in parts)  # '¿Es obligatoria? ¿Cuántas horas…?': any unit may answer the first
    okeys = object_keys_of(question)
    doc_rank: dict[str, int] = {}
    cands: list[Candidate] = []
    for n, hit in enumerate(hits, start=1):
        c = hit.chunk
        doc_rank.setdefault(c.doc_id, len(doc_rank) + 1)
        around = _cached(("around", c.doc_title, c.section), lambda: doc_keys(f"{c.doc_title} {c.section or ''}"))
        for u in units_of(c):
            if u.kind == "heading":
                continue
            f = features(u)
            if not f.text:
                continue
            ctx = f.ctx | around
            lex = sum(w for k, w in weights.items() if k in f.own) / total
            lex_ctx = sum(w for k, w in weights.items() if k in ctx and k not in f.own) / total
            parts = {"lexical": cfg.lexical_weight * lex, "context": cfg.context_weight * lex_ctx}
            meets = bool(asked & f.types) and (count_of is None or "count" not in asked or _holds(count_of, f.own | ctx))  # '¿cuántos semestres…?' needs a unit about semestres
            if asked and meets:
                parts["type"] = cfg.type_weight * (1.0 if asked & f.strong else cfg.weak_type)
            if f.label_query:
                named = bool(f.label_words) and f.label_words <= qwords if u.kind in ("record", "row") else focus in f.label_doc
                if not named and u.kind == "row":
                    own_words = row_label_words(u, c)
                    named = bool(own_words) and own_words <= qwords  # 'optativas' names 'Materias optativas (electivas)' among 'Materias técnicas', ...
                if named:
                    parts["name"] = cfg.name_weight if u.kind in ("record", "row") else cfg.label_weight
            if qdigits and f.code in qdigits:
                parts["code"] = cfg.code_weight
            parts["rank"] = cfg.rank_weight / doc_rank[c.doc_id]
            if c.doc_id in named_docs:
                parts["programme"] = cfg.programme_weight
            if defining and defines(f.text, okeys):
                parts["definition"] = cfg.definition_weight
            if f.words > cfg.long_words:
                parts["length"] = -min(0.3, cfg.long_penalty * (f.words - cfg.long_words))
            cand = Candidate(u, n, c, doc_rank[c.doc_id], f.text, f.own | f.ctx, 0.0, parts)
            cand.miss, cand.types, cand.strong, cand.vec, cand.cover = bool(asked) and not meets and not untyped, f.types, f.strong, f.vec, lex + lex_ctx
            cand.own = f.own
            cand.value_miss = cand.miss and bool(asked & cfg.miss_types)
            cands.append(cand)
    if open_q and okeys:
        _not_the_record(cands, okeys)
    if qvec is not None and cands:
        vecs = [cand.vec for cand in cands]
        if all(v is not None for v in vecs):
            sims = np.stack(vecs) @ qvec
            lo, hi = float(sims.min()), float(sims.max())
            for cand, s in zip(cands, sims, strict=True):
                cand.parts["dense"] = cfg.dense_weight * (float(s) - lo) / ((hi - lo) or 1.0)
                cand.sim = float(s)
    for cand in cands:
        cand.score = cand.hand = sum(cand.parts.values()) * (cfg.type_miss if cand.value_miss else 1.0) * (cfg.lead_in if cand.unit.kind == "sentence" and _DANGLING.search(cand.unit.text) else 1.0)
        if asked and cand.unit.kind == "item" and other_aspect(cand.unit.context, asked):
            cand.score = cand.hand = cand.score * cfg.other_aspect
    if okeys:
        _other_list(cands, set(okeys), cfg)
    cands.sort(key=lambda x: (-x.score, x.hit_no, x.unit.offset))
    return cands


def _other_list(cands: list[Candidate], okeys: set[str], cfg: SelectionConfig) -> None:
    """Weigh down the items of a list whose lead-in names a variant of the asked object other than the one asked: a
    sibling list of the same document has a lead-in that differs from it by one word only, and the question says the
    sibling's word, not this one's ('Requisitos para la práctica intermedia:' beside 'Requisitos para la práctica
    inicial:' for '¿Qué necesito para la práctica inicial?': 'Haber aprobado la práctica inicial' is a condition of the
    next practice, not what is asked). Siblings share the rest of their lead-in: two one-word headings ('Documentación',
    '¿Qué becas hay?') are not variants of one object. Lists without such a sibling, or a question that names neither
    word, are left alone."""
    leads = {(c.chunk.doc_id, c.unit.context) for c in cands if c.unit.kind == "item" and c.unit.context}
    words = {lead: frozenset(w for w in name_words(lead[1]) if not any(ch.isdigit() for ch in w)) for lead in leads}  # not the article's number
    other: set[tuple[str, str]] = set()
    for lead in leads:
        mine = words[lead]
        for sib in leads:
            if sib[0] != lead[0] or sib == lead:
                continue
            more, less = words[sib] - mine, mine - words[sib]
            if len(more) == 1 and len(less) == 1 and mine & words[sib] and doc_keys(next(iter(more))) & okeys and not doc_keys(next(iter(less))) & okeys:
                other.add(lead)
    for c in cands:
        if c.unit.kind == "item" and (c.chunk.doc_id, c.unit.context) in other:
            c.score = c.hand = c.score * cfg.other_list


def select(cands: list[Candidate], weights: dict[str, float], question: str, cfg: SelectionConfig) -> list[Candidate]:
    """The best unit, then up to max_units-1 more that answer a part of the question it leaves unanswered (another ask of
    the message, the kind of answer asked said of the object, the rule its special case qualifies, another condition of
    its list); near-duplicates and neighbours that only share words with the question dropped."""
    if not cands:
        return []
    asked = asked_types(question)
    top = cands[0]
    chosen = [top]
    met = top.types & asked
    seen = {_norm(top.text)}
    restricted = bool(RESTRICTED.search(fold(top.text)))
    alone = answers_alone(top, question, asked, cfg) and not restricted  # a special case alone hides the general rule
    rescue = cfg.rescue_ratio if top.doc_rank > 1 else cfg.keep_ratio
    kind = kind_of(question)
    kind_needs = (*NEEDS.get(kind, ()), *KIND_ALSO.get(kind, ())) if kind in KIND_CHECKED else ()
    kind_gives = bool(kind_needs) and _gives_kind(top, kind_needs)
    for c in cands[1:]:
        if len(chosen) >= cfg.max_units or c.score < min(cfg.keep_ratio, rescue) * top.score:
            break
        if c.score < cfg.keep_ratio * top.score and not (c.doc_rank == 1 and top.doc_rank > 1):
            continue  # close enough only to show the best-retrieved document beside a best unit from another one
        if _norm(c.text) in seen or any(jaccard(c.keys, x.keys) >= cfg.near_duplicate or _norm(c.text) in _norm(x.text) or _norm(x.text) in _norm(c.text) for x in chosen):
            continue
        if c.chunk.doc_id != top.chunk.doc_id and c.score < cfg.other_doc_ratio * top.score:
            continue
        if c.miss and met:
            continue  # the question's kind of answer is already given; this unit does not give it
        if kind_gives and not _gives_kind(c, kind_needs) and not _listed_condition(c, top, asked):
            continue  # a consequence, a rule or a step is asked and the best unit gives it: a unit that gives none is a neighbour ('Presentar documento de identificación…' beside '¿qué pasa si no me presento?')
        other_doc = c.chunk.doc_id != top.chunk.doc_id
        if other_doc and c.unit.kind in ("record", "row") and top.unit.kind in ("record", "row"):
            continue  # another curriculum's record: programme variants are said by the record answer, labelled, not pasted
        if alone and not _listed_condition(c, top, asked) and not (other_doc and c.score >= cfg.near_tie * top.score):
            continue  # the best unit answers the kind and the object asked: a neighbour would only be pasted next to it
        general = restricted and not other_doc and bool(c.types & asked) and not RESTRICTED.search(fold(c.text))  # the rule the best unit is an exception to
        restricted = restricted and not general  # one general rule
        better = not alone and answers_alone(c, question, asked, cfg)  # the best unit is not about the object asked with its kind of answer; this one is
        rival = other_doc and (  # another document's answer too close to call (a variant of it), or the one of the programme the question names
            c.score >= cfg.near_tie * top.score and (answers_alone(c, question, asked, cfg) or as_good(c, top, question, asked)) or "programme" in c.parts and "programme" not in top.parts
        )
        if not (general or better or rival or _listed_condition(c, top, asked) or adds_answer(c, chosen, question, asked, cfg.sufficient_object, same_doc=not other_doc)):
            continue  # it shares words with the question but answers nothing the chosen units leave unanswered: a neighbour
        chosen.append(c)
        met |= c.types & asked
        seen.add(_norm(c.text))
    for c in completions(chosen, cands, question, cfg.ask_ratio * top.score):  # what the chosen units announce, the asks they leave open
        if len(chosen) >= cfg.max_units:
            break
        if _norm(c.text) not in seen and not any(jaccard(c.keys, x.keys) >= cfg.near_duplicate for x in chosen):
            chosen.append(c)
            seen.add(_norm(c.text))
    return chosen


# A unit that holds only in a special case ('convocatoria extraordinaria…, solo si quedan cupos'): said alone, it hides the
# general rule a neighbour gives (folded text).
RESTRICTED = re.compile(r"\bsolo (?:si|cuando|en caso)\b|\bunicamente (?:si|cuando)\b|\bextraordinari[oa]s?\b|\bexcepcionalmente\b")


def object_keys_of(question: str) -> tuple[str, ...]:
    return _cached(("object", question), lambda: object_keys(question))  # type: ignore[return-value]


def _not_the_record(cands: list[Candidate], okeys: tuple[str, ...]) -> None:
    """A course record the question names loses its name bonus when the question asks what the record does not hold and a
    passage holds it with the course's name ('¿cuál es la modalidad de las Prácticas Iniciales?': the regulation's article, not the plan)."""
    prose = [c for c in cands if c.unit.kind not in ("record", "row")]
    for c in cands:
        if c.unit.kind not in ("record", "row") or "name" not in c.parts:
            continue
        beyond = tuple(k for k in okeys if _asks_beyond((k,), c.own))
        if not beyond:
            continue
        label = features(c.unit).label_doc
        if any(_held(beyond, p.own | p.keys) >= BEYOND_HELD and not _asks_beyond(tuple(label), p.own | p.keys) for p in prose):
            del c.parts["name"]


_DEFINITION_Q = re.compile(r"\bqu[eé] (?:es|son|significa|significan)\b|\ben qu[eé] consiste", re.IGNORECASE)
_DEFINES = re.compile(r"\b(?:es|son|consiste en|consisten en|comprende|comprenden|significa|significan|se refiere a|se refieren a|se denomina|se denominan|se define como|se entiende por|se considera)\b")


_ARTICLE_HEAD = re.compile(r"^(?:art[ií]culo|art\.)\s*\d+\s*[°º.]*\s*", re.IGNORECASE)
_NAMING = re.compile(r"^(?:se denominan?|se define[n]? como|se entiende por|se considera[n]?)\b")


def defines(text: str, keys: tuple[str, ...]) -> bool:
    """Whether a unit opens by defining what the question names: 'Asignación es el procedimiento…' (the keys, then a
    defining verb within the first words) or 'Se denominan evaluaciones por suficiencia a…'."""
    head = _ARTICLE_HEAD.sub("", fold(text))[:200]
    if not keys:
        return False
    need = max(1, (len(keys) + 1) // 2)
    m = _NAMING.match(head)
    if m:
        named = {k[:4] for k in doc_keys(" ".join(head[m.end() :].split()[:8]))}
        return sum(1 for k in keys if k[:4] in named) >= need
    m = _DEFINES.search(head)
    if not m or len(head[: m.start()].split()) > 8:
        return False
    subject = {k[:4] for k in doc_keys(head[: m.start()])}
    return sum(1 for k in keys if k[:4] in subject) >= need


BEYOND_HELD = 0.5  # share of what the question asks beyond a course record that a passage naming the course must hold to answer instead


def _held(keys: tuple[str, ...], own: set[str]) -> float:
    """Share of the keys the unit holds (or a word of the same stem)."""
    stems = {k[:4] for k in own}
    return sum(1 for k in keys if k in own or k[:4] in stems) / len(keys) if keys else 1.0


def _holds(key: str, keys: set[str]) -> bool:
    return key in keys or any(k[:4] == key[:4] for k in keys)


def _asks_beyond(keys: tuple[str, ...], own: set[str]) -> bool:
    """Whether the question's object has a key the unit does not hold (nor a word of the same stem)."""
    stems = {k[:4] for k in own}
    return any(k not in own and k[:4] not in stems for k in keys)


def answers_alone(top: Candidate, question: str, asked: set[str], cfg: SelectionConfig) -> bool:
    """Whether the best unit by itself gives the kind of answer asked (when one is) and names the question's object."""
    if asked and not (asked & top.types):
        return False
    keys = object_keys_of(question)
    if not keys:
        return False
    have = top.keys
    share = sum(1 for k in keys if k in have or k[:4] in have) / len(keys)
    return share >= cfg.sufficient_object


KIND_CHECKED = frozenset({"consequence", "yes_no", "procedure"})  # kinds whose answer a unit's own words show (a sanction, a may/must, a step), unlike a value's


KIND_ALSO = {"consequence": ("permission",)}  # '¿qué pasa si no me presento?' is answered by what follows and by what the student may then do
# Consequences stated as what will not be had or what is recorded ('no tendrán calificación', 'se anotará su inasistencia'). Folded.
_CONSEQUENCE_MORE = re.compile(r"\bno tendran?\b|\bse (?:anotara|registrara|consignara|considerara|tendra por)\b|\bquedaran?\b")


def _gives_kind(c: Candidate, needs: tuple[str, ...]) -> bool:
    """Whether a unit gives one of the kinds of answer `needs` (ranking.NEEDS of the question's kind, and KIND_ALSO); the
    papers to hand in count as a step of a procedure."""
    have, _ = unit_gives(c.unit.text, c.unit.kind, c.unit.context, c.strong, c.types)
    if "consequence" in needs and _CONSEQUENCE_MORE.search(fold(c.unit.text)):
        have = have | {"consequence"}
    return bool(set(needs) & have) or ("procedure" in needs and "documents" in c.strong)


def _listed_condition(c: Candidate, top: Candidate, asked: set[str]) -> bool:
    """Another concrete condition in the same list as the best unit: requirements are answered by all of them, not the first."""
    return (
        "requirement" in asked
        and "requirement" in c.strong
        and c.unit.kind == top.unit.kind == "item"
        and c.chunk.doc_id == top.chunk.doc_id
        and c.unit.context == top.unit.context
    )


def _norm(text: str) -> str:
    return " ".join(tokens(text))
