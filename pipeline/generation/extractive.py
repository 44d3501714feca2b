"""The offline extractive generator: the answer units that best answer the question, rendered as sentences, no LLM."""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date

import numpy as np

from pipeline.conversation import Turn
from pipeline.derivation import Step
from pipeline.generation import Answer, format_reply, references_for, register
from pipeline.generation.asking import Asked, ask, asked_parts, object_parts, period_score
from pipeline.generation.course_plan import asked_attributes, attribute_head, attributes_answer, career_total, missing_attributes, polarity_of
from pipeline.generation.faq_match import FaqMatcher
from pipeline.generation.figures import figure_fit, student_figures
from pipeline.generation.lexical import doc_keys, query_keys
from pipeline.generation.numbering import continued, nested, sub_items
from pipeline.generation.ranking import UnitRanker, pair_context, rerank, unit_gives
from pipeline.generation.ranking import rows as ranker_rows
from pipeline.generation.readiness import Readiness, assess, object_phrase, object_share, passages, wh_asked
from pipeline.generation.records import RecordBook
from pipeline.generation.requesting import completion as request_completion
from pipeline.generation.selection import ASPECTS, RESTRICTED, LEXICAL_FIRST, Candidate, SelectionConfig, asked_types, features, score, select, units_of
from pipeline.index import Hit
from pipeline.redaction import strip_placeholders
from pipeline.text import fold, tokens
from pipeline.texts import t
from pipeline.units import Unit, heading_case, record_code, record_name, render, render_fields, row_label
from pipeline.verifier import StepVerifier

MODEL_LABEL = "extractive (sin LLM)"
PAST_PERIOD = 0.5  # score factor of a unit whose dates are all of a past period
MAX_LIST = 10  # longer lists are not said whole
_EXISTS_Q = re.compile(r"(?:^|[¿,.;]\s*)(?:y )?(?:hay|existe|existen)\b")  # '¿Hay…?' asks whether something exists: a 'may'/'must' verb does not tell
YES_OBJECT = 0.75  # own object share of the best unit for a «listo» "Sí" read from a modal verb
UNTIL_BOOST = 1.2  # score factor of a unit that states an end date ('hasta el 22 de enero'), for a question asking until when
_UNTIL_Q = re.compile(r"\bhasta (?:cuando|que (?:dia|fecha))\b|\b(?:ultimo dia|fecha limite|plazo)\b")
_UNTIL = re.compile(r"\bhasta el (?:\w+ )?\d{1,2} de [a-z]+|\bvence el\b|\bfecha limite\b|\bplazo (?:es|vence|hasta)\b"
                    r"|\b(?:cierre|cierra|vence|finaliza|termina)\W+(?:el )?(?:\w+ )?\d{1,2} de [a-z]+")  # a table's 'Cierre' column states the end date too
NO_PREDICATE = 0.7  # score factor of a unit without the quality a '¿Es X…?' question asks about ('compatible', 'obligatoria')
_PREDICATE_Q = re.compile(r"(?:^|[¿,.;]\s*)(?:y\s+)?(?:(?:la|el|las|los|este|esta)\s+[^?]{0,60}?\s+)?(?:es|son|sera|seran|esta|estan)\s+(?:(?:tambien|siempre|realmente)\s+)?([a-z]{5,})\b")
_NOT_PREDICATE = frozenset({"posible", "necesario", "cierto", "verdad", "normal", "mejor", "igual", "mismo", "misma", "valido"})
NO_STEPS = 0.8  # score factor of a unit that gives neither a step nor the papers to hand in, for a question asking how to do something
CEILING = 0.7  # score factor of a unit that only states a ceiling ('hasta 3', 'como máximo 5') when the question asks how many are required
_ASKS_CEILING = re.compile(r"\bmaxim|\bcomo mucho\b|\ba lo sumo\b|\bhasta cuant|\blimite\b|\btope\b|\bpuedo\b|\bpodes\b|\bpodemos\b|\bse puede|\bse permit|\bpermitid"
                           r"|\ben cuanto tiempo\b|\bdentro de cuanto|\bcuanto (?:tardan?|demoran?|se tardan?|se demoran?)\b")  # how soon something is done: its longest delay answers ('en un tiempo máximo de 15 días')
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b|\b(?:dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|treinta|cuarenta|cincuenta|cien)\b")
_CEILING_BEFORE = re.compile(r"\b(?:hasta|maxim[oa]s?|como maximo|un maximo de|maximo de|no mas de|a lo sumo|como mucho|tope de|limite de)(?: de)?(?: (?:un|una|los|las|el|la))?\W*$")
UNASKED_FAILURE = 0.85  # score factor of a unit that opens with the case of a failure ('Si esta evaluación no fuera aprobada…') when the student describes none
# A unit that opens with a failure case: a condition ('Si…', 'En caso de que…', 'Cuando…') that something was not passed, not done or lost. Folded.
_FAILURE_CASE = re.compile(
    r"^(?:art\w*\.? ?\d+\W*)?(?:si|en caso (?:de )?que|cuando|de no)\b[^.;:]{0,90}?"
    r"(?:\bno (?:fuera|fuese|fueran|fuesen|es|sea|sean|ha sido|hubiera sido|haya sido) aprobad|\breprob|\bno (?:se )?present|\bno (?:aprueba|aprueban|aprobara|aprobaran|aprobare)\b|\bno (?:realiza|realizara|cumple|cumpliera)\b|\bpierde|\bperdiera)"
)
NAMING_ONLY = 0.9  # score factor of a unit that opens by naming what a term means ('Se denominan evaluaciones por suficiencia a…') when the question asks for a value, a rule or a step, not what the thing is
_NAMES_TERM = re.compile(r"^(?:(?:art[ií]culo|art\.)\s*\d+\s*[°º.]*\s*)?(?:se denominan?|se define[n]? como|se entiende por)\b")
SAME_ASPECT = 1.05  # score factor, for a question that asks which requirements or papers (not whether there are any), of a unit introduced as that kind of answer ('REQUISITOS: …', an item of 'Requisitos para …:')
OTHER_FAQ = 0.85  # score factor of a unit of an FAQ entry whose own question names less than MIN_FAQ_OBJECT of what is asked: the entry answers its question, not this one
MIN_FAQ_OBJECT = 0.5
FIGURE_HELD = 1.8  # score factor of a unit whose range or bound holds a figure the student states of their own ('entre 20 y 24 puntos' for 'con 22 puntos')
OTHER_PROGRAMME = 0.6  # score factor of a unit of a programme whose name holds the one the question names, and more ('Mecánica' is not 'Mecánica Industrial')
MAX_VARIANTS = 6  # per-programme variants listed (one line each) before asking which programme
_NO = re.compile(r"\bno (?:es necesario|hace falta|se requiere|requiere|necesita|necesitas|tiene que|tienen que|podra|puede|pueden|podran|podes|puedes|se permite|se permitira|es posible|sera posible|tendra|tendran|se acepta|se aceptan|es valid|sera valid|se autoriza|procede)\b|\bprohibid|\bse prohibe|\bningun[oa]? (?:estudiante|curso|persona)\b")
_YES = re.compile(r"\b(?:podra|podran|puede|pueden|podes|puedes|podras|se permite|tiene derecho|tienen derecho|derecho a|derecho de|es posible|se autoriza|se aceptan?|procede|es obligatori|debera|deberan|debe|deben|se necesita|se requiere|es necesario|es requisito)\b")

# A rule that takes a right or an option away ('perderán el derecho de…', 'pierde su derecho a…', 'quedará sin derecho'). Folded.
_LOSES = re.compile(r"\b(?:perdera|perderan|pierde|pierden)\s+(?:(?:el|su|todo)\s+)?derecho\b|\bquedara[n]?\s+sin (?:el |su )?derecho\b")
# The question itself asks whether something is lost ('¿Pierdo el derecho…?'), read after its last '¿'. Folded.
_ASKS_LOSS = re.compile(r"\b(?:pierdo|pierde|pierden|perder|perderia|perdere|perdemos|perderian)\b")


def asks_loss(question: str) -> bool:
    """Whether the asked clause is about losing something ('¿Pierdo el derecho si…?'), not a loss the student reports ('Perdí tres…, ¿puedo…?')."""
    return bool(_ASKS_LOSS.search(fold(question.split("¿")[-1])))


_DEFINITION_ASKED = re.compile(r"\bqu[eé] (?:es|son|significa|significan)\b|\ben qu[eé] consiste", re.IGNORECASE)  # '¿qué es…?' (selection's definition question)
_ASKING = re.compile(r"\b(?:cuándo|cómo|qué|dónde|cuánto|cuánta|cuántos|cuántas|quién|cuál|cuáles|saber|consulta|consultar)\b")  # accents: 'qué' asks, 'que' does not


def question_weights(question: str, idf, context_weight: float) -> dict[str, float]:
    """IDF weight of each question key; words outside the interrogative sentences count less."""
    parts = [p for p in re.split(r"(?<=[?.!])\s+|\n+", strip_placeholders(question)) if p.strip()]
    asked = [p for p in parts if "?" in p] or [p for p in parts if _ASKING.search(p.lower())] or parts
    asked += [p for p in object_parts(strip_placeholders(question)) if p not in asked]  # the sentence a pronoun refers to weighs as asked
    weights: dict[str, float] = {}
    for part in parts:
        factor = 1.0 if part in asked else context_weight
        for k in query_keys(part):
            weights[k] = max(weights.get(k, 0.0), factor * idf(k))
    return weights


def semantic(embedder) -> bool:
    """Whether the embedder's similarity reads meaning (a model) rather than spelling (character hashing); wrappers are looked through."""
    seen = 0
    while embedder is not None and seen < 5:
        if getattr(type(embedder), "semantic", True) is False:
            return False
        embedder, seen = getattr(embedder, "inner", None), seen + 1
    return True


class _Steps:
    """The derivation being built: chunk premises are hit numbers; hits outside the retrieved ones are appended."""

    def __init__(self, hits: list[Hit]) -> None:
        self.hits = list(hits)
        self.steps: list[Step] = []

    def premise(self, chunk) -> str:
        for i, h in enumerate(self.hits, start=1):
            if h.chunk.id == chunk.id and h.chunk.doc_id == chunk.doc_id:
                return str(i)
        self.hits.append(Hit(chunk, 0.0))
        return str(len(self.hits))

    def add(self, rule: str, premises: list[str], conclusion: str) -> Step:
        step = Step(id=f"s{len(self.steps) + 1}", rule=rule, premises=premises, conclusion=conclusion)
        self.steps.append(step)
        return step

    def extract(self, chunk, unit: Unit) -> Step:
        text = f"{unit.context}: {unit.text}" if unit.kind == "item" and unit.context else unit.text
        return self.add("Extract", [self.premise(chunk)], text)

    def concat(self, parts: list[Step], conclusion: str | None = None) -> Step:
        if len(parts) == 1 and conclusion is None:
            return parts[0]
        return self.add("Concat", [p.id for p in parts], conclusion or "\n".join(p.conclusion for p in parts))


