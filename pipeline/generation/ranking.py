"""Learned ranking of candidate answer units: features of a (question, unit) pair and a logistic model trained on labelled pairs."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.generation.asking import TYPE_WORDS, Asked, object_parts, period_score
from pipeline.generation.lexical import FUNCTION_WORDS, derived, doc_keys, family, query_keys
from pipeline.text import STOPWORDS_ES, fold, stem, tokens

RANKER_VERSION = 7  # 3: the "hand" feature includes the word-match rerank (rerank below), whose terms are features (WORDS); 4: those terms match derivation families (lexical.family); 5: the hand score weighs down an item listed under a lead-in of another kind of answer (selection.other_aspect); 6: the hand score reads "¿con cuánto se gana…?" and "mínima/máxima" as asking for a count (selection.ANSWER_TYPES); 7: the hand score reads a bounded time limit ('dentro de los 15 (quince) días') as a concrete date (candidates.BOUNDED) and weighs down the items of a sibling list whose lead-in names another variant of the asked object (selection._other_list)

# What a unit gives beyond selection.ANSWER_TYPES (on the folded unit): a consequence, a permission or a prohibition, a step.
CONSEQUENCE = re.compile(r"sancion|sancionad|perdera|pierde[n]? |anulad|anulara|se anula|reprobad|no tendra derecho|suspension|suspendid|expulsi|cero puntos|nota de cero|debera repetir|quedara|se le aplicara|causa de|perdida de")
PERMISSION = re.compile(r"\bpodran?\b|\bpuede[ns]?\b|\bpodes\b|\bpodras\b|\bse permite|\bpermitid|\bprohib|\bno se (?:permite|acepta|autoriza)|\btiene[n]? derecho|\bunicamente\b|\bsolamente\b|\bse autoriza|\bno (?:es|sera) (?:posible|valid)|\bsi\b.*\bentonces\b|\bes obligatori|\bno es obligatori|\bderecho (?:a|de)\b|\bdeberan?\b")
DEADLINE = re.compile(r"\b\d+ (?:horas|dias|semanas|meses)\b|\b(?:dos|tres|cuatro|cinco|diez|quince|treinta) (?:horas|dias|semanas|meses)\b|\bhasta el \d|\bantes de(?:l)? \w+ \d")
STEP = re.compile(r"^(?:ingres|seleccion|descarg|complet|llen|presion|haga|hacer|dar clic|clic|ir a|buscar|busque|subir|suba|adjunt|generar|genere|realiz|pag|imprim|present|solicit|envi|acud|esperar|espere|verific|carg|firm|inscrib|asign|entreg|obten|llev|reciba|recibir)")

# The unit type each question kind needs (selection.ANSWER_TYPES names, plus the three above).
NEEDS: dict[str, tuple[str, ...]] = {
    "consequence": ("consequence",),
    "yes_no": ("permission", "requirement"),
    "procedure": ("procedure",),
    "date": ("date",),
    "time": ("time",),
    "amount": ("amount",),
    "place": ("place",),
    "role": ("role",),
    "count": ("count",),
    "requirement": ("requirement", "documents"),  # '¿qué documentos necesito?' is answered by the papers named
    "other": (),
}

FEATURES = (
    "lexical", "context", "dense", "doc_rank", "hit_rank", "name", "code", "programme",
    "object", "object_ctx", "object_missing", "meets_strong", "meets_weak", "misses", "kind_other",
    "period_past", "period_current", "lead_in", "log_words", "long",
    "u_sentence", "u_item", "u_faq", "u_record", "u_row",
    "faq_question", "topic", "hand",
    "proc_item", "yesno_permission", "record_named",
    # version 2: embedding similarity itself, idf-weighted object coverage, where the unit sits, the question's kind
    "sim", "object_idf", "object_idf_ctx", "chunk_pos", "unit_pos", "has_vec",
    "q_date", "q_amount", "q_procedure", "q_yes_no", "q_consequence", "q_requirement", "q_place", "q_count", "q_role", "q_other",
)

# Computed over one question's candidates: each value against the best candidate's, its rank, and how the unit's
# chunk and document compare (the best similarity of any unit in the same chunk / document).
RELATIVE_OF = ("hand", "lexical", "sim", "object_idf", "cover")
RELATIVE = (
    "hand_share", "hand_rank", "hand_gap", "lexical_share", "lexical_rank", "sim_gap", "sim_rank",
    "object_idf_gap", "cover_share", "chunk_sim_gap", "doc_sim_gap", "doc_hand_gap", "chunk_best_hand",
)
WORDS = ("w_object", "w_heading", "w_phrase")  # version 3: the rerank's whole-word terms (rerank_terms; its length term is log_words)
ALL_FEATURES = FEATURES + RELATIVE + WORDS
_Q_KINDS = ("date", "amount", "procedure", "yes_no", "consequence", "requirement", "place", "count", "role", "other")


# The word-match rerank of the hand score: whole-word (stem) matches of the question's object, in the unit's own text and
# in its heading, the question's word pairs said together, and the unit's length. The hand score's keys are 4-letter
# prefixes, which conflate words (general/generar, formato/formulario) and miss an object named only in a heading; these
# terms add what they miss. The weights are the grid point most folds pick in 5-fold cross-validation on the FIUSAC dev
# questions (benchmarks/unit_ranking.py, "rerank_cv": each fold scored with the weights its other folds pick): rules
# precision@1 0.506 -> 0.541 out of fold (0.577 with these weights, chosen on all of them), course plans 0.647 -> 0.654.
RERANK = {"object_own": 0.4, "object_heading": 0.4, "phrase": 0.1, "log_words": 0.06}
PHRASE_WINDOW = 3  # two of the question's adjacent words count as said together within this many words
FAMILY_CREDIT = 0.5  # a word found only as another word of its derivation family, through a derivation (renovarla / Renovaciones), counts this much of a match
_TYPE_STEMS = frozenset(family(w) for w in TYPE_WORDS)  # the words that only say the kind of answer (asking.TYPE_WORDS), as families
_STEMS: dict[str, tuple[tuple[str, str, bool], ...]] = {}


def word_forms(text: str) -> tuple[tuple[str, str, bool], ...]:
    """The text's content words, each as (its whole stem, not cut to a prefix; its derivation family, lexical.family; whether
    it meets that family through a derivation, lexical.derived), in order; cached by text."""
    out = _STEMS.get(text)
    if out is None:
        if len(_STEMS) >= 200_000:
            _STEMS.clear()
        out = _STEMS[text] = tuple((stem(w), family(w), derived(w)) for w in tokens(text) if w not in STOPWORDS_ES and w not in FUNCTION_WORDS and len(w) > 2 and not w.isdigit())
    return out


def word_stems(text: str) -> tuple[str, ...]:
    """The text's content words, stemmed whole (not cut to a prefix), in order."""
    return tuple(s for s, _, _ in word_forms(text))


