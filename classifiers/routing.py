"""The campus router: whose business is a message — one of the offices, or none (out of domain).

Two parts, both trained from the offices' documents only: a campus gate (the ordinary gate, fitted on every office's
chunks) says whether the message is any office's business; an office classifier (multinomial logistic regression over
the question's embedding and its similarity to each office's documents) says whose. Persisted as JSON + NumPy arrays."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from classifiers.errors import GateError, GateNotTrained
from classifiers.gate import Gate
from pipeline.embeddings import Embedder

FORMAT_VERSION = 1
TOP_K = 3


class RouterNotTrained(GateNotTrained):
    """No router is stored yet."""


@dataclass(slots=True)
class RouteDecision:
    """The router's verdict on one message."""

    office: str | None  # None: no office's business (out of domain)
    probabilities: dict[str, float]  # office -> probability that it is its business (given that it is someone's)
    in_domain_score: float  # the campus gate's probability that some office handles it
    latency_ms: float = 0.0

    def margin_over(self, office: str) -> float:
        """How much more likely the chosen office is than `office`."""
        if self.office is None:
            return 0.0
        return self.probabilities.get(self.office, 0.0) - self.probabilities.get(office, 0.0)


def office_similarities(query_vecs: np.ndarray, office_vectors: Sequence[np.ndarray], k: int = TOP_K) -> np.ndarray:
    """Per query and office: the best cosine to the office's chunks and the mean of its top-k."""
    cols = []
    for vectors in office_vectors:
        if vectors.size == 0:
            cols.append(np.zeros((len(query_vecs), 2), dtype=np.float32))
            continue
        sims = query_vecs @ vectors.T
        kk = min(k, sims.shape[1])
        top = -np.partition(-sims, kk - 1, axis=1)[:, :kk]
        cols.append(np.column_stack([top.max(axis=1), top.mean(axis=1)]))
    return np.hstack(cols).astype(np.float32)