@register("extractive")
class ExtractiveGenerator:
    """Score the answer units of the retrieved chunks (key terms, stored unit embeddings, the kind of answer asked for), render the best as Spanish; NoInfo when nothing covers the question."""

    name = "extractive"

    def __init__(
        self,
        *,
        lang: str = "es",
        index=None,
        embedder=None,
        min_coverage: float = 0.22,
        context_weight: float = 0.25,
        max_sentences: int = 3,
        dense_weight: float = 1.0,
        rank_weight: float = 0.2,
        expand_documents: int = 1,
        ranker: UnitRanker | None = None,
        today: date | None = None,
        **_: object,
    ) -> None:
        self.lang, self.index, self.embedder = lang, index, embedder
        self.ranker = ranker  # learned unit ranking; None: the hand-weighted score
        self.today = today  # the message's date (None: the day it is drafted)
        self.min_coverage, self.context_weight = min_coverage, context_weight
        self.expand_documents = expand_documents  # the best-ranked documents whose every unit is a candidate
        self.dense_led = semantic(embedder)  # similarity leads the unit score (else shared words: LEXICAL_FIRST)
        self.faq = FaqMatcher(embedder, chunks_of=lambda doc: self._by_doc.get(doc, ())) if self.dense_led else None  # a question that means an FAQ entry's own question gets that entry's answer (faq_match)
        self.word_rerank = True  # ranking.rerank on the dense-led hand score (a benchmark turns it off to measure it)
        weights = dict(dense_weight=dense_weight) if self.dense_led else LEXICAL_FIRST
        self.selection = SelectionConfig(max_units=max_sentences, rank_weight=rank_weight, **weights)
        self._df: Counter | None = None
        self._n_docs = 0
        self._book: RecordBook | None = None
        self._by_doc: dict[str, list] = {}
        self._chunk_keys: dict[str, set[str]] = {}
        self._known: dict[tuple[str, int], object] = {}  # the index's chunks, kept with their units' features
        self.verifier = StepVerifier(embedder=None)  # lexical checks only: extracts are copied, renderings reuse their words

    # -- corpus statistics ------------------------------------------------
    def _corpus(self, hits: list[Hit]) -> tuple[Counter, int]:
        if self._df is None and self.index is not None and self.index.exists():
            chunks = [c for c, _ in self.index.all_chunks()]
            self._df, self._n_docs = Counter(k for c in chunks for k in doc_keys(c.embed_text)), len(chunks)
            self._book = RecordBook.build(chunks)
            for c in chunks:
                self._by_doc.setdefault(c.doc_id, []).append(c)
                self._known[(c.doc_id, c.position)] = c
                for u in c.units or ():
                    features(u)  # once per unit here, not per question
        if self._df is not None and self._n_docs:
            return self._df, self._n_docs
        return Counter(k for h in hits for k in doc_keys(h.chunk.embed_text)), max(1, len(hits))

    def _records(self, hits: list[Hit]) -> RecordBook:
        return self._book if self._book is not None else RecordBook.build([h.chunk for h in hits])

    def coverage(self, question: str, hits: list[Hit]) -> tuple[dict[str, float], list[float]]:
        """Question key weights and, per hit, the weighted share of the question its chunk covers."""
        df, n = self._corpus(hits)
        weights = question_weights(question, lambda k: math.log((n + 1) / (df.get(k, 0) + 0.5)), self.context_weight)
        total = sum(weights.values()) or 1.0
        covs = []
        for h in hits:
            have = self._chunk_keys.get(h.chunk.text_hash)
            if have is None:
                have = self._chunk_keys[h.chunk.text_hash] = doc_keys(h.chunk.embed_text)
            covs.append(sum(w for k, w in weights.items() if k in have) / total)
        return weights, covs

    def _candidates(self, question: str, hits: list[Hit]) -> list[Hit]:
        """The hits (as the index's own chunk objects when unchanged), then the other chunks of the best-ranked documents."""
        out = []
        for h in hits:
            known = self._known.get((h.chunk.doc_id, h.chunk.position))
            out.append(Hit(known, h.score) if known is not None and known.text == h.chunk.text else h)  # type: ignore[attr-defined]
        have = {h.chunk.id for h in out}
        for doc in list(dict.fromkeys(h.chunk.doc_id for h in hits))[: self.expand_documents]:
            out.extend(Hit(c, 0.0) for c in self._by_doc.get(doc, []) if c.id not in have)
        if self._book is not None:  # a course the question names, in whichever curriculum holds it
            have = {h.chunk.id for h in out}
            for chunk, _ in self._book.named_in(question):
                if chunk.id not in have:
                    out.append(Hit(chunk, 0.0))
                    have.add(chunk.id)
        return out

    def rank(self, question: str, hits: list[Hit], weights: dict[str, float], asked: Asked) -> list[Candidate]:
        """Every candidate unit scored (by the learned ranker when there is one), best first."""
        book = self._records(hits)
        candidates = self._candidates(question, hits)
        curricula = [doc for doc in dict.fromkeys(h.chunk.doc_id for h in candidates) if doc in book.by_code]
        courses = " ".join(dict.fromkeys(record_name(u) for _, u in book.named_in(question)))  # 'Química 2' names a course, not the programme
        named = frozenset(book.programmes_named(question, curricula, courses)) if len(curricula) > 1 else frozenset()
        qvec = self._query_vector(question, hits)
        cands = score(question, weights, qvec, candidates, self.selection, named)
        if self.dense_led and self.word_rerank:
            rerank(question, cands)  # whole-word matches of the question's object, which the hand score's prefixes miss
        if self.ranker is not None and cands and self.ranker.applies(cands[0].unit.kind):  # cands are in the hand score's order here
            probs = self.ranker.scores(self.features(question, asked, cands, weights))
            for c, p in zip(cands, probs, strict=True):
                c.score, c.learned = float(p), True
        if named:  # the question names its programme ('Ingeniería Mecánica'): a programme whose name holds it and more ('Mecánica Industrial') is another one
            own = set().union(*(book.distinct.get(d, set()) for d in named))
            longer = {d for d in curricula if d not in named and own < book.distinct.get(d, set())}
            for c in cands:
                if c.chunk.doc_id in longer:
                    c.score *= OTHER_PROGRAMME
        if asked.kind == "date" and _UNTIL_Q.search(fold(" ".join(object_parts(question)))):  # 'hasta cuándo': the unit that gives an end date
            for c in cands:
                if _UNTIL.search(fold(c.text)):
                    c.score *= UNTIL_BOOST
        if "count" in asked_types(question) and not _ASKS_CEILING.search(fold(" ".join(asked_parts(question)))):  # how many are required, not how many at most
            for c in cands:
                if ceiling_only(c.text):
                    c.score *= CEILING
        if not asked.negative:  # the rule for a failure the student does not describe ('¿Cómo me asigno…?' against 'Si no fuera aprobada… deberá asignarse')
            for c in cands:
                if c.unit.kind not in ("record", "row") and _FAILURE_CASE.search(opening(c.unit.text)):
                    c.score *= UNASKED_FAILURE
        if (asked.kind != "other" or asked_types(question)) and not _DEFINITION_ASKED.search(" ".join(asked_parts(question))):  # a definition does not give a value, a rule or a step
            for c in cands:
                if _NAMES_TERM.match(opening(c.unit.text)):
                    c.score *= NAMING_ONLY
        if not asked.yes_no and (kinds := asked_types(question)) and {"requirement", "documents"} & kinds:  # the unit that says it gives what is asked ('REQUISITOS: licenciatura…'); '¿Hay algún requisito…?' asks whether, which a rule answers
            for c in cands:
                if same_aspect(c, kinds):
                    c.score *= SAME_ASPECT
        if asked.yes_no and (said := predicate(question)):  # '¿Es compatible con…?': a unit that says whether it is compatible
            for c in cands:
                if said not in fold(c.text) or c.unit.kind in ("record", "row"):  # a plan's 'obligatorio' field is not a rule saying so
                    c.score *= NO_PREDICATE
        if asked.kind == "procedure":  # '¿cómo lo pido?': a step, or the papers and form it is asked with, not what the thing is
            for c in cands:
                if not gives_steps(c):
                    c.score *= NO_STEPS
        for c in cands:  # an FAQ answer read for another question ('¿Hay primera y segunda retrasada?' under '¿Cuáles son las restricciones para llevar retrasada única?')
            if (c.unit.context or "").startswith("¿") and faq_share(asked, c.unit.context) < MIN_FAQ_OBJECT:
                c.score *= OTHER_FAQ
        if asked.kind in ("date", "time", "amount"):  # a fact of a past period only when the question names it
            for c in cands:
                if period_score(c.text, asked) < 0:
                    c.score *= PAST_PERIOD
        if cands and (figures := student_figures(question)):  # 'con 22 puntos': the rule whose range holds the figure applies to the student, not one whose bound excludes it
            best = max(cands, key=lambda x: x.score)
            for c in cands:  # ... when it is as much about what is asked as the best unit ('congelar zona' is not the zone for the exam)
                if c.unit.kind not in ("record", "row") and c.cover >= best.cover and figure_fit(figures, c.text) > 0:
                    c.score *= FIGURE_HELD
        cands.sort(key=lambda x: (-x.score, x.hit_no, x.unit.offset))
        if self.faq is not None:
            self.faq.promote(asked, qvec, cands)
        return cands

    def features(self, question: str, asked: Asked, cands: list[Candidate], weights: dict[str, float] | None = None) -> np.ndarray:
        """The ranker's feature rows of the candidates (`weights`: the question keys' idf weights, computed when not given)."""
        if weights is None:
            weights = self.coverage(question, [Hit(c.chunk, 0.0) for c in cands[:1]])[0]
        titles: dict[str, set[str]] = {}

        def title_keys(chunk) -> set[str]:
            tk = titles.get(chunk.doc_id)
            if tk is None:
                tk = titles[chunk.doc_id] = doc_keys(f"{chunk.doc_title} {chunk.doc_id.replace('_', ' ')}")
            return tk

        return ranker_rows(pair_context(question, asked, weights), cands, title_keys)

    def _query_vector(self, question: str, hits: list[Hit]):
        """The question's embedding, only when the hits carry unit vectors stored at ingestion."""
        if self.embedder is None or not any(u.vector for h in hits for u in h.chunk.units or ()):
            return None
        return self.embedder.embed_queries([question])[0]

    # -- generation -------------------------------------------------------
    def generate(self, question: str, hits: list[Hit], *, history: Sequence[Turn] = (), today: date | None = None) -> Answer:  # noqa: ARG002 - offline, the thread is already in the standalone question
        """The draft; `today` is the message's date (default: the generator's, else the day it is drafted)."""
        start = time.perf_counter()
        weights, covs = self.coverage(question, hits)
        if not hits or max(covs, default=0.0) < self.min_coverage:
            return self._no_info(hits, start, covs)
        book = self._records(hits)
        asked = ask(question, today or self.today or date.today())
        cands = self.rank(question, hits, weights, asked)
        if max((c.cover for c in cands), default=0.0) < self.min_coverage:
            return self._no_info(hits, start, covs, cands)  # no unit (with its headings) covers enough of the question: the closest passages for the reviewer
        chosen = select(cands, weights, question, self.selection)
        if asked.kind in ("date", "time", "amount") and chosen:
            chosen = current_period(asked, chosen, cands)
        if asked.kind == "date" and chosen and (other := compared_row(question, chosen[0], cands, asked)) is not None and other not in chosen:
            chosen = [*chosen, *[c for c in rows_between(question, chosen[0], other, cands, asked) if c not in chosen], other]
        if asked.kind == "amount" and chosen and (note := price_note(chosen[0], cands)) is not None and note not in chosen:
            chosen = [*chosen, note]
        if not chosen:
            return self._no_info(hits, start, covs)
        chosen = with_antecedents(chosen, cands)
        if (record := attribute_head(question, asked_attributes(question), chosen, cands, book)) is not None:
            chosen = [record]  # a course's area, semester or credits: only its record says them
        elif (total := career_total(question, chosen, book)) is not None:
            chosen = [_as_candidate(chosen[0], *total)]  # the career's total credits, from the plan of the programme asked
        d = _Steps(hits)
        named_records = [c for c in chosen if c.unit.kind == "record" and {"name", "code"} & set(c.parts)]
        head = next((c for c in named_records if c is chosen[0] or c.score >= self.selection.near_tie * chosen[0].score), chosen[0])  # a course the question names
        if head is chosen[0] and head not in named_records:  # a passage answers: a record of the course it names, scored clearly below, is a neighbour
            chosen = [c for c in chosen if c not in named_records] or chosen
        lead, by_docs, quoted, steps, pointed, held = None, False, "", False, False, None
        if head.unit.kind == "record" and {"name", "code"} & set(head.parts):
            final, lead, held = self._record_answer(question, head, book, d)
        elif (variants := item_variants(question, asked, chosen[0], cands)) is not None:
            chosen = variants  # the answer differs by variant and the question does not say which: each one, a line each
            final = self._list_answer("", variants, d, numbered=False)
        elif (listed := whole_list(asked, chosen[0], cands, question)) is not None:
            chosen = listed[1]
            final = self._list_answer(*listed, d, numbered=asked.kind == "procedure")
            steps = asked.kind == "procedure" and bool(listed[0]) and 2 * sum(gives_steps(c) for c in chosen) >= len(chosen)  # steps under the lead-in that names what they do (not a list of requirements)
            if asked.kind == "procedure" and (tail := list_tail(chosen, cands)) is not None:  # where the listed papers go
                said = self._render(tail, book, d)
                final = d.concat([final, said], f"{final.conclusion}\n{said.conclusion}")
                chosen = [*chosen, tail]
        elif asked.yes_no and not answers_predicate(question, chosen[0]) and (rest := clause_rest(chosen[0], cands, chosen)) is not None:
            chosen = [rest[0], *rest[2]]  # a yes/no answer carries its rule's conditions and exceptions, not a neighbour
            for c in rest[2]:
                c.before = None  # what it refers back to is the rule or a sentence said just before it
            final = self._clause_answer(rest[0], rest[1:], book, d, cands)
        else:
            final = self._units_answer(chosen, book, d, cands)
            pointed = bool(cut_leads(chosen))
            docs = {c.chunk.doc_id for c in chosen}
            if len(docs) == 1 and (ref := self.referenced_article(chosen, cands)) is not None:
                own = final.conclusion
                final = self._with_reference(final, ref, book, d, listed=len(chosen) > 1)
                quoted = final.conclusion[len(own) :]  # the followed article, said whole: not counted in the draft's length
            if len(docs) > 1:  # several sources: say whose is whose, each source named once
                order = general_first(chosen)
                said: dict[str, list[str]] = {}
                for c, line in zip(order, re.split(r"\n(?! )", final.conclusion), strict=True):  # a unit's nested list stays with it
                    said.setdefault(book.labels.get(c.chunk.doc_id, c.chunk.doc_title), []).append(line[2:])
                lead = "\n".join(f"- {who}: {' '.join(lines)}" for who, lines in said.items())
                by_docs = True
        extra: list[Candidate] = []
        if lead is None and not (head.unit.kind == "record" and {"name", "code"} & set(head.parts)):
            denied = asked.yes_no and clause_yes_no(question, chosen) == "no"
            extra = [c for c in request_completion(question, asked.kind, chosen, cands, denied=denied) if c not in chosen]
            if extra:  # how and by when to ask for it, from the same section or the document's 'Cómo se solicita' / 'Plazos'
                own = final.conclusion
                final = self._request_lines(final, extra, chosen[0], book, d)
                quoted += final.conclusion[len(own) :]  # the rest of the answer, said whole: not counted in the draft's length (like a followed article)
        answered = chosen  # the units the answer is read from (a 'Sí'/'No', a figure): not the how and when added to it
        chosen = [*chosen, *extra]
        final.is_final = True
        body = final.conclusion if lead is None else lead  # a lead replaces the conclusion: a question back, or values labelled by programme
        if head.unit.kind == "record" and {"name", "code"} & set(head.parts):
            body = _code_note(question, head, book, self.lang) + body
        named_record = head.unit.kind == "record" and bool({"name", "code"} & set(head.parts))
        state = assess(question, asked, answered, cands, learned=bool(cands) and cands[0].learned, lang=self.lang, body=body, record=named_record, quoted=quoted, steps=steps)
        if held is False and state.ready:  # the plan does not hold the asked attribute ('area: No especificada'): the draft says so, not ready
            state = Readiness(False, missing_attributes(asked_attributes(question), record_name(head.unit), self.lang), passages(cands), state.evidence)
        if pointed and state.ready:
            state = Readiness(False, t("missing_list", self.lang), passages(cands), state.evidence)  # the list the answer announces is not in the draft
        if asked.yes_no and (lead is None or by_docs) and not named_record:
            figure = by_number(question, [c.text for c in answered]) or by_condition(question, [c.text for c in answered]) or by_requirement(question, [c.text for c in answered])
            answer = figure or (None if cut_denial(answered[0], cands) else by_predicate(question, answered[0].text) or clause_yes_no(question, answered))
            if answer == "yes" and figure is None and state.ready and (_EXISTS_Q.search(fold(" ".join(asked_parts(question)))) or not asked_types(question) and object_share(asked, chosen[:1], own=True) < YES_OBJECT):
                state = Readiness(False, t("missing_type", self.lang).format(what=t("what_yes_no", self.lang), object=object_phrase(question)), passages(cands), state.evidence)  # a 'may'/'must' verb near part of the object is weak evidence of a 'yes'
            if answer is not None and state.ready and wh_asked(question):
                state = Readiness(False, t("missing_other_question", self.lang).format(opening=t(answer, self.lang).rstrip(".")), passages(cands), state.evidence)  # '…, ¿qué hago?' is not answered by a 'Sí'
            if answer is not None:
                if not re.match(rf"{re.escape(t(answer, self.lang).rstrip('.'))}\b", body):  # an FAQ's own 'Sí.' is not said twice
                    body = f"{t(answer, self.lang)} {body}" if "\n" not in body else f"{t(answer, self.lang)}\n{body}"
            elif state.ready:
                state = Readiness(False, t("missing_type", self.lang).format(what=t("what_yes_no", self.lang), object=object_phrase(question)), passages(cands), state.evidence)
        return self._answer(body, d, final, covs, start, question, state)

    def _request_lines(self, final: Step, extra: list[Candidate], top: Candidate, book: RecordBook, d: _Steps) -> Step:
        """The answer, then one line per section of the units that say how and when to ask for it: a section other than
        the best unit's is named by its heading ('Cómo se solicita: Completá el formulario ICE-1…')."""
        lines, steps = [], []
        for section in dict.fromkeys(c.chunk.section for c in extra):
            group = [c for c in extra if c.chunk.section == section]
            said = [d.add("Refine", [d.extract(c.chunk, c.unit).id], _item_text(c)) if c.unit.kind == "item" else self._render(c, book, d) for c in group]
            steps.extend(said)
            text = ""
            for c, s in zip(group, said, strict=True):
                if c.unit.kind == "item" and text.endswith((":", ";")):  # a lead-in's list said on its line: 'Las solicitudes se reciben…: del 1 al 31 de marzo; del 1 al 30 de septiembre.'
                    text = f"{text} {c.unit.text.strip().rstrip(';,. ')};"
                else:
                    text = f"{text.rstrip(';')}{'.' if text.endswith(';') else ''} {c.unit.text.strip() if c.unit.kind == 'sentence' and c.unit.text.rstrip().endswith(':') else s.conclusion}".strip()
            text = f"{text[:-1]}." if text.endswith(";") else text
            if section and section != top.chunk.section and top.chunk.doc_id == group[0].chunk.doc_id:
                text = f"{caps_lead(heading_case(section.rstrip(': ')))}: {text}"
            lines.append(text)
        return d.concat([final, *steps], "\n".join([final.conclusion, *lines]))

    def _clause_answer(self, top: Candidate, rest: tuple[str, list[Candidate]], book: RecordBook, d: _Steps, cands: list[Candidate]) -> Step:
        """The best unit, then the rest of its rule that conditions it: the list that follows it, or its exception sentences."""
        first = self._render(top, book, d, _twins(top, cands))
        kind, units = rest
        if kind == "list":
            tail = self._list_answer("", units, d, numbered=False)
        else:
            said = [self._render(c, book, d) for c in units]
            tail = d.concat(said, " ".join(x.conclusion for x in said))
        return d.concat([first, tail], f"{first.conclusion}\n{tail.conclusion}" if kind == "list" else f"{first.conclusion} {tail.conclusion}")

    def referenced_article(self, chosen: list[Candidate], cands: list[Candidate]) -> Candidate | None:
        """The article of the same document that the answer defers to ('…debe cumplir con lo establecido en el artículo 58'):
        its best-scored unit among the candidates, else its opening unit. None when the answer refers to no article of its
        own document, or already says the one it refers to."""
        top = chosen[0]
        if top.unit.kind not in ("sentence", "item", "faq"):
            return None
        said = {_article_no(c) for c in chosen}
        for n in referred_articles(" ".join(c.unit.text for c in chosen)):
            if n in said:
                continue
            inside = [c for c in cands if c.chunk.doc_id == top.chunk.doc_id and _article_no(c) == n and c.unit.kind != "heading"]
            if inside:
                return max(inside, key=lambda c: c.score)
            for chunk in self._by_doc.get(top.chunk.doc_id, []):
                for u in units_of(chunk):
                    if u.kind != "heading" and _article_of(chunk.section, u) == n:
                        return _as_candidate(top, chunk, u)
        return None

    def _with_reference(self, final: Step, ref: Candidate, book: RecordBook, d: _Steps, *, listed: bool) -> Step:
        """The answer, then the article it refers to (a line of its own; a list item when the answer is a list)."""
        said = self._render(ref, book, d)
        line = f"- {said.conclusion}" if listed and final.conclusion.lstrip().startswith("- ") or "\n- " in final.conclusion else said.conclusion
        return d.concat([final, said], f"{final.conclusion}\n{line}")

    def _list_answer(self, lead: str, items: list[Candidate], d: _Steps, *, numbered: bool) -> Step:
        """A list said whole under its lead-in: numbered when it is a procedure; items after one ending in ':' are its sub-items."""
        parts = [d.extract(c.chunk, c.unit) for c in items]
        lines, n = [], 0
        label = {row_label(c.unit) for c in items}
        shared = len(items) > 1 and len(label) == 1 and "" not in label  # rows that each say the same column word before their value: said once, after the lead-in
        for c, sub in zip(items, nested(items), strict=True):
            text = render_fields(c.unit, label=False) if shared else _item_text(c)
            if sub:
                lines.append(f"   - {text}")
                continue
            n += 1
            lines.append(f"{n}. {text}" if numbered else f"- {text}")
        lead = caps_lead(heading_case(lead))
        if shared:
            lead = f"{lead} ({next(iter(label))})" if lead else next(iter(label)).capitalize()
        return d.concat(parts, (f"{lead}:\n" if lead else "") + "\n".join(lines))

    def _render(self, c: Candidate, book: RecordBook, d: _Steps, twins: list[Candidate] = ()) -> Step:  # type: ignore[assignment]
        """Extract the unit from its chunk (and the same unit from other documents that say it word for word), then render it."""
        if c.unit.kind == "record":
            return self._record_line([(x.chunk, x.unit) for x in (c, *twins)], book, d)
        if c.before is not None:  # a sentence that refers back, said after the one it refers to
            ex = d.concat([d.extract(c.before.chunk, c.before.unit), d.extract(c.chunk, c.unit)])
            return d.add("Refine", [ex.id], f"{cite_article(render(c.before.unit))} {render(c.unit)}")
        ex = d.concat([d.extract(x.chunk, x.unit) for x in (c, *twins)])
        text = cite_article(render(c.unit)) if c.unit.kind == "sentence" else render(c.unit)
        return d.add("Refine", [ex.id], text) if twins or text != ex.conclusion else ex

    def _record_line(self, entries: list, book: RecordBook, d: _Steps, *, only: tuple[str, ...] | None = None, head: bool = True) -> Step:
        """Records that say the same (one per document) as one sentence; prerequisite codes composed with the records they name."""
        group = d.concat([d.extract(chunk, unit) for chunk, unit in entries])
        chunk, unit = entries[0]
        plain = render_fields(unit, only=only, head=head)
        named = self._named_prerequisites(chunk, unit, book, d)
        if named is not None:
            return d.add("Compose", [group.id, named.id], render_fields(unit, book.names(chunk.doc_id, record_name(unit), self.lang), only=only, head=head))
        return d.add("Refine", [group.id], plain)

    def _named_prerequisites(self, chunk, unit: Unit, book: RecordBook, d: _Steps) -> Step | None:
        value = next((v for k, v in unit.fields.items() if k.startswith(("prerequisit", "prerrequisit"))), "")
        codes = re.findall(r"\b\d{3,4}\b", value)
        entries = [book.entry(chunk.doc_id, code) for code in codes]
        if not codes or any(e is None for e in entries):
            return None
        return d.concat([d.extract(c, u) for c, u in entries])  # type: ignore[misc]

    def _units_answer(self, chosen: list[Candidate], book: RecordBook, d: _Steps, cands: list[Candidate] = ()) -> Step:  # type: ignore[assignment]
        chosen = general_first(chosen)
        ctx = chosen[0].unit.context
        if len(chosen) > 1 and ctx and all(c.unit.kind == "item" and c.unit.context == ctx and c.chunk.doc_id == chosen[0].chunk.doc_id for c in chosen):
            return self._list_answer(ctx.rstrip(": "), chosen, d, numbered=False)  # items of one list: their heading said once
        rendered = [self._render(c, book, d, _twins(c, cands)) for c in chosen]
        cut = {id(c) for c in cut_leads(chosen)}
        rendered = [self._pointed(c, r, d) if id(c) in cut else r for c, r in zip(chosen, rendered, strict=True)]
        if len(rendered) == 1:
            return rendered[0]
        return d.concat(rendered, "\n".join(f"- {s.conclusion}".replace("\n", "\n   ") for s in rendered))  # a unit's own list nested under it

    def _pointed(self, c: Candidate, said: Step, d: _Steps) -> Step:
        """A lead-in said without the list it announces, pointing to where that list is: a draft never ends on '…las siguientes:'."""
        n = _article_no(c)
        where = t("list_in_article", self.lang).format(n=n) if n is not None else t("list_in_document", self.lang)
        return d.add("Refine", [said.id], f"{said.conclusion.rstrip('.: ')} {where}.")

    def _record_answer(self, question: str, head: Candidate, book: RecordBook, d: _Steps) -> tuple[Step, str | None, bool | None]:
        """A course record: the programme's own when the question names one, else per programme where the curricula differ.
        Returns (the final step, a lead that replaces the body, whether the plans hold the asked attribute: None when the
        question asks the whole record)."""
        same = book.same_name(head.unit)
        codes = set(re.findall(r"\b\d{3,4}\b", question))
        if codes and any(record_code(u) in codes for _, u in same.values()):
            same = {doc: e for doc, e in same.items() if record_code(e[1]) in codes}  # the code the student gave
        attrs = asked_attributes(question)  # the attribute asked (area, credits, prerequisites...): said first and alone
        if len(same) < 2:
            if attrs:
                return attributes_answer(attrs, {head.chunk.doc_id: (head.chunk, head.unit)}, [head.chunk.doc_id], book, d, lang=self.lang, max_variants=MAX_VARIANTS, polarity=polarity_of(question))
            return self._render(head, book, d), None, None
        name = render_fields(head.unit, only=("__none__",)).rstrip(".")
        named = book.programmes_named(question, list(same), name)
        if named:
            doc = head.chunk.doc_id if head.chunk.doc_id in named else named[0]
            chunk, unit = same[doc]
            if attrs:
                return attributes_answer(attrs, {doc: (chunk, unit)}, [doc], book, d, lang=self.lang, max_variants=MAX_VARIANTS, polarity=polarity_of(question))
            return self._render(_as_candidate(head, chunk, unit), book, d), None, None
        order = sorted(same, key=lambda doc: (doc != head.chunk.doc_id, doc))
        if attrs:
            return attributes_answer(attrs, same, order, book, d, lang=self.lang, max_variants=MAX_VARIANTS, polarity=polarity_of(question))
        asked = asked_types(question)
        only = ("prerequisit", "prerrequisit") if "requirement" in asked else ("credit", "crédit") if "count" in asked else None
        groups: dict[str, list[str]] = {}
        for doc in order:
            groups.setdefault(render_fields(same[doc][1], only=only, head=False), []).append(doc)
        if len(groups) == 1:
            return self._record_line([same[x] for x in order], book, d), None, None
        labels = {doc: book.labels.get(doc, doc) for doc in order}
        if len(groups) > MAX_VARIANTS:  # the variants do not fit in a few lines: ask which programme
            evidence = d.concat([d.extract(*same[x]) for x in order])
            lead = t("which_programme", self.lang).format(name=name, n=len(same), programmes=", ".join(labels[x] for x in order))
            return evidence, lead, None
        ranked = sorted(groups.values(), key=len)  # the largest group last: 'the other programmes'
        lines, shown = [], []
        for i, docs in enumerate(ranked):
            lines.append(self._record_line([same[x] for x in docs], book, d, only=only, head=False))
            who = t("other_programmes", self.lang) if i == len(ranked) - 1 and len(docs) >= 3 else ", ".join(labels[x] for x in docs)
            said = lines[-1].conclusion
            shown.append(f"- {who}: {said[:1].lower()}{said[1:].replace(': ', ' ', 1)}")  # whose is whose: document names, not claims
        final = d.concat(lines)
        return final, t("per_programme", self.lang).format(name=name) + "\n" + "\n".join(shown), None

    def _answer(self, body: str, d: _Steps, final: Step, covs: list[float], start: float, question: str, state: Readiness) -> Answer:
        body = NEXT_HEADING.sub("", body)
        refs = references_for(d.steps, final, d.hits)
        self.verifier.verify(d.steps, [h.chunk.embed_text for h in d.hits], question)
        return Answer(
            extra_flags=[state.flag(self.lang)],
            text=format_reply(body, refs, self.lang),
            method="extractive",
            model=MODEL_LABEL,
            references=refs,
            derivation=d.steps,
            hits=d.hits,
            latency_ms=(time.perf_counter() - start) * 1000,
            notes=[t("extractive_label", self.lang), f"cobertura léxica máxima {max(covs, default=0):.3f}"],
        )

    def _no_info(self, hits: list[Hit], start: float, covs: list[float], cands: Sequence[Candidate] = ()) -> Answer:
        step = Step(id="s1", rule="NoInfo", premises=[], conclusion=t("no_info", self.lang), is_final=True)
        return Answer(
            text=format_reply(t("no_info", self.lang), [], self.lang),
            method="extractive",
            model=MODEL_LABEL,
            no_info=True,
            derivation=[step],
            hits=hits,
            latency_ms=(time.perf_counter() - start) * 1000,
            notes=[t("extractive_label", self.lang), f"cobertura léxica máxima {max(covs, default=0):.3f} < {self.min_coverage:.3f}"],
            extra_flags=[Readiness(False, t("no_info", self.lang), passages(cands)).flag(self.lang)],
        )