def _matches(obj: Sequence[tuple[str, str, bool]], forms: Iterable[tuple[str, str, bool]]) -> np.ndarray:
    """Per object word, 1 when the text says it (the same stem); FAMILY_CREDIT when it says another word of its family and one
    of the two is a derivation (renovar / renovaciones, not cursan / cursos); else 0."""
    stems, families = set(), {}
    for s, f, d in forms:
        stems.add(s)
        families[f] = families.get(f, False) or d
    return np.array([1.0 if s in stems else FAMILY_CREDIT if f in families and (d or families[f]) else 0.0 for s, f, d in obj])


def rerank_terms(question: str, cands: Sequence) -> np.ndarray:
    """Per candidate, the rerank's terms (RERANK order): the idf-weighted share of the question's object words in the unit's own
    text, the share found only in its heading (its context and section), the share of the question's adjacent word pairs said
    together, and log(1 + words). A word is found as itself, or for part of its weight as another word of its derivation family
    (FAMILY_CREDIT). Idf is over these candidates: a word every candidate says is the topic, not the object."""
    forms = word_forms(" ".join(object_parts(question)))
    seq = [s for s, _, _ in forms]
    obj = [(s, f, d) for s, (f, d) in {s: (f, d) for s, f, d in forms}.items() if f not in _TYPE_STEMS]
    pairs = {(a, b) for a, b in zip(seq, seq[1:], strict=False) if a != b}
    n = len(cands)
    out = np.zeros((n, len(RERANK)), dtype=np.float64)
    if obj:
        own = np.stack([_matches(obj, word_forms(c.unit.text)) for c in cands])
        ctx = np.stack([_matches(obj, word_forms(f"{c.unit.context or ''} {c.chunk.section or ''}")) for c in cands])
        df = ((own > 0) | (ctx > 0)).sum(axis=0)
        w = np.log((n + 1) / (df + 0.5))
        total = float(w.sum()) or 1.0
        out[:, 0] = own @ w / total
        out[:, 1] = np.clip(ctx - own, 0.0, None) @ w / total
    for i, c in enumerate(cands):
        if pairs:
            at: dict[str, list[int]] = {}
            for j, s in enumerate(word_stems(f"{c.unit.text} {c.unit.context or ''}")):
                at.setdefault(s, []).append(j)
            out[i, 2] = sum(1 for a, b in pairs if a in at and b in at and any(abs(j - k) <= PHRASE_WINDOW for j in at[a] for k in at[b])) / len(pairs)
        out[i, 3] = math.log1p(len(c.text.split()))
    return out


