"""The trained gate: decide, persist (JSON + NumPy arrays, no pickle), detect staleness."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np

from classifiers.errors import GateError, GateNotTrained, GateStale
from classifiers.features import FeatureSpace
from classifiers.intent import FEATURES as INTENT_FEATURES
from classifiers.intent import NAMES as INTENT_NAMES
from classifiers.memory import Recall, StaffMemory
from classifiers.segments import MAKES_TEXT, QUESTION, REQUEST, REQUESTS, WHOLE, judge_segments, message_segments, request_clauses, without_address  # noqa: F401 (importable from here)
from pipeline.embeddings import Embedder

MODELS = ("svm", "logreg", "knn")
FORMAT_VERSION = 8  # 4: two more intent features (personal, encyclopedic); 5: one more (problem); 6: three more (named_institution, transfer_in, computes); 7: one more (provider); 8: one more (errand); a gate saved before has fewer columns


ANSWERABLE, NO_INFO, OUT_OF_DOMAIN = "answerable", "no_info", "out_of_domain"
OUTCOMES = (ANSWERABLE, NO_INFO, OUT_OF_DOMAIN)
# What each dense feature means to a reviewer (intent features describe themselves in classifiers.intent).
_DESCRIPTIONS = {
    "similarity_max": "parecido a los documentos", "similarity_top": "parecido a varios documentos", "similarity_margin": "se destaca sobre el resto del corpus",
    "lexical_known": "palabras que están en los documentos", "lexical_weight": "palabras propias de los documentos", "lexical_unknown": "palabras que no están en los documentos",
    "tfidf": "vocabulario", **dict(INTENT_FEATURES),
}


@dataclass(slots=True)
class GateDecision:
    """The gate's verdict on one message: in or out of domain, and whether the documents are likely to answer it."""

    in_domain: bool
    score: float  # calibrated probability of being in domain
    threshold: float
    latency_ms: float = 0.0
    outcome: str = ANSWERABLE  # answerable | no_info | out_of_domain
    info_score: float | None = None  # probability that the documents answer it (three-outcome gates)
    reasons: list[str] = field(default_factory=list)  # the features that weighed most, in the decision's direction
    remembered: dict | None = None  # the staff-labelled message that decided it (label, similarity, message_id, date)


def remembered_reason(r: Recall) -> str:
    """Why the staff memory decided: "parecido a un mensaje que el equipo marcó fuera de dominio el 12/11"."""
    verdict = "dentro del dominio" if r.label == 1 else "fuera de dominio"
    when = ""
    if r.date:
        try:
            d = datetime.fromisoformat(r.date)
            when = f" el {d.day:02d}/{d.month:02d}"
        except ValueError:
            pass
    ref = f" (#{r.message_id})" if r.message_id is not None else ""
    if r.by_model:
        return f"las decisiones del equipo lo ven {verdict} (el mensaje más parecido{ref}, marcado así{when}, similitud {r.similarity:.2f})"
    return f"parecido a un mensaje{ref} que el equipo marcó {verdict}{when} (similitud {r.similarity:.2f})"


def corpus_hash(chunk_ids_and_texts: Sequence[tuple[str, str]]) -> str:
    """A short fingerprint of the indexed corpus: a change marks the gate stale."""
    h = hashlib.sha256()
    for cid, text in sorted(chunk_ids_and_texts):
        h.update(cid.encode())
        h.update(hashlib.sha256(text.encode()).digest())
    return h.hexdigest()[:16]


# Intents that say whose business a message is, beside another institution named: a message with one of them must clear
# the higher bar (Gate.elsewhere_bar). Not the cues the office's own questions share (content words, campus places, history).
ELSEWHERE_INTENTS = ("jobs", "coding", "opinion", "course_content", "computes", "provider")
# The cues among them that name whose business the message is, not only what it asks (intent, least value): code, an
# outside provider, a job search (2; the student's own work life is 1). With one of them, or another institution named, a
# message is out of the office's domain whatever its score: the office's vocabulary around it does not make it the office's.
DECISIVE = (("coding", 1.0), ("provider", 1.0), ("jobs", 2.0))
UNDER = 0.999  # a decided message's score is scaled just under the threshold (order kept)