# A sentence that refers back to the one before it ('Este plazo no se prorroga.', 'Dicho examen…', 'En ese caso…', 'Para
# ello…'): said alone, it leaves the student asking which one. A demonstrative of the document or the institution itself
# ('Este reglamento', 'Esta Facultad') does not. Lower-cased text, accents kept ('Está prohibido' is a verb, not 'esta').
_POINTS_BACK = re.compile(
    r"^(?:(?:y|pero|adem[aá]s|asimismo|tambi[eé]n|por (?:lo tanto|ello|eso))\W+)?"
    r"(?:(?:en|para|con|de|por|a|ante|durante|tras|desde|hasta|sin|seg[uú]n|sobre)\s+)?"
    r"(?:est[eo]|esta|estos|estas|es[eoa]|esos|esas|dich[oa]s?|tal(?:es)?|aquel(?:la|los|las)?|lo anterior|ello)\b"
    r"(?!\s+(?:reglamento|normativ\w*|documento|instructivo|gu[ií]a|manual|facultad|universidad|escuela|art[ií]culo|cap[ií]tulo|a[nñ]o|semestre|ciclo|sitio|p[aá]gina|portal)\b)"
)
_HEAD_OF_ARTICLE = re.compile(r"^(?:art[ií]culo|art\.)\s*\d+\s*[°º.]*\s*(?:[A-ZÁÉÍÓÚÑ ]{3,}:\s*)?", re.IGNORECASE)
ANTECEDENT_WORDS = 60  # a longer sentence before is not said along