LEAD_MARGIN = 1.001  # the unit the rerank puts first scores this much above the hand score's best


def rerank(question: str, cands: list) -> None:
    """Puts first the unit that the hand score plus the word-match terms ranks best, when the hand score's best unit is
    prose (a course record or table row is chosen by its name or code, which the hand score already weighs) and the units
    carry embedding similarity. The weights were chosen against the similarity-led score: the generator does not call
    this with the smaller shared-words score of an embedder without meaning (selection.LEXICAL_FIRST).

    Only the lead changes: it takes a score just above the hand score's best, and every other unit keeps its hand score, so
    which further units are close enough to be said with it (selection.select's ratios to the lead) is judged as before.
    Adding the terms to every score instead widened the gap behind the lead and dropped second units that answered
    (the sample office's first round 17 -> 16 of 22, answerable rows 38 -> 36)."""
    if not cands or any(c.sim is None for c in cands):
        return
    order = sorted(range(len(cands)), key=lambda i: (-cands[i].score, cands[i].hit_no, cands[i].unit.offset))
    head = cands[order[0]]
    if head.unit.kind in ("record", "row"):
        return
    total = np.array([c.score for c in cands]) + rerank_terms(question, cands) @ np.array(list(RERANK.values()))
    best = cands[int(np.argmax(total))]
    if best is not head:
        best.score = best.hand = head.score * LEAD_MARGIN if head.score > 0 else head.score + 1e-6
    cands.sort(key=lambda x: (-x.score, x.hit_no, x.unit.offset))


def _rank_of(v: np.ndarray) -> np.ndarray:
    order = np.argsort(-v, kind="stable")
    rank = np.empty(len(v), dtype=np.float32)
    rank[order] = np.arange(1, len(v) + 1)
    return rank


