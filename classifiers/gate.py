"""The trained gate: decide, persist (JSON + NumPy arrays, no pickle), detect staleness."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from classifiers.errors import GateError, GateNotTrained, GateStale
from classifiers.features import FeatureSpace
from pipeline.embeddings import Embedder
from pipeline.redaction import strip_placeholders

MODELS = ("svm", "logreg", "knn")
FORMAT_VERSION = 2


@dataclass(slots=True)
class GateDecision:
    """The gate's verdict on one message."""

    in_domain: bool
    score: float  # calibrated probability of being in domain
    threshold: float
    latency_ms: float = 0.0


def corpus_hash(chunk_ids_and_texts: Sequence[tuple[str, str]]) -> str:
    """A short fingerprint of the indexed corpus: a change marks the gate stale."""
    h = hashlib.sha256()
    for cid, text in sorted(chunk_ids_and_texts):
        h.update(cid.encode())
        h.update(hashlib.sha256(text.encode()).digest())
    return h.hexdigest()[:16]


_QUESTION = re.compile(r"[^.!?¿\n]*¿?[^.!?¿\n]*\?")


def message_segments(texts: Sequence[str]) -> tuple[list[str], list[int]]:
    """Each message, plus its question sentences when it has several sentences (a long story around one question).

    Redaction placeholders ([CEDULA], [TELEFONO]...) are dropped: they carry no domain signal."""
    segments: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        text = re.sub(r"\s+", " ", strip_placeholders(text)).strip()
        segments.append(text)
        owner.append(i)
        questions = [q.strip() for q in _QUESTION.findall(text) if len(q.strip()) >= 12]
        if questions and len(questions[0]) < len(text) - 20:
            for q in questions:
                segments.append(q)
                owner.append(i)
    return segments, owner


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

    def probabilities(self, texts: Sequence[str], embedder: Embedder | None = None, *, query_vecs: np.ndarray | None = None) -> np.ndarray:
        """Calibrated probability that each message is in the office's domain: the best of the whole text and its questions."""
        segments, owner = message_segments(texts)
        if len(segments) != len(texts):
            query_vecs = None  # vectors were computed for whole texts; segments need their own
        dense, sparse = self.space.transform(segments, embedder=embedder, query_vecs=query_vecs)
        p = self.probabilities_from_features(dense, sparse)
        out = np.zeros(len(texts), dtype=np.float64)
        np.maximum.at(out, np.asarray(owner), p)
        return out

    def decide(self, text: str, embedder: Embedder) -> GateDecision:
        """In or out of domain for one message; latency excludes nothing (embedding included)."""
        start = time.perf_counter()
        p = float(self.probabilities([text], embedder)[0])
        return GateDecision(in_domain=p >= self.threshold, score=p, threshold=self.threshold, latency_ms=(time.perf_counter() - start) * 1000)

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
            meta=meta,
        )


def choose_threshold(y: np.ndarray, p: np.ndarray, *, min_in_recall: float = 0.98, cap: float = 0.5) -> float:
    """The highest threshold (at most `cap`) keeping held-out in-domain recall >= `min_in_recall`: turning students away is worst."""
    in_scores = np.sort(np.asarray(p)[np.asarray(y) == 1])
    if len(in_scores) == 0:
        return cap
    idx = int(np.floor((1 - min_in_recall) * len(in_scores) + 1e-9))
    return float(min(cap, in_scores[idx] - 1e-6))