# The next article's heading left at the end of a sentence by the PDF text ('…prácticas, etc. Artículo 38°.'): said after
# a sentence's end, with its degree sign (a reference inside a sentence, 'definidas en el Artículo 8°.', follows a word).
NEXT_HEADING = re.compile(r"(?<=[.;:!?])[ \t]+art[ií]culo[ \t]+\d+[ \t]*[°º]\.?[ \t]*$", re.IGNORECASE | re.MULTILINE)


def faq_share(asked: Asked, faq_question: str) -> float:
    """The share of the asked object's keys an FAQ entry's own question names (1 when the question names no object)."""
    if not asked.object_keys:
        return 1.0
    have = doc_keys(faq_question)
    return sum(1 for k in asked.object_keys if k in have or k[:4] in have) / len(asked.object_keys)


def points_back(text: str) -> bool:
    """Whether a sentence opens by referring to the one before it."""
    return bool(_POINTS_BACK.match(_HEAD_OF_ARTICLE.sub("", text.strip()).lower()))


def with_antecedents(chosen: list[Candidate], cands: Sequence[Candidate]) -> list[Candidate]:
    """Each chosen sentence that refers back ('Este plazo no se prorroga.') carries the sentence before it in its paragraph
    (`before`), said with it; an antecedent chosen on its own too is said only there, the pair taking its place."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind != "sentence" or c.before is not None or not points_back(c.unit.text) or _NEW_ARTICLE.match(c.unit.text):
            continue
        units = units_of(c.chunk)
        at = next((i for i, u in enumerate(units) if u is c.unit), None)
        if not at:
            continue
        prev = units[at - 1]
        if prev.kind != "sentence" or prev.context != c.unit.context or prev.text.rstrip().endswith(":") or len(prev.text.split()) > ANTECEDENT_WORDS:
            continue
        ante = next((x for x in cands if x.unit is prev), None) or _as_candidate(c, c.chunk, prev)
        c.before = ante
        if ante in out:
            out = [c if x is ante else x for x in out if x is not c]
    return out


# A special case of a rule ('Si el estudiante…', 'En caso de…', 'Salvo…', 'Excepcionalmente…'), said after the rule it
# qualifies when both are chosen. Lower-cased text.
_SPECIAL_CASE = re.compile(
    r"^(?:si|cuando|en (?:el )?caso (?:de|que)|en los casos|salvo|excepto|a excepci[oó]n|con excepci[oó]n|excepcionalmente|"
    r"quienes|sin embargo|no obstante|s[oó]lo (?:si|cuando)|[uú]nicamente (?:si|cuando))\b"
)


def special_case(c: Candidate) -> bool:
    """Whether a unit (with the sentence it refers back to) states a special case rather than the general rule."""
    text = (c.before or c).unit.text
    if c.unit.kind == "item":
        text = re.sub(r"^[^:]{2,60}:\s", "", text)  # 'Label: Si …'
    return bool(_SPECIAL_CASE.match(_HEAD_OF_ARTICLE.sub("", text.strip()).lower()) or RESTRICTED.search(fold(c.unit.text)))


def general_first(chosen: Sequence[Candidate]) -> list[Candidate]:
    """The chosen units in the order they are said: by document, the chunk of the best unit first, each chunk's units in the
    document's order (on a tie, the better first); a special case goes after the general rules of its own chunk said after
    it: the rule, then its exception."""
    lead = {}  # a chunk's place: that of its best unit (chosen is best first); a unit's offset counts within its chunk
    for i, c in enumerate(chosen):
        lead.setdefault(id(c.chunk), i)
    out = sorted(chosen, key=lambda c: (c.doc_rank, lead[id(c.chunk)], c.unit.offset))
    for c in [x for x in out if special_case(x)]:
        pos = next(i for i, x in enumerate(out) if x is c)
        rules = [x for x in out[pos + 1 :] if not special_case(x) and x.chunk is c.chunk]
        if rules:
            out = [x for x in out if x is not c]
            i = next(i for i, x in enumerate(out) if x is rules[-1])
            out.insert(i + 1, c)
    return out


def _twins(c: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """The same unit, word for word, in other documents among the candidates (one per document): said once, cited by all."""
    same = " ".join(tokens(c.text))
    out: dict[str, Candidate] = {}
    for x in cands:
        if x.chunk.doc_id != c.chunk.doc_id and x.chunk.doc_id not in out and x.unit.kind == c.unit.kind and " ".join(tokens(x.text)) == same:
            out[x.chunk.doc_id] = x
    return list(out.values())


def _as_candidate(like: Candidate, chunk, unit: Unit) -> Candidate:
    return Candidate(unit, 0, chunk, like.doc_rank, render(unit), like.keys, like.score, dict(like.parts))


_QNUM = re.compile(r"(?<![\d.,/])(\d{1,3})(?![\d.,/])")
_RANGE = re.compile(r"\bentre (\d{1,3}) y (\d{1,3})\b")
_AT_LEAST = re.compile(r"\b(?:al menos|como minimo|un minimo de|minimo de|minima de|no menos de|mas de|a partir de(?: los)?) (\d{1,3})\b")
_OR_MORE = re.compile(r"\b(\d{1,3}) (?:\w+ )?o mas\b")
_AT_MOST = re.compile(r"\b(?:como maximo|un maximo de|maximo de|hasta|no mas de|menos de) (\d{1,3})\b")


def by_number(question: str, texts: Sequence[str]) -> str | None:
    """'yes'/'no' when the student gives one figure ('con 22 puntos') and the rules state ranges or thresholds
    ('entre 20 y 24 puntos', 'al menos 80 %'): yes when one of them admits the figure, None when none bounds it. A figure
    said with what it measures ('Física 2 … con 22 puntos') is matched with the bounds of that measure."""
    if figures := student_figures(question):
        fits = [figure_fit(figures, text) for text in texts]
        if any(f > 0 for f in fits):
            return "yes"
        if any(f < 0 for f in fits):
            return "no"
    nums = {int(n) for n in _QNUM.findall(question)}
    if len(nums) != 1:
        return None
    n = nums.pop()
    said = []
    for text in texts:
        t_ = fold(text)
        if m := _RANGE.search(t_):
            said.append(int(m.group(1)) <= n <= int(m.group(2)))
        elif m := _AT_LEAST.search(t_) or _OR_MORE.search(t_):
            said.append(n >= int(m.group(1)))
        elif m := _AT_MOST.search(t_):
            said.append(n <= int(m.group(1)))
    if not said:
        return None
    return "yes" if any(said) else "no"  # one rule that admits the figure is a way to do it


_ARTICLE = re.compile(r"^(?i:art[íi]culo)\s+(\d+)\s*[°º]?\.\s+(?=[A-ZÁÉÍÓÚÑ])")


_CAPS_TITLE = re.compile(r"^(?:[A-ZÁÉÍÓÚÑ]{2,}\s+){0,6}[A-ZÁÉÍÓÚÑ]{3,}\s*:\s*(?=[A-ZÁÉÍÓÚÑa-záéíóúñ])")
_CAPS_LEAD = re.compile(r"^((?:ART[ÍI]CULO|T[ÍI]TULO|CAP[ÍI]TULO)\s+[\dIVXLC]+\s*[°º]?\.?\s+(?:[A-ZÁÉÍÓÚÑ]{2,}\s*){1,8}):\s*")


def caps_lead(text: str) -> str:
    """'ARTÍCULO 30°. FALTA LEVE: se considera…' → 'Artículo 30°. Falta leve: se considera…' (a heading glued in capitals)."""
    m = _CAPS_LEAD.match(text)
    return f"{heading_case(m.group(1).strip())}: {text[m.end():]}" if m else text


def cite_article(text: str) -> str:
    """'Artículo 80°. Los estudiantes podrán…' said as 'Según el artículo 80, los estudiantes podrán…'."""
    m = _ARTICLE.match(text)
    if not m:
        return text
    rest = _CAPS_TITLE.sub("", text[m.end() :])  # 'DEL PROTOCOLO: Durante…' → 'Durante…'
    first = rest.split(" ", 1)[0]
    rest = rest if first.isupper() and len(first) > 1 else rest[:1].lower() + rest[1:]
    return f"Según el artículo {m.group(1)}, {rest}"


# A sentence that defers to another article of its document: '…cumplir con lo establecido en el artículo 58', 'con excepción
# de los casos contemplados en el Artículo 20 de este normativo', 'según el art. 12'. Folded text.
_REFERS = re.compile(
    r"\b(?:establecid[oa]s?|segun|conforme|de acuerdo|contemplad[oa]s?|indicad[oa]s?|senalad[oa]s?|estipulad[oa]s?|previst[oa]s?|"
    r"dispuest[oa]s?|excepcion|referid[oa]s?|descrit[oa]s?|cumplir con|regulad[oa]s?|requisitos)\b"
    r"(?:\W+\w+){0,4}?\W+(?:el |los |del |al )?art(?:iculos?|\.)\s*(\d{1,3})\b(?!\s*[°º]?\s*(?:literal|inciso|numeral)?\s*\w?\)?\s*(?:,\s*)?de(?:l| la)\s+(?:reglamento|ley|estatuto|codigo|constitucion|acuerdo))"
)
_ARTICLE_NO = re.compile(r"^(?:art[ií]culo|art\.)\s*(\d{1,3})\b", re.IGNORECASE)


def referred_articles(text: str) -> list[int]:
    """The articles of the same document a text defers to, in order (not an article of another regulation it names)."""
    return list(dict.fromkeys(int(m.group(1)) for m in _REFERS.finditer(fold(text))))


def _article_of(section: str | None, unit: Unit) -> int | None:
    """The article a unit belongs to: its own 'Artículo N°.' head, else its chunk's (a chunk of an article opens with it)."""
    m = _ARTICLE_NO.match(unit.text) or _ARTICLE_NO.match((section or "").strip())
    return int(m.group(1)) if m else None