def relative(x: np.ndarray, cover: np.ndarray, chunk_ids: Sequence, doc_ids: Sequence) -> np.ndarray:
    """The RELATIVE columns of one question's candidates (rows of FEATURES)."""
    col = {name: x[:, FEATURES.index(name)] for name in ("hand", "lexical", "sim", "object_idf")}
    h, lex, sim, obj = col["hand"], col["lexical"], col["sim"], col["object_idf"]
    top_h = float(h.max()) or 1.0
    chunk_sim, doc_sim, doc_hand, chunk_hand = {}, {}, {}, {}
    for i, (c, d) in enumerate(zip(chunk_ids, doc_ids, strict=True)):
        chunk_sim[c] = max(chunk_sim.get(c, -1.0), float(sim[i]))
        doc_sim[d] = max(doc_sim.get(d, -1.0), float(sim[i]))
        doc_hand[d] = max(doc_hand.get(d, -1e9), float(h[i]))
        chunk_hand[c] = max(chunk_hand.get(c, -1e9), float(h[i]))
    top_sim = float(sim.max())
    out = np.stack(
        [
            h / top_h, 1.0 / _rank_of(h), h - float(h.max()),
            lex / (float(lex.max()) or 1.0), 1.0 / _rank_of(lex),
            sim - top_sim, 1.0 / _rank_of(sim),
            obj - float(obj.max()), cover / (float(cover.max()) or 1.0),
            np.array([chunk_sim[c] for c in chunk_ids]) - top_sim,
            np.array([doc_sim[d] for d in doc_ids]) - top_sim,
            np.array([doc_hand[d] for d in doc_ids]) - float(h.max()),
            np.array([float(chunk_hand[c] == h[i]) for i, c in enumerate(chunk_ids)]),
        ],
        axis=1,
    )
    return np.hstack([x, out]).astype(np.float32)


def unit_gives(text: str, kind: str, context: str, strong: set[str], types: set[str]) -> tuple[set[str], set[str]]:
    """All types a unit gives (with selection's), and those given as a concrete value."""
    t = fold(text)
    have, concrete = set(types), set(strong)
    if DEADLINE.search(t):
        have.add("date")
        concrete.add("date")
    if CONSEQUENCE.search(t):
        have.add("consequence")
        concrete.add("consequence")
    if PERMISSION.search(t):
        have.add("permission")
        concrete.add("permission")
    if kind == "item" and (STEP.match(t) or re.search(r"\bpasos?\b|\bprocedimiento|\bdebe(?:ra)?\b|\bsiguiente", fold(context))):
        have.add("procedure")
        concrete.add("procedure")
    elif STEP.match(t) or re.search(r"\bdebe(?:ra|n)? (?:ingresar|presentar|llenar|subir|solicitar|realizar|generar|pagar|acudir|enviar|completar|entregar)", t):
        have.add("procedure")
    return have, concrete


@dataclass(slots=True)
class PairContext:
    """Per-question values shared by its candidates."""

    asked: Asked
    question: str
    qkeys: frozenset[str]
    okeys: frozenset[str]
    weights: dict[str, float]  # the question keys' idf weights (empty: each key weighs 1)


def pair_context(question: str, asked: Asked, weights: dict[str, float] | None = None) -> PairContext:
    return PairContext(asked, question, frozenset(query_keys(question)), frozenset(asked.object_keys), dict(weights or {}))


def rows(pc: PairContext, cands: Sequence, title_keys_of) -> np.ndarray:
    """One question's feature rows (FEATURES + RELATIVE + WORDS); `title_keys_of(chunk)` gives a document's title keys."""
    x = np.stack([featurize(pc, c, title_keys_of(c.chunk)) for c in cands])
    x = relative(x, np.array([c.cover for c in cands], dtype=np.float32), [c.chunk.id for c in cands], [c.chunk.doc_id for c in cands])
    return np.hstack([x, rerank_terms(pc.question, cands)[:, : len(WORDS)]]).astype(np.float32)