@dataclass
class Router:
    """Campus gate + office classifier."""

    offices: list[str]
    office_vectors: list[np.ndarray]  # each office's own chunk vectors (L2-normalised; shared campus documents left out)
    gate: Gate | None  # None: every message is some office's business (no out-of-domain decision)
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # (n_offices, n_features)
    intercept: np.ndarray  # (n_offices,)
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------ features and scores
    def features(self, query_vecs: np.ndarray) -> np.ndarray:
        return np.hstack([query_vecs.astype(np.float32), office_similarities(query_vecs, self.office_vectors)])

    def office_probabilities(self, query_vecs: np.ndarray) -> np.ndarray:
        """(n, n_offices) probabilities over the offices."""
        z = ((self.features(query_vecs) - self.mean) / self.scale) @ self.coef.T + self.intercept
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def route_many(self, texts: Sequence[str], embedder: Embedder, *, query_vecs: np.ndarray | None = None) -> list[RouteDecision]:
        """One decision per message; `query_vecs` (the questions' embeddings) are reused when given."""
        start = time.perf_counter()
        if query_vecs is None:
            query_vecs = embedder.embed_queries(list(texts))
        probs = self.office_probabilities(np.asarray(query_vecs, dtype=np.float32))
        if self.gate is not None:
            in_scores = self.gate.probabilities(list(texts), embedder, query_vecs=query_vecs)
            threshold = self.gate.threshold
        else:
            in_scores, threshold = np.ones(len(texts)), 0.0
        elapsed = (time.perf_counter() - start) * 1000 / max(1, len(texts))
        out = []
        for p, score in zip(probs, in_scores):
            office = self.offices[int(np.argmax(p))] if score >= threshold else None
            out.append(RouteDecision(office=office, probabilities={o: float(v) for o, v in zip(self.offices, p)}, in_domain_score=float(score), latency_ms=elapsed))
        return out

    def route(self, text: str, embedder: Embedder, *, query_vec: np.ndarray | None = None) -> RouteDecision:
        """The decision for one message (its embedding reused when given)."""
        return self.route_many([text], embedder, query_vecs=None if query_vec is None else np.asarray(query_vec).reshape(1, -1))[0]

    # ------------------------------------------------------------ persistence
    def save(self, directory: Path) -> Path:
        """router.json + router.npz (no pickle); the campus gate in gate/."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        arrays = {"mean": self.mean, "scale": self.scale, "coef": self.coef, "intercept": self.intercept}
        arrays |= {f"office_{i}": v for i, v in enumerate(self.office_vectors)}
        np.savez(directory / "router.npz", **arrays)
        if self.gate is not None:
            self.gate.save(directory / "gate")
        meta = {**self.meta, "format": FORMAT_VERSION, "offices": self.offices, "has_gate": self.gate is not None}
        (directory / "router.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return directory / "router.json"

    @classmethod
    def load(cls, directory: Path) -> "Router":
        directory = Path(directory)
        path = directory / "router.json"
        if not path.exists():
            raise RouterNotTrained(f"no router in {directory}: run `orienta offices train-router`")
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.pop("format", None) != FORMAT_VERSION:
            raise RouterNotTrained(f"the router in {directory} has an old format: run `orienta offices train-router`")
        arrays = np.load(directory / "router.npz", allow_pickle=False)
        offices = meta.pop("offices")
        gate = Gate.load(directory / "gate") if meta.pop("has_gate") else None
        return cls(
            offices=offices, office_vectors=[arrays[f"office_{i}"] for i in range(len(offices))], gate=gate,
            mean=arrays["mean"], scale=arrays["scale"], coef=arrays["coef"], intercept=arrays["intercept"], meta=meta,
        )


def fit_offices(
    query_vecs: np.ndarray,
    labels: Sequence[str],
    *,
    offices: Sequence[str],
    office_vectors: Sequence[np.ndarray],
    weights: Sequence[float] | None = None,
    c: float = 1.0,
    seed: int = 7,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fit the office classifier on labelled question vectors: (mean, scale, coef, intercept)."""
    from sklearn.linear_model import LogisticRegression

    if len(set(labels)) < 2:
        raise GateError("routing needs questions of at least two offices")
    unknown = set(labels) - set(offices)
    if unknown:
        raise GateError(f"examples labelled with unknown offices: {sorted(unknown)}")
    x = np.hstack([query_vecs.astype(np.float32), office_similarities(query_vecs, office_vectors)])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    y = np.array([list(offices).index(label) for label in labels])
    clf = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=seed)
    clf.fit((x - mean) / scale, y, sample_weight=None if weights is None else np.asarray(weights, dtype=np.float64))
    coef, intercept = np.asarray(clf.coef_, dtype=np.float32), np.asarray(clf.intercept_, dtype=np.float32)
    if len(offices) == 2:  # binary: scikit-learn keeps one row (for class 1)
        coef, intercept = np.vstack([-coef / 2, coef / 2]), np.array([-intercept[0] / 2, intercept[0] / 2], dtype=np.float32)
    present = sorted(set(y.tolist()))
    if len(present) < len(offices) and len(offices) > 2:  # an office without examples can never be chosen
        full_coef = np.zeros((len(offices), x.shape[1]), dtype=np.float32)
        full_int = np.full(len(offices), -50.0, dtype=np.float32)
        full_coef[present], full_int[present] = coef, intercept
        coef, intercept = full_coef, full_int
    return mean.astype(np.float32), scale.astype(np.float32), coef, intercept


def routing_report(truth: Sequence[str | None], predicted: Sequence[str | None], *, offices: Sequence[str]) -> dict:
    """Macro-F1 over the offices plus "out of domain" (the classes present in the truth), accuracy, confusion matrix."""
    from sklearn.metrics import f1_score

    none = "(fuera de dominio)"
    t = [none if x is None else x for x in truth]
    p = [none if x is None else x for x in predicted]
    labels = [o for o in offices if o in set(t)] + ([none] if none in set(t) else [])
    extra = sorted(set(t) - set(labels))  # offices in the file the deployment does not know
    labels += extra
    macro = float(f1_score(t, p, labels=labels, average="macro", zero_division=0)) if labels else 0.0
    per_class = f1_score(t, p, labels=labels, average=None, zero_division=0) if labels else []
    columns = labels + sorted(set(p) - set(labels))
    confusion = {a: {b: sum(1 for x, y in zip(t, p) if x == a and y == b) for b in columns} for a in labels}
    return {
        "macro_f1": macro,
        "accuracy": float(np.mean([a == b for a, b in zip(t, p)])) if t else 0.0,
        "f1": {label: float(v) for label, v in zip(labels, per_class)},
        "confusion": confusion,
        "n": len(t),
    }