def _article_no(c: Candidate) -> int | None:
    return _article_of(c.chunk.section, c.unit)


_DID = re.compile(r"\bya (?:lo |la )?([a-z]{3,})(?:e|i)\b")  # 'ya cursé', 'ya lo aprobé' (folded)
_NOT_DONE = re.compile(r"\bno haber(?:lo|la|los|las)? ([a-z]{3,})(?:ado|ido)\b")


def by_condition(question: str, texts: Sequence[str]) -> str | None:
    """'no' when the student says they already did what a rule requires not to have done ('¿Puedo pedir suficiencia de un
    curso que ya cursé?' against 'es no haberlo cursado anteriormente')."""
    did = {m[:4] for m in _DID.findall(fold(question))}
    if not did:
        return None
    for text in texts:
        if any(m[:4] in did for m in _NOT_DONE.findall(fold(text))):
            return "no"
    return None


_WITHOUT = re.compile(r"\bsin (?:haber(?:lo|la|los|las)? )?([a-z]{4,})((?: [a-z]+){1,4})")  # 'sin haber aprobado las prácticas intermedias' (folded)
_REQUIRED = r"\b(?:debera[n]?|debe[n]?|tiene[n]? que|es necesario|es requisito|se requiere|haber(?:lo|la|los|las)?) "