def featurize(pc: PairContext, cand, title_keys: set[str] | None = None) -> np.ndarray:
    """The feature vector (FEATURES order) of one candidate (a selection.Candidate already scored by hand)."""
    a = pc.asked
    u = cand.unit
    p = cand.parts
    own = cand.own or cand.keys
    have, concrete = unit_gives(u.text, u.kind, u.context, cand.strong, cand.types)
    needs = NEEDS.get(a.kind, ())
    strong = any(n in concrete for n in needs)
    weak = not strong and any(n in have for n in needs)
    ok = pc.okeys
    obj = sum(1 for k in ok if _has(k, own)) / len(ok) if ok else 0.0
    obj_ctx = sum(1 for k in ok if _has(k, cand.keys)) / len(ok) if ok else 0.0
    period = period_score(cand.text, a)
    words = len(cand.text.split())
    faq_q = 0.0
    if u.kind == "faq" or (u.context or "").startswith("¿"):
        fk = set(query_keys(u.context or ""))
        faq_q = len(fk & pc.qkeys) / len(fk | pc.qkeys) if fk and pc.qkeys else 0.0
    topic = len(pc.qkeys & (title_keys or set())) / len(pc.qkeys) if pc.qkeys else 0.0
    named = bool(p.get("name") or p.get("code"))
    return np.array(
        [
            p.get("lexical", 0.0), p.get("context", 0.0), p.get("dense", 0.0), 1.0 / cand.doc_rank, 1.0 / max(1, cand.hit_no),
            float(bool(p.get("name"))), float(bool(p.get("code"))), float(bool(p.get("programme"))),
            obj, obj_ctx, float(bool(ok) and obj_ctx == 0.0), float(strong), float(weak), float(bool(needs) and not strong and not weak), float(not needs),
            float(period < 0), float(period > 0), float(cand.text.rstrip().endswith(":")), math.log1p(words), float(words > 60),
            float(u.kind == "sentence"), float(u.kind == "item"), float(u.kind == "faq"), float(u.kind == "record"), float(u.kind == "row"),
            faq_q, topic, cand.hand,
            float(a.kind == "procedure" and u.kind == "item"), float(a.kind == "yes_no" and "permission" in have), float(u.kind == "record" and named),
            cand.sim if cand.sim is not None else 0.0, _weighted(pc, own), _weighted(pc, cand.keys),
            math.log1p(cand.chunk.position), math.log1p(u.offset), float(cand.sim is not None),
            *(float(a.kind == k) for k in _Q_KINDS),
        ],
        dtype=np.float32,
    )


def _has(key: str, keys: set[str]) -> bool:
    return key in keys or key[:4] in keys


def _weighted(pc: PairContext, keys: set[str]) -> float:
    """The idf-weighted share of the question's object the keys hold."""
    if not pc.okeys:
        return 0.0
    w = {k: pc.weights.get(k, 1.0) for k in pc.okeys}
    total = sum(w.values()) or 1.0
    return sum(v for k, v in w.items() if _has(k, keys)) / total


@dataclass
class UnitRanker:
    """A learned scorer over FEATURES + RELATIVE + WORDS, stored as plain JSON: a logistic model on standardised features
    ("linear") or gradient-boosted trees exported node by node ("trees"); `scores` reads as the probability that a unit answers."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    meta: dict
    kind: str = "linear"
    scope: str = "all"  # "prose": used only when the hand score's best unit is not a course-plan record or row (the hand score keeps those)
    trees: list[dict] | None = None  # per tree: feature, threshold, left, right, leaf, value, missing_left (arrays)
    _stacked: dict | None = None

    def _forest(self) -> dict:
        if self._stacked is None:
            self._stacked = _stack(self.trees or [])
        return self._stacked

    def applies(self, top_kind: str) -> bool:
        """Whether this ranker orders a question's candidates, given the kind of unit the hand score ranks first."""
        return self.scope == "all" or top_kind not in ("record", "row")

    def applies_to(self, x: np.ndarray) -> bool:
        """The same, read on the question's feature rows."""
        top = x[int(np.argmax(x[:, FEATURES.index("hand")]))]
        kind = "record" if top[FEATURES.index("u_record")] else "row" if top[FEATURES.index("u_row")] else "other"
        return self.applies(kind)

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Probability that each row's unit answers the question."""
        if self.kind == "trees":
            z = self.intercept + _forest_values(self._forest(), x)
        else:
            z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": RANKER_VERSION, "features": list(ALL_FEATURES), "kind": self.kind, "scope": self.scope, "mean": self.mean.tolist(), "scale": self.scale.tolist(), "coef": self.coef.tolist(), "intercept": self.intercept, "meta": self.meta}
        if self.trees is not None:
            payload["trees"] = [{k: v.tolist() for k, v in t.items()} for t in self.trees]
        path.write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> "UnitRanker | None":
        """The stored model, or None when there is none or it was built for other features."""
        if not path.exists():
            return None
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("version") != RANKER_VERSION or d.get("features") != list(ALL_FEATURES):
            return None
        trees = [{k: np.array(v, dtype=_TREE_DTYPES[k]) for k, v in t.items()} for t in d["trees"]] if d.get("trees") else None
        return cls(np.array(d["mean"], dtype=np.float32), np.array(d["scale"], dtype=np.float32), np.array(d["coef"], dtype=np.float32), float(d["intercept"]), d.get("meta") or {}, d.get("kind", "linear"), d.get("scope", "all"), trees)


