"""Learned ranking of candidate answer units: features of a (question, unit) pair and a logistic model trained on labelled pairs."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.generation.asking import Asked, period_score
from pipeline.generation.lexical import doc_keys, query_keys
from pipeline.text import fold

RANKER_VERSION = 1

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
    "requirement": ("requirement",),
    "other": (),
}

FEATURES = (
    "lexical", "context", "dense", "doc_rank", "hit_rank", "name", "code", "programme",
    "object", "object_ctx", "object_missing", "meets_strong", "meets_weak", "misses", "kind_other",
    "period_past", "period_current", "lead_in", "log_words", "long",
    "u_sentence", "u_item", "u_faq", "u_record", "u_row",
    "faq_question", "topic", "hand",
    "proc_item", "yesno_permission", "record_named",
)

RELATIVE = ("hand_share", "hand_rank")  # computed over one question's candidates


def with_relative(x: np.ndarray) -> np.ndarray:
    """One question's feature rows with the hand score relative to its best candidate and the inverse of its rank."""
    h = x[:, FEATURES.index("hand")]
    order = np.argsort(-h, kind="stable")
    rank = np.empty(len(h), dtype=np.float32)
    rank[order] = np.arange(1, len(h) + 1)
    top = float(h.max()) if len(h) else 1.0
    return np.hstack([x, np.stack([h / (top or 1.0), 1.0 / rank], axis=1).astype(np.float32)])


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
    qkeys: frozenset[str]
    okeys: frozenset[str]


def pair_context(question: str, asked: Asked) -> PairContext:
    return PairContext(asked, frozenset(query_keys(question)), frozenset(asked.object_keys))


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
        ],
        dtype=np.float32,
    )


def _has(key: str, keys: set[str]) -> bool:
    return key in keys or key[:4] in keys


@dataclass
class UnitRanker:
    """A logistic model over FEATURES (standardised), stored as plain JSON."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    meta: dict

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Probability that each row's unit answers the question."""
        z = ((with_relative(x) - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": RANKER_VERSION, "features": list(FEATURES + RELATIVE), "mean": self.mean.tolist(), "scale": self.scale.tolist(), "coef": self.coef.tolist(), "intercept": self.intercept, "meta": self.meta}
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> "UnitRanker | None":
        """The stored model, or None when there is none or it was built for other features."""
        if not path.exists():
            return None
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("version") != RANKER_VERSION or d.get("features") != list(FEATURES + RELATIVE):
            return None
        return cls(np.array(d["mean"], dtype=np.float32), np.array(d["scale"], dtype=np.float32), np.array(d["coef"], dtype=np.float32), float(d["intercept"]), d.get("meta") or {})


@dataclass(slots=True)
class Pair:
    """One question's candidates: their features and which ones answer it."""

    x: np.ndarray  # (n_candidates, n_features)
    y: np.ndarray  # (n_candidates,) 0/1
    source: str  # synthetic | dev | approved


def fit(pairs: Sequence[Pair], *, c: float = 1.0, max_negatives: int = 30, seed: int = 0) -> UnitRanker:
    """A pairwise logistic model (an answering unit against each question's hardest and some random non-answering ones), sources weighted alike."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    by_source: dict[str, int] = {}
    for p in pairs:
        by_source[p.source] = by_source.get(p.source, 0) + 1
    usable = [Pair(with_relative(p.x), p.y, p.source) for p in pairs if p.y.any() and not p.y.all()]
    if not usable:
        raise ValueError("no labelled question has both an answering and a non-answering unit")
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


def precision_at_1(ranker: UnitRanker | None, pairs: Iterable[Pair]) -> tuple[float, int]:
    """Share of questions whose best-ranked candidate answers them (None: the hand score), and how many were counted."""
    hits = n = 0
    for p in pairs:
        if not p.y.any():
            continue
        s = p.x[:, FEATURES.index("hand")] if ranker is None else ranker.scores(p.x)
        hits += int(p.y[int(np.argmax(s))] == 1)
        n += 1
    return (hits / n if n else 0.0), n


def title_keys(title: str) -> set[str]:
    return doc_keys(title)
