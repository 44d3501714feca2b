"""The trained gate: fit, decide, persist (JSON + NumPy arrays, no pickle), detect staleness."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from classifiers.errors import GateNotTrained
from classifiers.features import build_features
from pipeline.embeddings import Embedder


@dataclass(slots=True)
class GateDecision:
    """The gate's verdict on one message."""

    in_domain: bool
    score: float  # calibrated probability of being in domain
    threshold: float
    latency_ms: float = 0.0


def corpus_hash(chunk_ids_and_texts: Sequence[tuple[str, str]]) -> str:
    h = hashlib.sha256()
    for cid, text in sorted(chunk_ids_and_texts):
        h.update(cid.encode())
        h.update(hashlib.sha256(text.encode()).digest())
    return h.hexdigest()[:16]


@dataclass
class Gate:
    """A linear classifier over gate features with a decision threshold."""

    coef: np.ndarray
    intercept: float
    threshold: float
    corpus: np.ndarray  # chunk vectors used for similarity features
    features: str
    meta: dict = field(default_factory=dict)

    def probabilities(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        x = build_features(texts, embedder=embedder, corpus=self.corpus, kind=self.features)
        return 1.0 / (1.0 + np.exp(-(x @ self.coef + self.intercept)))

    def decide(self, text: str, embedder: Embedder) -> GateDecision:
        start = time.perf_counter()
        p = float(self.probabilities([text], embedder)[0])
        return GateDecision(in_domain=p >= self.threshold, score=p, threshold=self.threshold, latency_ms=(time.perf_counter() - start) * 1000)

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        np.savez(directory / "gate.npz", coef=self.coef, corpus=self.corpus)
        meta = {**self.meta, "intercept": self.intercept, "threshold": self.threshold, "features": self.features}
        (directory / "gate.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        return directory / "gate.json"

    @classmethod
    def load(cls, directory: Path) -> "Gate":
        meta_path = directory / "gate.json"
        if not meta_path.exists():
            raise GateNotTrained(f"no gate in {directory}: run `orienta gate train`")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        arrays = np.load(directory / "gate.npz", allow_pickle=False)
        return cls(
            coef=arrays["coef"],
            intercept=float(meta.pop("intercept")),
            threshold=float(meta.pop("threshold")),
            corpus=arrays["corpus"],
            features=meta.pop("features"),
            meta=meta,
        )


def choose_threshold(y: np.ndarray, p: np.ndarray, *, min_in_recall: float = 0.98) -> float:
    """The highest threshold that keeps in-domain recall at or above `min_in_recall` (turning students away is worst)."""
    in_scores = np.sort(p[y == 1])
    if len(in_scores) == 0:
        return 0.5
    idx = int(np.floor((1 - min_in_recall) * len(in_scores)))
    return float(min(0.5, in_scores[idx] - 1e-6))


def train_gate(
    in_texts: Sequence[str],
    out_texts: Sequence[str],
    *,
    embedder: Embedder,
    corpus: np.ndarray,
    corpus_id: str,
    features: str = "embedding+similarity",
    balanced: bool = True,
    seed: int = 7,
) -> Gate:
    """Fit logistic regression on synthetic data; pick the threshold on a held-out split."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    texts = list(in_texts) + list(out_texts)
    y = np.array([1] * len(in_texts) + [0] * len(out_texts))
    x = build_features(texts, embedder=embedder, corpus=corpus, kind=features)
    x_tr, x_ho, y_tr, y_ho = train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)
    model = LogisticRegression(C=2.0, max_iter=2000, class_weight="balanced" if balanced else None)
    model.fit(x_tr, y_tr)
    threshold = choose_threshold(y_ho, model.predict_proba(x_ho)[:, 1])
    held_acc = float(((model.predict_proba(x_ho)[:, 1] >= threshold) == y_ho).mean())
    model.fit(x, y)
    return Gate(
        coef=model.coef_[0].astype(np.float32),
        intercept=float(model.intercept_[0]),
        threshold=threshold,
        corpus=corpus.astype(np.float32),
        features=features,
        meta={
            "model": "logreg",
            "balanced": balanced,
            "embedder": embedder.name,
            "corpus_hash": corpus_id,
            "n_in": len(in_texts),
            "n_out": len(out_texts),
            "heldout_accuracy": held_acc,
            "trained_at": datetime.now(timezone.utc).isoformat(),
        },
    )