_TREE_DTYPES = {"feature": np.int32, "threshold": np.float64, "left": np.int32, "right": np.int32, "leaf": bool, "value": np.float64, "missing_left": bool}


def _tree_values(t: dict, x: np.ndarray) -> np.ndarray:
    """One exported tree's leaf values for the rows of x (a row goes left when its feature is <= the threshold)."""
    return _forest_values(_stack([t]), x)


def _stack(trees: Sequence[dict]) -> dict:
    """The trees' nodes in one set of arrays (children renumbered), with each tree's root."""
    out: dict[str, list] = {k: [] for k in _TREE_DTYPES}
    roots, at = [], 0
    for t in trees:
        roots.append(at)
        for k in _TREE_DTYPES:
            v = t[k]
            out[k].append(v + at if k in ("left", "right") else v)
        at += len(t["leaf"])
    stacked = {k: np.concatenate(v).astype(_TREE_DTYPES[k]) if v else np.zeros(0, dtype=_TREE_DTYPES[k]) for k, v in out.items()}
    stacked["roots"] = np.array(roots, dtype=np.int32)
    return stacked


def _forest_values(f: dict, x: np.ndarray) -> np.ndarray:
    """The sum over all trees of each row's leaf value, every tree walked at once."""
    if not len(f["roots"]):
        return np.zeros(len(x))
    node = np.broadcast_to(f["roots"], (len(x), len(f["roots"]))).copy()
    rows = np.arange(len(x))[:, None]
    for _ in range(64):
        inner = ~f["leaf"][node]
        if not inner.any():
            break
        v = x[rows, f["feature"][node]]
        left = np.where(np.isnan(v), f["missing_left"][node], v <= f["threshold"][node])
        node = np.where(inner, np.where(left, f["left"][node], f["right"][node]), node)
    return f["value"][node].sum(axis=1)


@dataclass(slots=True)
class Pair:
    """One question's candidates: their features and which ones answer it."""

    x: np.ndarray  # (n_candidates, n_features)
    y: np.ndarray  # (n_candidates,) 0/1
    source: str  # synthetic | dev | approved


def _usable(pairs: Sequence[Pair]) -> tuple[list[Pair], dict[str, int]]:
    by_source: dict[str, int] = {}
    for p in pairs:
        by_source[p.source] = by_source.get(p.source, 0) + 1
    usable = [p for p in pairs if p.y.any() and not p.y.all()]
    if not usable:
        raise ValueError("no labelled question has both an answering and a non-answering unit")
    return usable, by_source