def elsewhere_bar(score: np.ndarray, dense: np.ndarray, owner: Sequence[int], kinds: Sequence[str], *, names: Sequence[str], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(scores, where the structure decided against the threshold): a message that names another institution (a faculty,
    university or body the documents do not name as their own) and is not a student coming from it to this office's
    procedure, nor a document the office issues for it, asks about that institution's business. Its words are the office's
    (an EPS, a retrasada, the portal), so the classifier, which weighs vocabulary, rates it as it rates the office's own
    questions; the structure says whose business it is, and the message is out whatever its score (scaled under the
    threshold, order kept). So is a message with a DECISIVE cue (code, an outside provider, a job search). The other
    intents that suggest someone else's business (ELSEWHERE_INTENTS: an opinion, a course's subject matter, a
    calculation, the student's own work life) are sometimes context for the office's question, so such a message passes
    only with in-domain evidence halfway from the threshold to certainty (`elsewhere_threshold`)."""
    score = np.asarray(score, dtype=float).copy()
    barred = np.zeros(len(score), dtype=bool)
    if "other_institution" not in names or dense.shape[0] == 0:
        return score, barred
    other, named, transfer = (names.index(n) for n in ("other_institution", "named_institution", "transfer_in"))
    outside = [names.index(n) for n in ELSEWHERE_INTENTS if n in names]
    decisive = [(names.index(n), least) for n, least in DECISIVE if n in names]
    seen: set[int] = set()
    for i, (o, k) in enumerate(zip(owner, kinds)):
        if k != WHOLE or o in seen:
            continue
        seen.add(o)
        institution = (dense[i, other] > 0 or dense[i, named] > 0) and dense[i, transfer] == 0
        if institution or any(dense[i, j] >= least for j, least in decisive):
            barred[o] = score[o] >= threshold  # the structure decided: the threshold alone would have let it in
            score[o] = score[o] * threshold * UNDER
        elif any(dense[i, j] > 0 for j in outside):
            held, decided = halfway_bar(score[o : o + 1], threshold)
            score[o], barred[o] = held[0], decided[0]
    return score, barred


def errand_floor(score: np.ndarray, best: np.ndarray, dense: np.ndarray, kinds: Sequence[str], *, names: Sequence[str], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(scores, where the floor decided): a message decided by a segment that is the student's own administrative errand
    with the office (the intent "errand": a certificate, their card, a receipt, a form, their section, their record, an
    appointment, readmission) is the office's business even when its documents do not describe the errand, so it scores
    at least the threshold and reaches a person (usually as "no information"). Applied before `elsewhere_bar`: another
    institution named, code, a job search, or an intent that suggests someone else's business still decide against it;
    a request to write a text is never floored."""
    score = np.asarray(score, dtype=float).copy()
    floored = np.zeros(len(score), dtype=bool)
    if "errand" not in names or dense.shape[0] == 0:
        return score, floored
    col = names.index("errand")
    for o in range(len(score)):
        i = int(best[o])
        if kinds[i] != MAKES_TEXT and dense[i, col] > 0 and score[o] < threshold:
            floored[o], score[o] = True, threshold
    return score, floored


def halfway(threshold: float) -> float:
    """The bar halfway from `threshold` to certainty."""
    return (1.0 + threshold) / 2.0


def halfway_bar(score: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(scores, where the bar decided) for messages that must clear a bar halfway from `threshold` to certainty: a score
    under the bar is scaled under the threshold (order kept), one at or over it is kept; the bar decided where the
    threshold alone would have let the message in."""
    score = np.asarray(score, dtype=float)
    bar = halfway(threshold)
    under = score < bar
    return np.where(under, score * threshold / bar, score), under & (score >= threshold)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


@dataclass
class Gate:
    """A calibrated classifier over gate features with a decision threshold."""

    space: FeatureSpace
    model: str
    threshold: float
    mean: np.ndarray  # standardisation of the dense block
    scale: np.ndarray
    coef: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # linear models: dense then sparse weights
    intercept: float = 0.0
    calibration: tuple[float, float] = (1.0, 0.0)  # Platt a, b: p = sigmoid(a * margin + b)
    neighbours: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))  # k-NN: training rows
    neighbour_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    k: int = 15
    info_coef: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))  # answerable vs no-info, over the dense block
    info_intercept: float = 0.0
    info_threshold: float = 0.0
    memory: StaffMemory = field(default_factory=StaffMemory)  # staff-labelled messages, consulted before the classifier
    meta: dict = field(default_factory=dict)
    fresh: bool | None = field(default=None, compare=False)  # set by whoever checks it against the index; not stored

    @property
    def features(self) -> str:
        return self.space.name

    # ------------------------------------------------------------ scoring
    def _dense(self, dense: np.ndarray) -> np.ndarray:
        return (dense - self.mean) / self.scale

    def margin(self, dense: np.ndarray, sparse=None) -> np.ndarray:
        """Raw decision value of the linear models (before calibration)."""
        d = self._dense(dense)
        n_dense = d.shape[1]
        z = d @ self.coef[:n_dense] + self.intercept
        if sparse is not None:
            z = z + np.asarray(sparse @ self.coef[n_dense:]).ravel()
        return z

    def probabilities_from_features(self, dense: np.ndarray, sparse=None) -> np.ndarray:
        """Calibrated in-domain probabilities from precomputed features."""
        if self.model == "knn":
            return self._knn(self._dense(dense))
        a, b = self.calibration
        return _sigmoid(a * self.margin(dense, sparse) + b)

    def _knn(self, x: np.ndarray) -> np.ndarray:
        xn = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)
        sims = xn @ self.neighbours.T
        k = min(self.k, sims.shape[1])
        idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        w = np.maximum(np.take_along_axis(sims, idx, axis=1), 0) + 1e-6
        return (w * self.neighbour_labels[idx]).sum(axis=1) / w.sum(axis=1)

    def _segment_scores(self, texts: Sequence[str], embedder: Embedder | None, query_vecs: np.ndarray | None):
        """Features and in-domain probabilities of every segment, how segments map to messages, and each segment's vector."""
        kinds: list[str] = []
        segments, owner = message_segments(texts, kinds=kinds)
        if len(segments) != len(texts):
            query_vecs = None  # vectors were computed for whole texts; segments need their own
        vecs = query_vecs
        if vecs is None and embedder is not None and (self.space.needs_embedding or len(self.memory)):
            vecs = embedder.embed_queries(segments)
        dense, sparse = self.space.transform(segments, embedder=embedder, query_vecs=vecs)
        return dense, sparse, self.probabilities_from_features(dense, sparse), owner, kinds, vecs

    @property
    def elsewhere_threshold(self) -> float:
        """The bar for a message with an intent that suggests someone else's business: halfway between the threshold and certainty."""
        return halfway(self.threshold)

    def elsewhere_bar(self, score: np.ndarray, dense: np.ndarray, owner: Sequence[int], kinds: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(scores, where the bar decided) at this gate's threshold: see `elsewhere_bar`."""
        return elsewhere_bar(score, dense, owner, kinds, names=self.space.dense_names(), threshold=self.threshold)

    def errand_floor(self, score: np.ndarray, best: np.ndarray, dense: np.ndarray, kinds: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(scores, where the floor decided) at this gate's threshold: see `errand_floor`."""
        return errand_floor(score, best, dense, kinds, names=self.space.dense_names(), threshold=self.threshold)

    def recall(self, owner: Sequence[int], kinds: Sequence[str], vecs: np.ndarray | None, n: int, scores: np.ndarray | None = None) -> list[Recall | None]:
        """The staff memory's verdict on each message's whole text (None where it has nothing close)."""
        if not len(self.memory) or vecs is None:
            return [None] * n
        whole = [i for i, k in enumerate(kinds) if k == WHOLE]
        return self.memory.recall(np.asarray(vecs)[whole], scores=scores, threshold=self.threshold)

    def probabilities(self, texts: Sequence[str], embedder: Embedder | None = None, *, query_vecs: np.ndarray | None = None, memory: bool = True) -> np.ndarray:
        """Probability that each message is in the office's domain, judged on its request (see `judge_segments`); where
        the staff memory has a close labelled message, its label (1.0 or 0.0) decides."""
        dense, _, p, owner, kinds, vecs = self._segment_scores(texts, embedder, query_vecs)
        score, best = judge_segments(p, owner, kinds, len(texts))
        score, _ = self.errand_floor(score, best, dense, kinds)
        score, _ = self.elsewhere_bar(score, dense, owner, kinds)
        if memory:
            for i, r in enumerate(self.recall(owner, kinds, vecs, len(texts), score.copy())):
                if r is not None:
                    score[i] = float(r.label)
        return score

    def info_probabilities(self, dense: np.ndarray) -> np.ndarray | None:
        """Probability that the documents answer each message (None for a two-outcome gate)."""
        if self.info_coef.size == 0:
            return None
        return _sigmoid(self._dense(dense) @ self.info_coef + self.info_intercept)

    def contributions(self, dense: np.ndarray, sparse=None) -> list[tuple[str, float]]:
        """Each feature's push towards 'in domain' for one message (linear models; the TF-IDF block counts as one)."""
        if self.model == "knn" or self.coef.size == 0:
            return []
        d = self._dense(dense)[0]
        names = self.space.dense_names()
        parts = [(n, float(v)) for n, v in zip(names, d * self.coef[: len(d)]) if not n.startswith("embedding_")]
        emb = [float(v) for n, v in zip(names, d * self.coef[: len(d)]) if n.startswith("embedding_")]
        if emb:
            parts.append(("embedding", sum(emb)))
        if sparse is not None:
            parts.append(("tfidf", float(np.asarray(sparse @ self.coef[len(d) :]).ravel()[0])))
        return parts

    def outcomes(self, texts: Sequence[str], embedder: Embedder | None = None, *, query_vecs: np.ndarray | None = None, explain: int = 3) -> list[GateDecision]:
        """The three-way verdict for each message, with the top `explain` reasons; the staff memory is consulted first, then
        a message is judged by its request clause if it asks to produce something, else by its best segment."""
        start = time.perf_counter()
        dense, sparse, p, owner, kinds, vecs = self._segment_scores(texts, embedder, query_vecs)
        segments = message_segments(texts)[0]
        info = self.info_probabilities(dense)
        scores, best = judge_segments(p, owner, kinds, len(texts))
        raw = scores.copy()
        scores, floored = self.errand_floor(scores, best, dense, kinds)
        scores, barred = self.elsewhere_bar(scores, dense, owner, kinds)
        recalls = self.recall(owner, kinds, vecs, len(texts), scores)
        out = []
        for o in range(len(texts)):
            i = int(best[o])
            score = float(scores[o])
            remembered = recalls[o]
            in_domain = bool(remembered.label) if remembered is not None else score >= self.threshold
            info_score = None if info is None else float(info[i])
            outcome = OUT_OF_DOMAIN if not in_domain else NO_INFO if info_score is not None and info_score < self.info_threshold else ANSWERABLE
            reasons = []
            if remembered is not None:
                reasons.append(remembered_reason(remembered))
            if barred[o]:
                reasons.append(f"asunto de otros (otra institución, empleo, código, un proveedor de fuera, opinión, materia o cálculo): no basta el vocabulario de la oficina (puntaje {raw[o]:.2f}, umbral {self.threshold:.2f})")
            if floored[o] and not barred[o] and in_domain and remembered is None:
                reasons.append(f"trámite propio del estudiante con la oficina (constancia, carné, sección, recibo, cita...): llega a una persona aunque los documentos no lo describan (puntaje {raw[o]:.2f}, umbral {self.threshold:.2f})")
            if kinds[i] in REQUESTS:
                reasons.append(f"se juzgó por lo que pide: «{segments[i][:80]}»" + ("; escribir un texto por el estudiante no es tarea de la oficina (-∞)" if kinds[i] == MAKES_TEXT else ""))
            if explain:
                parts = self.contributions(dense[i : i + 1], sparse[i : i + 1] if sparse is not None else None)
                sign = 1 if in_domain else -1
                present = dict(zip(self.space.dense_names(), dense[i]))
                parts = [(n, v) for n, v in parts if n not in INTENT_NAMES or present.get(n, 0) > 0]  # an absent intent is no reason
                for name, v in sorted(parts, key=lambda nv: -sign * nv[1])[:explain]:
                    if sign * v > 0:
                        reasons.append(f"{_DESCRIPTIONS.get(name, name)} ({v:+.1f})")
            out.append(GateDecision(in_domain=in_domain, score=score, threshold=self.threshold, outcome=outcome, info_score=info_score, reasons=reasons,
                                    remembered=None if remembered is None else {"label": remembered.label, "similarity": remembered.similarity, "message_id": remembered.message_id, "date": remembered.date}))
        elapsed = (time.perf_counter() - start) * 1000 / max(1, len(texts))
        for d in out:
            d.latency_ms = elapsed
        return out

    def decide(self, text: str, embedder: Embedder) -> GateDecision:
        """The verdict on one message with its reasons; latency includes the embedding."""
        return self.outcomes([text], embedder)[0]

    # ------------------------------------------------------------ staleness
    def check_fresh(self, current_corpus_hash: str) -> None:
        """Raise GateStale when the gate was trained on a different corpus."""
        trained = self.meta.get("corpus_hash")
        if trained != current_corpus_hash:
            raise GateStale(f"the gate was trained on corpus {trained}, the index now holds {current_corpus_hash}: run `orienta gate train`")

    def is_stale(self, current_corpus_hash: str) -> bool:
        return self.meta.get("corpus_hash") != current_corpus_hash

    # ------------------------------------------------------------ persistence
    def save(self, directory: Path) -> Path:
        """Write gate.json (metadata, threshold) and arrays as .npz; no pickle anywhere."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.space.save(directory)
        np.savez(
            directory / "gate.npz",
            mean=self.mean,
            scale=self.scale,
            coef=self.coef,
            neighbours=self.neighbours,
            neighbour_labels=self.neighbour_labels,
            info_coef=self.info_coef,
            **self.memory.as_arrays(),
        )
        meta = {
            **self.meta,
            "format": FORMAT_VERSION,
            "model": self.model,
            "features": self.features,
            "threshold": self.threshold,
            "intercept": self.intercept,
            "calibration": list(self.calibration),
            "k": self.k,
            "info_intercept": self.info_intercept,
            "info_threshold": self.info_threshold,
            "memory": self.memory.as_meta(),
        }
        (directory / "gate.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return directory / "gate.json"

    @classmethod
    def load(cls, directory: Path) -> "Gate":
        """Read a gate written by `save`."""
        directory = Path(directory)
        meta_path = directory / "gate.json"
        if not meta_path.exists():
            raise GateNotTrained(f"no gate in {directory}: run `orienta gate train`")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_VERSION:
            raise GateNotTrained(f"the gate in {directory} has an old format: run `orienta gate train`")
        arrays = np.load(directory / "gate.npz", allow_pickle=False)
        model = meta.pop("model")
        if model not in MODELS:
            raise GateError(f"unknown gate model {model!r}")
        for key in ("format", "features"):
            meta.pop(key)
        return cls(
            space=FeatureSpace.load(directory),
            model=model,
            threshold=float(meta.pop("threshold")),
            mean=arrays["mean"],
            scale=arrays["scale"],
            coef=arrays["coef"],
            intercept=float(meta.pop("intercept")),
            calibration=tuple(meta.pop("calibration")),  # type: ignore[arg-type]
            neighbours=arrays["neighbours"],
            neighbour_labels=arrays["neighbour_labels"],
            k=int(meta.pop("k")),
            info_coef=arrays["info_coef"],
            info_intercept=float(meta.pop("info_intercept")),
            info_threshold=float(meta.pop("info_threshold")),
            memory=StaffMemory.from_stored(arrays, meta.pop("memory", None)),
            meta=meta,
        )


def choose_threshold(y: np.ndarray, p: np.ndarray, *, min_in_recall: float = 0.98, cap: float = 0.5) -> float:
    """The highest threshold (at most `cap`) keeping held-out in-domain recall >= `min_in_recall`: turning students away is worst."""
    in_scores = np.sort(np.asarray(p)[np.asarray(y) == 1])
    if len(in_scores) == 0:
        return cap
    idx = int(np.floor((1 - min_in_recall) * len(in_scores) + 1e-9))
    return float(min(cap, in_scores[idx] - 1e-6))
