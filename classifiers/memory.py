"""Staff memory: messages the team labelled, looked up by nearest neighbour before the trained classifier decides.

A staff correction then changes the verdict for that message and for messages close to it in embedding space (another
university's procedure, another homework), within a cosine similarity `radius` chosen on held-out data (see
`choose_radius`). Beyond the radius the trained classifier decides alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

DEFAULT_RADIUS = 0.93  # cosine similarity; chosen on the replay benchmark's dev split (benchmarks/gate_learning.py)
# Farther, a staff label decides only where the classifier is unsure (its score within DOUBT_BAND of the threshold):
# on split 1 of the replay benchmark 0.88 / 0.15 fixed a mistake and broke nothing; 0.86 started to break right verdicts.
REACH_RADIUS = 0.88
DOUBT_BAND = 0.15


@dataclass(slots=True)
class Recall:
    """The memory's verdict on one message: the label of the close staff-labelled messages and the closest one."""

    label: int  # 1 in domain, 0 out of domain
    similarity: float
    message_id: int | None
    date: str  # ISO date of the staff decision
    votes: int  # staff-labelled messages within the radius that agree


@dataclass
class StaffMemory:
    """Unit-length embeddings of staff-labelled messages with their labels, decision dates and message ids."""

    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    dates: list[str] = field(default_factory=list)
    message_ids: list[int | None] = field(default_factory=list)
    radius: float = DEFAULT_RADIUS
    reach: float = REACH_RADIUS  # a label also decides within this similarity, when the classifier is unsure
    band: float = DOUBT_BAND

    def __len__(self) -> int:
        return int(self.labels.size)

    @classmethod
    def build(cls, vectors: np.ndarray, labels: Sequence[int], *, dates: Sequence[str] = (), message_ids: Sequence[int | None] = (), radius: float = DEFAULT_RADIUS) -> "StaffMemory":
        v = np.asarray(vectors, dtype=np.float32).reshape(len(labels), -1) if len(labels) else np.zeros((0, 0), dtype=np.float32)
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9) if len(v) else v
        n = len(labels)
        return cls(vectors=v, labels=np.asarray(labels, dtype=np.int8), dates=list(dates) or [""] * n, message_ids=list(message_ids) or [None] * n, radius=float(radius))

    def similarities(self, query_vecs: np.ndarray) -> np.ndarray:
        q = np.asarray(query_vecs, dtype=np.float32)
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-9)
        return q @ self.vectors.T

    def recall(self, query_vecs: np.ndarray, *, radius: float | None = None, sims: np.ndarray | None = None, scores: np.ndarray | None = None, threshold: float | None = None) -> list[Recall | None]:
        """Per query: the majority label of the staff-labelled messages within the radius (None when none is, or on a tie);
        given the classifier's `scores` and `threshold`, within the wider reach too where the score is within the band."""
        r = self.radius if radius is None else radius
        if len(self) == 0 or len(query_vecs) == 0:
            return [None] * len(query_vecs)
        sims = self.similarities(query_vecs) if sims is None else sims
        out: list[Recall | None] = []
        for q, row in enumerate(sims):
            unsure = scores is not None and threshold is not None and abs(float(scores[q]) - threshold) <= self.band
            near = np.flatnonzero(row >= (min(r, self.reach) if unsure else r))
            if not len(near):
                out.append(None)
                continue
            inside = int((self.labels[near] == 1).sum())
            outside = len(near) - inside
            if inside == outside:
                out.append(None)
                continue
            label = 1 if inside > outside else 0
            agree = near[self.labels[near] == label]
            best = int(agree[np.argmax(row[agree])])
            out.append(Recall(label=label, similarity=float(row[best]), message_id=self.message_ids[best], date=self.dates[best], votes=len(agree)))
        return out

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {"memory_vectors": self.vectors, "memory_labels": self.labels}

    def as_meta(self) -> dict:
        return {"radius": self.radius, "reach": self.reach, "band": self.band, "dates": self.dates, "message_ids": self.message_ids}

    @classmethod
    def from_stored(cls, arrays, meta: dict | None) -> "StaffMemory":
        if meta is None or "memory_labels" not in arrays:
            return cls()
        return cls(vectors=arrays["memory_vectors"], labels=arrays["memory_labels"], dates=list(meta.get("dates", [])), message_ids=list(meta.get("message_ids", [])), radius=float(meta.get("radius", DEFAULT_RADIUS)),
                   reach=float(meta.get("reach", REACH_RADIUS)), band=float(meta.get("band", DOUBT_BAND)))


def reach_curve(memory_vecs: np.ndarray, memory_labels: Sequence[int], query_vecs: np.ndarray, query_labels: Sequence[int], model_pred: Sequence[int], radii: Sequence[float]) -> list[dict]:
    """How far the memory's corrections reach: per radius, unseen messages it decides, how many of the model's mistakes it
    fixes and how many right verdicts it breaks (overreach)."""
    mem = StaffMemory.build(memory_vecs, memory_labels)
    sims = mem.similarities(query_vecs) if len(mem) else None
    y, m = np.asarray(query_labels), np.asarray(model_pred)
    rows = []
    for r in radii:
        got = mem.recall(query_vecs, radius=r, sims=sims) if len(mem) else [None] * len(y)
        decided = [i for i, g in enumerate(got) if g is not None]
        fixed = sum(1 for i in decided if got[i].label == y[i] and m[i] != y[i])  # type: ignore[union-attr]
        broken = sum(1 for i in decided if got[i].label != y[i] and m[i] == y[i])  # type: ignore[union-attr]
        rows.append({"radius": float(r), "decided": len(decided), "fixed": fixed, "broken": broken, "net": fixed - broken})
    return rows


def choose_radius(rows: list[dict], *, max_broken_share: float = 0.25, default: float = DEFAULT_RADIUS) -> float:
    """The widest radius whose net gain is the best seen and whose breakages stay under `max_broken_share` of its fixes."""
    good = [r for r in rows if r["net"] > 0 and r["broken"] <= max_broken_share * r["fixed"]]
    if not good:
        return default
    best = max(r["net"] for r in good)
    return min(r["radius"] for r in good if r["net"] == best)