def fit(pairs: Sequence[Pair], *, kind: str = "linear", scope: str = "prose", **kw) -> UnitRanker:
    """A ranker of the given kind ("linear" or "trees") fitted on labelled questions, used in `scope` ("prose" or "all").
    The default is what measured best on held-out fiusac questions (benchmarks/results/unit_ranking.json)."""
    model = fit_trees(pairs, **kw) if kind == "trees" else fit_linear(pairs, **kw)
    model.scope = scope
    model.meta["scope"] = scope
    return model


def fit_linear(pairs: Sequence[Pair], *, c: float = 1.0, max_negatives: int = 30, seed: int = 0) -> UnitRanker:
    """A pairwise logistic model (an answering unit against each question's hardest and some random non-answering ones), sources weighted alike."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    usable, by_source = _usable(pairs)
    allx = np.concatenate([p.x for p in usable])
    mean, scale = allx.mean(axis=0), allx.std(axis=0)
    scale[scale < 1e-6] = 1.0
    diffs, ws = [], []
    hand = FEATURES.index("hand")
    for p in usable:
        z = (p.x - mean) / scale
        pos, neg = np.flatnonzero(p.y), np.flatnonzero(p.y == 0)
        hard = neg[np.argsort(-p.x[neg, hand])][: max_negatives // 2]
        rest = np.setdiff1d(neg, hard)
        easy = rng.choice(rest, size=min(len(rest), max_negatives - len(hard)), replace=False) if len(rest) else rest
        negs = np.concatenate([hard, easy])
        d = (z[pos][:, None, :] - z[negs][None, :, :]).reshape(-1, z.shape[1])
        diffs.append(d)
        ws.append(np.full(len(d), 1.0 / (by_source[p.source] * len(d))))
    d, w = np.concatenate(diffs), np.concatenate(ws)
    x = np.concatenate([d, -d])
    y = np.concatenate([np.ones(len(d)), np.zeros(len(d))])
    w = np.concatenate([w, w])
    w = w * len(w) / w.sum()
    model = LogisticRegression(C=c, max_iter=3000, fit_intercept=False)
    model.fit(x, y, sample_weight=w)
    coef = model.coef_[0]
    # calibrated (Platt) so that a score reads as the probability that the unit answers
    s = np.concatenate([((p.x - mean) / scale) @ coef for p in usable])[:, None]
    platt = LogisticRegression(max_iter=1000).fit(s, np.concatenate([p.y for p in usable]))
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    meta = {"pairs": by_source, "comparisons": int(len(d)), "kind": "pairwise logistic, Platt-calibrated"}
    return UnitRanker(mean.astype(np.float32), scale.astype(np.float32), (coef * a).astype(np.float32), b, meta)


def fit_trees(pairs: Sequence[Pair], *, max_iter: int = 200, learning_rate: float = 0.05, max_leaf_nodes: int = 15, min_samples_leaf: int = 40, l2: float = 1.0, max_negatives: int = 60, seed: int = 0) -> UnitRanker:
    """Gradient-boosted trees (sklearn HistGradientBoostingClassifier) on each question's answering units and its
    hardest and some random other candidates; every question weighs alike, and every source alike."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(seed)
    usable, by_source = _usable(pairs)
    xs, ys, ws = [], [], []
    hand = FEATURES.index("hand")
    for p in usable:
        pos, neg = np.flatnonzero(p.y), np.flatnonzero(p.y == 0)
        hard = neg[np.argsort(-p.x[neg, hand])][: max_negatives // 2]
        rest = np.setdiff1d(neg, hard)
        easy = rng.choice(rest, size=min(len(rest), max_negatives - len(hard)), replace=False) if len(rest) else rest
        keep = np.concatenate([pos, hard, easy])
        xs.append(p.x[keep])
        ys.append(p.y[keep])
        ws.append(np.full(len(keep), 1.0 / (by_source[p.source] * len(keep))))
    x, y, w = np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)
    w = w * len(w) / w.sum()
    model = HistGradientBoostingClassifier(max_iter=max_iter, learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, min_samples_leaf=min_samples_leaf, l2_regularization=l2, early_stopping=False, random_state=seed)
    model.fit(x, y, sample_weight=w)
    trees = [_export(pred) for it in model._predictors for pred in it]
    base = float(np.ravel(model._baseline_prediction)[0])
    meta = {"pairs": by_source, "rows": int(len(y)), "kind": f"gradient-boosted trees ({len(trees)}), sklearn HistGradientBoostingClassifier"}
    n = x.shape[1]
    return UnitRanker(np.zeros(n, dtype=np.float32), np.ones(n, dtype=np.float32), np.zeros(n, dtype=np.float32), base, meta, "trees", "all", trees)