def by_requirement(question: str, texts: Sequence[str]) -> str | None:
    """'no' when the student asks to do something without what a rule requires ('¿Puedo llevar cursos de octavo sin haber
    aprobado las prácticas intermedias?' against 'deberá aprobar prácticas intermedias como requisito para…'): the rule's
    'deberá' reads as a yes to the rule, not to the question."""
    m = _WITHOUT.search(fold(question))
    if m is None:
        return None
    act, what = m.group(1)[:4], set(query_keys(m.group(2)))
    for text in texts:
        t = fold(text)
        for r in re.finditer(_REQUIRED + r"(?:\w+ ){0,1}(" + re.escape(act) + r"[a-z]*)((?: [a-z]+){1,6})", t):
            if what & set(query_keys(r.group(2))):
                return "no"
    return None


_EXCEPTION = re.compile(r"\b(?:a excepcion|con excepcion|excepto|salvo|siempre (?:que|y cuando)|solo (?:si|cuando|podra|podran|se)|unicamente|en ningun caso|no obstante|sin embargo)\b")
_NEW_ARTICLE = re.compile(r"^(?:art[ií]culo|art\.)\s*\d+", re.IGNORECASE)
CLAUSE_SPAN = 4  # units after the best one read as the rest of its rule


def clause_rest(top: Candidate, cands: Sequence[Candidate], chosen: Sequence[Candidate] = ()) -> tuple[Candidate, str, list[Candidate]] | None:
    """The rule a yes/no answer is read from, with what conditions it: the list right after it ('La solicitud: - se
    presenta hasta …'), or the sentences of the same article or paragraph that deny or make an exception ('El estudiante
    no puede … a excepción de …'). A list item is one condition of the sentence its list follows: that sentence leads.
    None when the rule says nothing more."""
    units = units_of(top.chunk)
    at = next((i for i, u in enumerate(units) if u is top.unit), None)
    if at is None:
        return None
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    if top.unit.kind == "item":  # the sentence before its list states the rule
        lo = at
        while lo > 0 and units[lo - 1].kind == "item" and units[lo - 1].context == top.unit.context:
            lo -= 1
        lead = units[lo - 1] if lo > 0 else None
        if lead is None or lead.kind != "sentence" or lead.context != top.unit.context or id(lead) not in by_unit or _fragment(lead.text):
            return None
        top, at = by_unit[id(lead)], lo - 1
    if top.unit.kind != "sentence":
        return None
    taken = {id(c.unit) for c in chosen}
    after = units[at + 1 : at + 1 + CLAUSE_SPAN]
    if after and after[0].kind == "item" and id(after[0]) in by_unit:  # the list the sentence leads into
        items = []
        for u in units[at + 1 :]:
            if u.kind != "item" or u.context != after[0].context or id(u) not in by_unit:
                break
            items.append(by_unit[id(u)])
        return (top, "list", items) if 1 <= len(items) <= MAX_LIST else None
    found, joined = [], True  # joined: the sentence before is the rule or one said with it
    for u in after:
        if u.kind != "sentence" or u.context != top.unit.context or _NEW_ARTICLE.match(u.text) or id(u) not in by_unit:
            break
        folded = fold(u.text)
        goes_on = joined and points_back(u.text)  # 'En ese caso…' right after the rule says what the rule allows
        joined = False
        if id(u) not in taken and not _fragment(u.text) and (_NO.search(folded) or _EXCEPTION.search(folded) or goes_on):
            found.append(by_unit[id(u)])
            joined = True
    return (top, "sentences", found) if found else None


_MONTHS = r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"
_DATE_END = re.compile(rf"(?:\b\d{{1,2}} de {_MONTHS}|\b{_MONTHS})(?: (?:de(?:l)? )?\d{{4}})?\W*$|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\W*$|\b(?:de(?:l)?|a[nñ]o|en) (?:19|20)\d{{2}}\W*$")


def _fragment(text: str) -> bool:
    """A sentence cut short (a page break inside it: 'El estudiante no puede 6'): too few words to say anything whole. A
    sentence that ends in a date ('… hasta el 22 de enero de 2027.') ends in a number and is whole."""
    words = text.split()
    return len(words) < 5 or bool(re.fullmatch(r"\d+\.?", words[-1])) and not _DATE_END.search(fold(text))


def cut_denial(top: Candidate, cands: Sequence[Candidate]) -> bool:
    """Whether the best unit's article goes on with a denial that was cut short (by a page break): its 'Sí' cannot be
    told, since the cut part may deny what the student asks."""
    units = units_of(top.chunk)
    at = next((i for i, u in enumerate(units) if u is top.unit), None)
    if at is None:
        return False
    for u in units[at + 1 : at + 1 + CLAUSE_SPAN]:
        if u.kind != "sentence" or u.context != top.unit.context or _NEW_ARTICLE.match(u.text):
            break
        if _fragment(u.text) and _NO.search(fold(u.text)):
            return True
    return False


_FUNCTION = frozenset("que los las del por para con una uno unos unas mis tus sus este esta estos estas ese esa como cuando donde pero sin sobre entre desde hasta mas muy ser estar hay puedo puede pueden podra podran".split())


def _overlap(question: str, text: str) -> int:
    """Words of the question (quantifiers such as 'todos' kept) the text says, compared on their first five letters."""
    q = {w[:5] for w in tokens(fold(question)) if len(w) >= 3 and w not in _FUNCTION}
    return len(q & {w[:5] for w in tokens(fold(text)) if len(w) >= 3})


def clause_yes_no(question: str, chosen: Sequence[Candidate]) -> str | None:
    """'yes'/'no' read from the rule: when its sentences disagree (a permission, then a denial in the same article), the
    one that says more of the question's own words decides ('desasignarme todos mis cursos' against 'no puede realizar la
    desasignación de todos los cursos'); a tie keeps the first, whose exception is said with it."""
    loss = asks_loss(question)
    said = [(yes_or_no(c.text, loss), c) for c in chosen]
    first = said[0][0] if said else None
    other = next(((a, c) for a, c in said[1:] if a is not None and a != first), None)
    if first is None or other is None:
        return first
    return other[0] if _overlap(question, other[1].text) > _overlap(question, said[0][1].text) else first


def yes_or_no(text: str, asks_loss: bool = False) -> str | None:
    """'no' when the unit forbids or denies, 'yes' when it allows or obliges, None when it says neither. A rule that takes a
    right away ('perderán el derecho de someterse…') denies it: 'no' to '¿puedo…?', 'yes' to a question asking whether the
    right is lost (`asks_loss`: '¿pierdo el derecho…?')."""
    folded = fold(text)
    if _LOSES.search(folded):
        return "yes" if asks_loss else "no"
    if _NO.search(folded):
        return "no"
    if _YES.search(folded):
        return "yes"
    return None


def whole_list(asked: Asked, top: Candidate, cands: list[Candidate], question: str = "") -> tuple[str, list[Candidate]] | None:
    """The lead-in and the items of the list the best unit belongs to, in the document's order, when the question asks for steps or requirements."""
    units = units_of(top.chunk)
    at = next((i for i, u in enumerate(units) if u is top.unit), None)
    if at is None:
        return None
    if top.unit.kind == "row":
        return _whole_table(top, units, at, cands, question)
    if top.unit.kind == "sentence" and top.unit.text.rstrip().endswith(":"):  # a lead-in: what it announces follows
        by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
        after = units[at + 1 :]
        if not after:  # the list starts in the document's next chunk
            later = [c.chunk for c in cands if c.chunk.doc_id == top.chunk.doc_id and c.chunk.position > top.chunk.position]
            nxt = min(later, key=lambda c: c.position) if later else None
            if nxt is not None:
                by_unit = {id(c.unit): c for c in cands if c.chunk is nxt}
                after = units_of(nxt)
        follow = []
        for u in after:
            if u.kind not in ("item", "row") or id(u) not in by_unit or (follow and u.kind != follow[0].unit.kind):
                break
            follow.append(by_unit[id(u)])
        if follow and follow[-1].chunk is top.chunk and follow[-1].unit is units_of(top.chunk)[-1] and follow[0].unit.kind == "item":
            follow += continued(follow[-1], cands)  # the list goes on after a page break
        if follow and follow[0].unit.kind == "row" and (row := row_in_range(question, follow, _first_field)) is not None:
            follow = [row]  # the table's row whose span holds the student's figure
        return (_with_antecedent(units, at, top.unit.text.rstrip(": ")), follow) if 1 <= len(follow) <= MAX_LIST else None
    if top.unit.kind != "item":
        return None
    if top.unit.text.rstrip().endswith(":") and 1 <= len(subs := sub_items(top, units, at, cands)) <= MAX_LIST:  # 'Perfil del proyecto, el cual debe contener:' and its a.1, a.2…
        return top.unit.text.rstrip(": "), subs
    if asked.kind not in ("procedure", "requirement") and not _led_in(units, at) and not _close_lead(top, units, at, cands):
        return None  # other questions: only a list its own lead-in announces ('Se considera falta leve:') is said whole
    lo = hi = at
    while lo > 0 and units[lo - 1].kind == "item" and units[lo - 1].context == top.unit.context:
        lo -= 1
    while hi + 1 < len(units) and units[hi + 1].kind == "item" and units[hi + 1].context == top.unit.context:
        hi += 1
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    items = [by_unit[id(u)] for u in units[lo : hi + 1] if id(u) in by_unit]
    if hi == len(units) - 1 and items:
        items += continued(items[-1], cands)
    if not 2 <= len(items) <= MAX_LIST:
        return None
    before = units[lo - 1] if lo > 0 else None
    lead = _with_antecedent(units, lo - 1, before.text.rstrip(": ")) if before is not None and before.kind == "sentence" and before.text.endswith(":") else ("" if top.unit.context.startswith("¿") else top.unit.context.rstrip(": "))
    return lead, items


_CLITIC = re.compile(r"\b\w{3,}(?:ar|er|ir|ando|endo)(?:la|lo|las|los)\b")  # 'solicitarla', 'pedirlo': a pronoun whose antecedent is before


def _with_antecedent(units: list[Unit], at: int, lead: str) -> str:
    """A lead-in that refers back ('Pueden solicitarla los estudiantes que') said after the sentence it refers to."""
    if at > 0 and _CLITIC.search(fold(lead)) and units[at - 1].kind == "sentence" and not units[at - 1].text.rstrip().endswith(":"):
        return f"{units[at - 1].text.rstrip()} {lead}"
    return lead


TABLE_LEAD = 0.7  # a table's lead-in must score this share of its best row for the table to be said whole under it


def _whole_table(top: Candidate, units: list[Unit], at: int, cands: list[Candidate], question: str = "") -> tuple[str, list[Candidate]] | None:
    """The table a lead-in announces ('... distribuidos de la siguiente forma:'), said whole when its best row answers and
    its lead-in is close: a row alone drops what the table is about (the total, the other components)."""
    lo = hi = at
    while lo > 0 and units[lo - 1].kind == "row":
        lo -= 1
    while hi + 1 < len(units) and units[hi + 1].kind == "row":
        hi += 1
    lead = units[lo - 1] if lo > 0 and units[lo - 1].kind == "sentence" and units[lo - 1].text.rstrip().endswith(":") else None
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    if lead is None:
        return _variants_table(question, top, [by_unit[id(u)] for u in units[lo : hi + 1] if id(u) in by_unit])
    lead_c = by_unit.get(id(lead))
    rows = [by_unit[id(u)] for u in units[lo : hi + 1] if id(u) in by_unit]
    if lead_c is None or lead_c.score < TABLE_LEAD * top.score or not 2 <= len(rows) <= MAX_LIST:
        return _variants_table(question, top, rows, lead.text.rstrip(": "))  # the lead-in scores low: the table whole all the same when no row is the student's by name
    if (row := row_in_range(question, rows, _first_field)) is not None:
        return lead.text.rstrip(": "), [row]  # the student's figure ('promedio de 80') falls in one row's range ('71 a 85')
    return lead.text.rstrip(": "), rows


def _variants_table(question: str, top: Candidate, rows: list[Candidate], lead: str = "") -> tuple[str, list[Candidate]] | None:
    """A small table whose rows give one value per situation ('Régimen general: 60 créditos', 'Con promedio 9 o más: 75
    créditos'), said whole under its lead-in or heading when the question does not say which situation is the student's:
    one row alone would give a value that may not apply."""
    if not 2 <= len(rows) <= MAX_VARIANTS or not (lead or top.unit.context) or any(len(r.unit.fields) != len(top.unit.fields) for r in rows):
        return None
    first = _first_field
    others = set().union(*(doc_keys(first(r)) for r in rows if r is not top), *(doc_keys(" ".join([*r.unit.fields][1:] + [*r.unit.fields.values()][1:])) for r in rows))
    own = set(query_keys(first(top))) - others
    if not (own or lead) or own & set(query_keys(question)):
        return None  # the question names the row's own situation: that row answers (rows told apart by their figures alone are said whole under a lead-in)
    if lead and (row := row_in_range(question, rows, _first_field)) is not None:
        return lead, [row]  # the student's figure ('promedio de 80') falls in one row's range ('71 a 85')
    return lead or top.unit.context, rows


def _first_field(c: Candidate) -> str:
    """A table row's first cell: the situation the row is about."""
    return next(iter(c.unit.fields.values()), "")


_SPAN = re.compile(r"(\d+(?:[.,]\d+)?)\s*(?:a|al|-|–|y|hasta)\s*(\d+(?:[.,]\d+)?)")  # '71 a 85', 'entre 61 y 70'
_BOUND = re.compile(r"(≤|<|≥|>)\s*(\d+(?:[.,]\d+)?)|(\d+(?:[.,]\d+)?)\s*(≤|<|≥|>)")  # '≤ 70', '70 ≤ promedio'


def _range(label: str) -> tuple[float, float] | None:
    """The closed-open span of figures a row's label covers ('71 a 85' → 71..85, '70 ≤ promedio < 75' → 70..75, '≤ 70' → up to 70)."""
    num = lambda x: float(x.replace(",", "."))  # noqa: E731
    if m := _SPAN.search(label):
        return num(m.group(1)), num(m.group(2)) + 0.999
    lo, hi = float("-inf"), float("inf")
    bounds = _BOUND.findall(label)
    if not bounds:
        return None
    for op_after, value_after, value_before, op_before in bounds:
        if op_after:  # '≤ 70' (the figure is at most 70) or '> 70'
            v = num(value_after)
            lo, hi = (lo, v + (0.999 if op_after == "≤" else 0)) if op_after in "≤<" else (v + (0 if op_after == "≥" else 1), hi)
        else:  # '70 ≤ promedio' (the figure is at least 70)
            v = num(value_before)
            lo, hi = (v + (0 if op_before == "≤" else 1), hi) if op_before in "≤<" else (lo, v + (0.999 if op_before == "≥" else 0))
    return lo, hi


def row_in_range(question: str, rows: Sequence[Candidate], label) -> Candidate | None:
    """The one row whose label's span holds a figure the question gives; None when no figure falls in exactly one."""
    figures = [float(x) for x in re.findall(r"(?<![\d.,])(\d{1,3})(?!\d|[.,]\d)", question)]  # '80,' and '80?' are figures; '8.5' and '1,200' are not
    spans = [(r, _range(label(r))) for r in rows]
    for f in figures:
        inside = [r for r, span in spans if span is not None and span[0] <= f < span[1]]
        if len(inside) == 1:
            return inside[0]
    return None


def _close_lead(top: Candidate, units: list[Unit], at: int, cands: list[Candidate]) -> bool:
    """Whether the list holding the best item follows a lead-in sentence ('La pasantía es obligatoria en todas las carreras:')
    that scores close to it: the lead-in and its list answer together."""
    i = at
    while i > 0 and units[i - 1].kind == "item" and units[i - 1].context == units[at].context:
        i -= 1
    if i == 0 or units[i - 1].kind != "sentence" or not units[i - 1].text.rstrip().endswith(":"):
        return False
    lead = next((c for c in cands if c.unit is units[i - 1]), None)
    return lead is not None and lead.score >= TABLE_LEAD * top.score


def _led_in(units: list[Unit], at: int) -> bool:
    """Whether the list holding units[at] follows a sentence that announces it (the items carry it as their context)."""
    ctx = units[at].context
    i = at
    while i > 0 and units[i - 1].kind == "item" and units[i - 1].context == ctx:
        i -= 1
    return bool(ctx) and i > 0 and units[i - 1].kind == "sentence" and units[i - 1].text.rstrip(": ") == ctx.rstrip(": ")


def cut_leads(chosen: Sequence[Candidate]) -> list[Candidate]:
    """The lead-ins among the chosen units ('… alguna de las siguientes opciones:') whose list or table none of the chosen
    units after them gives."""
    return [
        c
        for c in chosen
        if c.unit.kind in ("sentence", "item", "faq")
        and c.unit.text.rstrip().endswith(":")
        and not any(x.unit.kind in ("item", "row") and x.chunk is c.chunk and x.unit.offset > c.unit.offset for x in chosen)
    ]


def _item_text(c: Candidate) -> str:
    text = (render(c.unit) if c.unit.kind in ("row", "record") else c.unit.text).rstrip(";,. ")
    return f"{text[:1].upper()}{text[1:]}" + ("" if text.endswith(":") else ".")


def _code_note(question: str, head: Candidate, book: RecordBook, lang: str) -> str:
    """'The plan lists X with code 0252 (not 0253).' when the student's code is not the one the plan gives the course they named."""
    asked = set(re.findall(r"\b\d{3,4}\b", question))
    code = record_code(head.unit)
    if not asked or not code:
        return ""
    codes = {record_code(u).lstrip("0") for _, u in book.same_name(head.unit).values()} | {code.lstrip("0")}
    if {a.lstrip("0") for a in asked} & codes:
        return ""
    name = record_name(head.unit)
    return t("plan_code", lang).format(name=name, code=code, asked=", ".join(sorted(asked))) + "\n"


def compared_row(question: str, top: Candidate, cands: Sequence[Candidate], asked: Asked) -> Candidate | None:
    """Another row of the best row's table that the message's own remarks name ('¿Cuándo empiezan los exámenes? Me dijeron
    que arrancan antes de que terminen los parciales'): the event the student compares with, said with its date. Of
    several, the one nearest the best row; a past-period one never."""
    if top.unit.kind != "row" or not top.unit.fields:
        return None
    remarks = [p for p in re.split(r"(?<=[?.!])\s+|\n+", question) if p.strip() and p not in object_parts(question)]
    said = set(query_keys(" ".join(remarks))) - set(query_keys(next(iter(top.unit.fields.values()))))
    if not said:
        return None
    units = units_of(top.chunk)
    at = next((i for i, u in enumerate(units) if u is top.unit), None)
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    if at is None:
        return None
    near = []
    for i, u in enumerate(units):
        if u is top.unit or u.kind != "row" or id(u) not in by_unit or [*u.fields] != [*top.unit.fields]:
            continue
        if set(query_keys(next(iter(u.fields.values()), ""))) & said and period_score(by_unit[id(u)].text, asked) >= 0:
            near.append((abs(i - at), by_unit[id(u)]))
    return min(near, key=lambda x: x[0])[1] if near else None