def _export(pred) -> dict:
    """A fitted sklearn tree predictor's nodes as plain arrays."""
    nodes = pred.nodes
    return {
        "feature": nodes["feature_idx"].astype(np.int32),
        "threshold": nodes["num_threshold"].astype(np.float64),
        "left": nodes["left"].astype(np.int32),
        "right": nodes["right"].astype(np.int32),
        "leaf": nodes["is_leaf"].astype(bool),
        "value": nodes["value"].astype(np.float64),
        "missing_left": nodes["missing_go_to_left"].astype(bool),
    }


def with_rerank(x: np.ndarray, weights: dict[str, float] | None = None) -> np.ndarray:
    """The hand score plus the word-match rerank (`weights`: RERANK's keys; default RERANK), read on one question's feature
    rows built without the rerank; left as it is when the hand score's best unit is a course record or table row."""
    w = RERANK if weights is None else weights
    hand = x[:, FEATURES.index("hand")].astype(np.float64)
    top = x[int(np.argmax(hand))]
    if top[FEATURES.index("u_record")] or top[FEATURES.index("u_row")]:
        return hand
    at = {name: len(FEATURES) + len(RELATIVE) + i for i, name in enumerate(WORDS)}
    terms = np.stack([x[:, at["w_object"]], x[:, at["w_heading"]], x[:, at["w_phrase"]], x[:, FEATURES.index("log_words")]], axis=1)
    return hand + terms @ np.array([w[k] for k in RERANK])


def hits_at_1(ranker: UnitRanker | None, pairs: Iterable[Pair]) -> list[int]:
    """Per counted question, 1 when its best-ranked candidate answers it (None: the hand score); questions with no answering candidate are not counted."""
    out = []
    for p in pairs:
        if not p.y.any():
            continue
        s = p.x[:, FEATURES.index("hand")] if ranker is None or not ranker.applies_to(p.x) else ranker.scores(p.x)
        out.append(int(p.y[int(np.argmax(s))] == 1))
    return out


def precision_at_1(ranker: UnitRanker | None, pairs: Iterable[Pair]) -> tuple[float, int]:
    """Share of questions whose best-ranked candidate answers them (None: the hand score), and how many were counted."""
    h = hits_at_1(ranker, pairs)
    return (sum(h) / len(h) if h else 0.0), len(h)


def bootstrap_ci(hits: Sequence[int], *, rounds: int = 2000, seed: int = 0) -> tuple[float, float]:
    """The 95% bootstrap interval of a share of hits."""
    if not hits:
        return 0.0, 0.0
    a = np.asarray(hits, dtype=np.float64)
    means = np.random.default_rng(seed).choice(a, size=(rounds, len(a)), replace=True).mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def paired_gain_ci(learned: Sequence[int], hand: Sequence[int], *, rounds: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """The mean gain of one scorer over another on the same questions, with its 95% paired bootstrap interval."""
    d = np.asarray(learned, dtype=np.float64) - np.asarray(hand, dtype=np.float64)
    if not len(d):
        return 0.0, 0.0, 0.0
    means = np.random.default_rng(seed).choice(d, size=(rounds, len(d)), replace=True).mean(axis=1)
    return float(d.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def title_keys(title: str) -> set[str]:
    return doc_keys(title)