def list_tail(items: Sequence[Candidate], cands: Sequence[Candidate]) -> Candidate | None:
    """The sentence right after a list of papers or steps, under the same heading, that says how or where they are handed in
    ('La documentación se entrega en PDF por correo a …'): a procedure's list without it leaves the student asking where."""
    last = items[-1] if items else None
    if last is None or last.unit.kind != "item":
        return None
    after = [c for c in cands if c.chunk.doc_id == last.chunk.doc_id and c.unit.kind == "sentence" and c.unit.context == last.unit.context
             and (c.chunk.position, c.unit.offset) > (last.chunk.position, last.unit.offset)]
    nxt = min(after, key=lambda c: (c.chunk.position, c.unit.offset), default=None)
    return nxt if nxt is not None and _SAYS_HOW.search(fold(nxt.unit.text)) else None


def item_variants(question: str, asked: Asked, top: Candidate, cands: Sequence[Candidate]) -> list[Candidate] | None:
    """The variants of the asked thing that one list gives, when the question does not say which one is the student's
    ('Escolaridad digital: …', 'Escolaridad en papel: …', 'Escolaridad completa: …' for '¿Cómo pido una escolaridad?'):
    the items of the best item's list (its document, its heading; a list may span chunks) whose labels open with the same
    word, a word of the question's object, one run of 2 to MAX_VARIANTS of them; None when the question names a variant's
    own words or the list is not of variants."""
    if top.unit.kind != "item" or not top.unit.context:
        return None
    seen: dict[str, Candidate] = {}
    for c in cands:
        if c.unit.kind == "item" and c.chunk.doc_id == top.chunk.doc_id and c.unit.context == top.unit.context:
            seen.setdefault(c.unit.text, c)
    items = sorted(seen.values(), key=lambda c: (c.chunk.position, c.unit.offset))
    labels = [_label_words(c.unit.text) for c in items]
    mine = _label_words(top.unit.text)
    if not mine or any(not w for w in labels):
        return None
    same = [i for i, w in enumerate(labels) if w[0] == mine[0]]
    if not 2 <= len(same) <= MAX_VARIANTS or same != list(range(same[0], same[-1] + 1)) or mine[0][:4] not in {k[:4] for k in asked.object_keys}:
        return None
    asked_words = {w[:5] for w in tokens(fold(question))}
    if any(w[:5] in asked_words for i in same for w in labels[i][1:]):
        return None  # the question names a variant ('la escolaridad completa'): that one answers
    return [items[i] for i in same]


def _label_words(text: str) -> list[str]:
    """The content words of an item's 'Label:' (up to 6 words, a parenthesised aside dropped); [] without one."""
    m = re.match(r"^([^:]{2,60}):\s", text)
    if not m or len(m.group(1).split()) > 6:
        return []
    return [w for w in tokens(fold(re.sub(r"\([^)]*\)", " ", m.group(1)))) if len(w) > 2 and w not in {"del", "las", "los", "con", "para", "por"}]


_PRICE_NOTE = re.compile(r"\bdescuento|\bexonerad|\bexoneracion|\bbonificacion|\brebaja|\brecargo")


def price_note(top: Candidate, cands: Sequence[Candidate]) -> Candidate | None:
    """The sentence right after a table of prices that changes them for some students ('Los egresados de la Facultad
    tienen un descuento del 20 %…'), said with the price a row gives: the row alone may not be what the student pays."""
    if top.unit.kind != "row" or "amount" not in top.strong or re.search(r"\bgratuit|\bexonerad", fold(top.text)):
        return None  # a free programme's row needs no discount
    units = units_of(top.chunk)
    at = next((i for i, u in enumerate(units) if u is top.unit), None)
    if at is None:
        return None
    end = at
    while end + 1 < len(units) and units[end + 1].kind == "row":
        end += 1
    after = units[end + 1] if end + 1 < len(units) else None
    if after is None or after.kind != "sentence" or not _PRICE_NOTE.search(fold(after.text)):
        return None
    return next((c for c in cands if c.unit is after), None)


_BEFORE_EVENT = re.compile(r"\bantes (?:de(?:l| que)?)\b")
MAX_BETWEEN = 2  # rows between the asked event and the one the student compares with, said along


def rows_between(question: str, top: Candidate, other: Candidate, cands: Sequence[Candidate], asked: Asked) -> list[Candidate]:
    """The rows of the table between the asked event and a later one the student wants to do something before ('¿Cuándo
    terminan las clases? Quiero viajar antes de los exámenes': the second midterms in between matter), in the table's
    order, when there are at most MAX_BETWEEN of them and none is of a past period; none otherwise."""
    remarks = " ".join(p for p in re.split(r"(?<=[?.!])\s+|\n+", question) if p.strip() and p not in object_parts(question))
    if not _BEFORE_EVENT.search(fold(remarks)) or top.chunk is not other.chunk:
        return []
    units = units_of(top.chunk)
    at = {id(u): i for i, u in enumerate(units)}
    lo, hi = at.get(id(top.unit)), at.get(id(other.unit))
    if lo is None or hi is None or hi - lo - 1 < 1 or hi - lo - 1 > MAX_BETWEEN:
        return []
    by_unit = {id(c.unit): c for c in cands if c.chunk is top.chunk}
    between = [by_unit.get(id(u)) for u in units[lo + 1 : hi]]
    if any(c is None or c.unit.kind != "row" or period_score(c.text, asked) < 0 for c in between):
        return []
    return between  # type: ignore[return-value]


CURRENT_SHARE = 0.4  # a current-period unit replaces past-period ones when it scores this share of the best


def predicate(question: str) -> str | None:
    """The quality a yes/no question asks about, as the stem a unit must say ('¿Es compatible con la beca…?' → 'compat',
    '¿La pasantía es obligatoria?' → 'obliga'); None for other questions and for words any rule may answer ('¿es posible…?')."""
    m = _PREDICATE_Q.search(fold(" ".join(asked_parts(question))))
    if not m or m.group(1) in _NOT_PREDICATE:
        return None
    return m.group(1)[:6]


def by_predicate(question: str, text: str) -> str | None:
    """'yes'/'no' when the unit says the quality a '¿Es X…?' question asks about: 'es compatible con…' → yes, 'no es
    compatible', 'incompatible' → no (the first mention decides); None when it does not say it."""
    stem = predicate(question)
    if stem is None:
        return None
    m = re.search(rf"\b(?:(no (?:es|son|sera|seran|esta|estan|resulta|resultan) )|(in|im))?{re.escape(stem)}", fold(text))
    if m is None:
        return None
    return "no" if m.group(1) or m.group(2) else "yes"


def answers_predicate(question: str, top: Candidate) -> bool:
    """Whether the best unit, a list item, says itself the quality a '¿Es X…?' question asks about: it answers alone, and
    the rest of its list (a catalogue of other things) is not a condition of it."""
    stem = predicate(question)
    return top.unit.kind == "item" and stem is not None and stem in fold(top.unit.text)


def gives_steps(c: Candidate) -> bool:
    """Whether a unit tells how something is done: a step (an instruction, an item of a list of steps, a 'debe presentar…')
    or the papers and forms it is asked with ('Documentación necesaria: formulario R-1…')."""
    have, _ = unit_gives(c.unit.text, c.unit.kind, c.unit.context, c.strong, c.types)
    return "procedure" in have or "documents" in c.strong or bool(_SAYS_HOW.search(fold(c.unit.text)))


# Prose that says how a thing is done: who may or must ask for it and how ('los estudiantes podrán solicitar…, para lo cual
# podrán generar la boleta…'), or where or by what it is asked ('se pide en el SIGE o por correo', 'se descarga desde…'). Folded.
_SAYS_HOW = re.compile(
    r"\b(?:debe|deben|debera|deberan|podra|podran|puede|pueden|podes|hay que|tiene que|tienen que|tenes que|se debe)\s+(?:\w+\s+)?"
    r"(?:solicitar|presentar|generar|pagar|llenar|completar|ingresar|enviar|entregar|descargar|subir|realizar|acudir|inscribir\w*|asignar\w*|obtener\w*|tramitar|pedir\w*|retirar\w*)\b"
    r"|\bse (?:pide|piden|solicita|solicitan|tramita|tramitan|descarga|descargan|presenta|presentan|envia|envian|entrega|entregan|gestiona|gestionan|retira|retiran|genera|paga) (?:en|por|con|a|al|desde|mediante|ante|llenando|completando)\b"
)


_OPENINGS: dict[str, str] = {}


def opening(text: str) -> str:
    """A unit's first 160 characters, folded (what _FAILURE_CASE and _NAMES_TERM read); cached by text."""
    out = _OPENINGS.get(text)
    if out is None:
        if len(_OPENINGS) >= 100_000:
            _OPENINGS.clear()
        out = _OPENINGS[text] = fold(text[:160])
    return out


def same_aspect(c: Candidate, asked: set[str]) -> bool:
    """Whether a unit is introduced as a kind of answer asked: its own opening label ('REQUISITOS: licenciatura…') or, for a
    list item, its lead-in ('Requisitos para la práctica inicial:') names it (selection.ASPECTS)."""
    head = opening(c.unit.text).split(":", 1)[0] if ":" in c.unit.text[:40] else ""
    lead = opening(c.unit.context or "") if c.unit.kind == "item" else ""
    return any(name in asked and (pattern.search(head) or pattern.search(lead)) for name, pattern in ASPECTS.items())


def ceiling_only(text: str) -> bool:
    """Whether every number a unit states is a ceiling ('Cada grupo puede tener hasta 4 integrantes', 'Duración máxima: dos
    semestres'), so it does not say how many are required. Dates and clock times are not counts."""
    t_ = fold(text)
    t_ = re.sub(r"\b\d{1,2}(?: de)? (?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)\b(?: (?:de )?\d{4})?|\b\d{1,2}:\d{2}\b|\b(?:19|20)\d{2}\b", " ", t_)
    nums = list(_NUMBER.finditer(t_))
    if not nums:
        return False
    return all(_CEILING_BEFORE.search(t_[max(0, m.start() - 30) : m.start()]) or re.match(r"\W*(?:\w+\W+)?(?:como )?maxim", t_[m.end() : m.end() + 24]) for m in nums)


def current_period(asked: Asked, chosen: list[Candidate], cands: list[Candidate]) -> list[Candidate]:
    """The chosen units without past-period ones; when all are past, the best unit of the asked kind in a current period instead (if close enough)."""
    kept = [c for c in chosen if period_score(c.text, asked) >= 0]
    if kept:
        return kept
    top = chosen[0].score
    now = next((c for c in cands if period_score(c.text, asked) > 0 and asked.kind in c.types and c.score >= CURRENT_SHARE * top), None)
    return [now] if now is not None else chosen
